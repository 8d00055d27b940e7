//! Shared phrasing: state words, times, finding counts.

use chrono::{DateTime, Utc};

use crate::record::{AuditState, FindingSummary, Record};
use crate::report::Severity;

use crate::md::Md;

/// The record's state in words, linked to the legend.
pub(crate) fn state(record: &Record) -> Md {
    let words = match record.audit_state {
        AuditState::Open => "open",
        AuditState::AwaitingHuman => "awaiting a human decision",
        AuditState::Certified => "certified",
        AuditState::Blocked => match record.audit_blocked_reason {
            Some(_) => "blocked (budget spent)",
            None => "blocked",
        },
    };
    crate::legend::term(words, "states")
}

/// `certification carried from abc1234 (identical tree)`, when the record's current
/// certification was moved onto its candidate from an identical tree.
pub(crate) fn carried(record: &Record) -> Option<String> {
    if record.audit_state != AuditState::Certified
        || record.certified_artifact.as_ref() != Some(&record.candidate_artifact)
    {
        return None;
    }
    let (from, to) = record.carries().into_iter().last()?;
    (to == &record.candidate_artifact).then(|| {
        format!(
            "certification carried from {} (identical tree)",
            from.short()
        )
    })
}

/// `budget 2 of 3 runs used`.
pub(crate) fn budget(record: &Record) -> String {
    format!(
        "budget {} of {} runs used",
        record.runs_used(),
        record.audit_budget
    )
}

pub(crate) fn time(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// `1 critical, 2 high (2 blocking)`, or `none`.
pub(crate) fn finding_counts(findings: &[FindingSummary]) -> String {
    if findings.is_empty() {
        return "none".to_owned();
    }
    let counts: Vec<String> = Severity::ALL
        .iter()
        .filter_map(|s| {
            let n = findings.iter().filter(|f| f.severity == *s).count();
            (n > 0).then(|| format!("{n} {}", s.as_str()))
        })
        .collect();
    let blocking = findings.iter().filter(|f| f.blocking).count();
    format!("{} ({blocking} blocking)", counts.join(", "))
}

/// A run's blocking and total findings; a handoff's are its counts, critical as blocking.
#[must_use]
pub(crate) fn tally(run: &crate::record::ReportRun) -> (u32, u32) {
    if let Some(c) = run.handoff.counts() {
        return (c.critical, c.critical + c.warning + c.info);
    }
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (
        count(run.findings.iter().filter(|f| f.blocking).count()),
        count(run.findings.len()),
    )
}

/// [`finding_counts`] of a run; a handoff's from its `Findings:` line.
pub(crate) fn run_finding_counts(run: &crate::record::ReportRun) -> String {
    match run.handoff.counts() {
        Some(c) => format!(
            "critical={}, warning={}, info={} ({} blocking)",
            c.critical, c.warning, c.info, c.critical
        ),
        None => finding_counts(&run.findings),
    }
}

/// Literal `/audit new` usage, for views shown before any record exists.
pub(crate) const START_HINT: &str =
    "No audit record exists for this pull request yet. Start one with a comment:\n\n```\n/audit new --goal \"what this change must achieve\" --oracle \"how completion is judged\"\n```";

/// `posted by alice`, and for a run accepted only under `allow_self_audit`, `self-audit
/// allowed by configuration` (docs/reference.md#independence-of-the-auditor).
#[must_use]
pub(crate) fn posted_by(poster: &crate::ids::Login, run: &crate::record::ReportRun) -> Md {
    let mut out = Md::lit("posted by ");
    out.push(&Md::text(poster.as_str()));
    if run.self_audit {
        out.push(&Md::lit(", self-audit allowed by configuration"));
    }
    out
}
