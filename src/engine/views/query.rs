//! Small read-only queries over `record.history`, as the views need them.

use crate::engine::record::{
    Disposition, DispositionKind, Event, EventKind, FindingRef, FindingSummary, InvocationFailure,
    LimitationSummary, Record, ReportRun, Veto, Waiver,
};
use crate::ids::{FindingId, FindingKey};

/// One run (an accepted report) with the event that recorded it.
pub(crate) struct Run<'a> {
    pub event: &'a Event,
    pub run: &'a ReportRun,
}

pub(crate) fn runs(record: &Record) -> Vec<Run<'_>> {
    record
        .history
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Report(run) => Some(Run { event, run }),
            _ => None,
        })
        .collect()
}

pub(crate) fn latest_run(record: &Record) -> Option<Run<'_>> {
    runs(record).pop()
}

/// Runs used against the budget: accepted reports only (CONTRACT §10).
pub(crate) fn runs_used(record: &Record) -> usize {
    runs(record).len()
}

pub(crate) fn failures(record: &Record) -> Vec<(&Event, &InvocationFailure)> {
    record
        .history
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::InvocationFailure(f) => Some((event, f)),
            _ => None,
        })
        .collect()
}

/// The finding `id` as run `run` reported it.
pub(crate) fn finding<'a>(
    record: &'a Record,
    run: u32,
    id: &FindingId,
) -> Option<&'a FindingSummary> {
    runs(record)
        .into_iter()
        .find(|r| r.run.run == run)
        .and_then(|r| r.run.findings.iter().find(|f| &f.id == id))
}

/// The disposition in force for each finding: the last one given for that run and id,
/// in history order.
pub(crate) fn dispositions(record: &Record) -> Vec<(&Event, &Disposition)> {
    let mut out: Vec<(&Event, &Disposition)> = Vec::new();
    for event in &record.history {
        if let EventKind::Disposition(d) = &event.kind {
            out.retain(|(_, old)| !same_finding(&old.finding, &d.finding));
            out.push((event, d));
        }
    }
    out
}

fn same_finding(a: &FindingRef, b: &FindingRef) -> bool {
    a.run == b.run && a.id == b.id
}

/// One waived finding (a waiver event may name several).
pub(crate) struct Waived<'a> {
    pub waiver: &'a Waiver,
    pub finding: &'a FindingRef,
}

pub(crate) fn waived(record: &Record) -> Vec<Waived<'_>> {
    record
        .history
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Waiver(w) => Some(w),
            _ => None,
        })
        .flat_map(|waiver| {
            waiver
                .findings
                .iter()
                .map(move |finding| Waived { waiver, finding })
        })
        .collect()
}

/// Vetoes in force: no command lifts a veto, so every key vetoed, with its latest veto.
pub(crate) fn vetoes(record: &Record) -> Vec<(&Event, &Veto)> {
    let mut out: Vec<(&Event, &Veto)> = Vec::new();
    for event in &record.history {
        if let EventKind::Veto(v) = &event.kind {
            out.retain(|(_, old)| old.key != v.key);
            out.push((event, v));
        }
    }
    out
}

/// Findings disposed `reject` that still await a resolution: neither a later run that no
/// longer reports the key (a finding without a key is not tracked past its run) nor a
/// later `resolution` naming the finding.
pub(crate) fn contested(record: &Record) -> Vec<(&Event, &Disposition)> {
    let all_runs = runs(record);
    dispositions(record)
        .into_iter()
        .filter(|(_, d)| d.disposition == DispositionKind::Reject)
        .filter(|(event, d)| {
            let gone = all_runs
                .iter()
                .filter(|r| r.run.run > d.finding.run)
                .any(|r| !reports_key(r.run, d.finding.key.as_ref()));
            !gone && !resolved_after(record, event, &d.finding)
        })
        .collect()
}

fn reports_key(run: &ReportRun, key: Option<&FindingKey>) -> bool {
    key.is_some_and(|k| run.findings.iter().any(|f| f.key.as_ref() == Some(k)))
}

fn resolved_after(record: &Record, disposed: &Event, finding: &FindingRef) -> bool {
    record
        .history
        .iter()
        .skip_while(|e| !std::ptr::eq(*e, disposed))
        .any(|e| match &e.kind {
            EventKind::Resolution(r) => r.finding.as_ref().is_some_and(|f| {
                same_finding(f, finding) || (f.key.is_some() && f.key == finding.key)
            }),
            _ => false,
        })
}

/// A limitation of the latest run and the authority it stands on: the report's own, or
/// a human acceptance of its key recorded since.
pub(crate) struct Limitation<'a> {
    pub limitation: &'a LimitationSummary,
    pub run: u32,
    pub authority: Option<String>,
}

pub(crate) fn limitations(record: &Record) -> Vec<Limitation<'_>> {
    let Some(latest) = latest_run(record) else {
        return Vec::new();
    };
    latest
        .run
        .limitations
        .iter()
        .map(|limitation| Limitation {
            limitation,
            run: latest.run.run,
            authority: limitation
                .authority
                .clone()
                .or_else(|| accepted_by(record, &limitation.key)),
        })
        .collect()
}

fn accepted_by(record: &Record, key: &FindingKey) -> Option<String> {
    record
        .history
        .iter()
        .rev()
        .find_map(|event| match &event.kind {
            EventKind::LimitationAcceptance(a) if a.limitations.iter().any(|l| &l.key == key) => {
                Some(a.authority.clone())
            }
            _ => None,
        })
}
