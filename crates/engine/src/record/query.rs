//! Questions the views, the gate and the transitions ask of a record's history: the one
//! definition of a run, a disposition in force, a contested finding, a veto in force and
//! an accepted limitation.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::model::{
    Disposition, DispositionKind, Event, EventKind, FindingRef, FindingSummary, InvocationFailure,
    LimitationSummary, Record, ReportRun, Veto, Waiver,
};
use crate::ids::{Artifact, DeliveryId, FindingId, FindingKey, LimitationId, Login};

/// A limitation key a human accepted (`/audit resolve L-NN`), with that human's authority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedKey {
    pub(crate) key: FindingKey,
    pub(crate) id: LimitationId,
    /// The run whose limitation was accepted.
    pub(crate) run: u32,
    /// `human: <login>`.
    pub authority: String,
    pub(crate) actor: crate::ids::Login,
}

/// One waived finding (a waiver event may name several).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waived<'a> {
    pub waiver: &'a Waiver,
    pub finding: &'a FindingRef,
}

/// A limitation of the latest run and the authority it stands on: the report's own, or
/// else the latest human acceptance of its key.
#[derive(Debug, Clone, PartialEq)]
pub struct LatestLimitation<'a> {
    pub limitation: &'a LimitationSummary,
    pub(crate) run: u32,
    pub authority: Option<String>,
}

/// True when an event of this delivery is already in the history (redelivery).
#[must_use]
pub fn has_delivery(record: &Record, delivery: &DeliveryId) -> bool {
    record.history.iter().any(|e| &e.delivery == delivery)
}

fn same_finding(a: &FindingRef, b: &FindingRef) -> bool {
    a.run == b.run && a.id == b.id
}

impl Record {
    fn kinds(&self) -> impl Iterator<Item = &EventKind> {
        self.history.iter().map(|e: &Event| &e.kind)
    }

    /// Every run (accepted report) with the event that recorded it, in order.
    pub fn run_events(&self) -> impl Iterator<Item = (&Event, &ReportRun)> {
        self.history.iter().filter_map(|e| match &e.kind {
            EventKind::Report(r) => Some((e, r)),
            _ => None,
        })
    }

    /// Every run (accepted report), in order.
    pub fn runs(&self) -> impl Iterator<Item = &ReportRun> {
        self.run_events().map(|(_, r)| r)
    }

    /// Accepted reports, certifying or not (docs/reference.md#budget). Invocation failures do not count.
    #[must_use]
    pub fn runs_used(&self) -> u32 {
        u32::try_from(self.runs().count()).unwrap_or(u32::MAX)
    }

    /// Whether the certifying run was posted by the author or the pusher and accepted only
    /// under `allow_self_audit`.
    #[must_use]
    pub fn self_audit(&self) -> bool {
        self.certified_artifact.is_some() && self.latest_run().is_some_and(|r| r.self_audit)
    }

    #[must_use]
    pub fn budget_left(&self) -> u32 {
        self.audit_budget.saturating_sub(self.runs_used())
    }

    #[must_use]
    pub fn latest_run(&self) -> Option<&ReportRun> {
        self.runs().last()
    }

    /// The commits the latest run's certification was carried to since, oldest first, each
    /// with the commit it was carried from: rebinds onto identical trees (see
    /// [`crate::transition::carry`]). Empty when it was never carried.
    #[must_use]
    pub(crate) fn carries(&self) -> Vec<(&Artifact, &Artifact)> {
        let after_run = self
            .history
            .iter()
            .rposition(|e| matches!(e.kind, EventKind::Report(_)))
            .map_or(0, |at| at + 1);
        self.history[after_run..]
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Baseline(b) => Some((b.carried_from.as_ref()?, &b.candidate_artifact)),
                _ => None,
            })
            .collect()
    }

    /// The commit the latest run's certification stands for now: the run's own candidate,
    /// moved along each unbroken carry after it.
    #[must_use]
    pub fn certification_carried_to(&self) -> Option<&Artifact> {
        let mut at = &self.latest_run()?.candidate_artifact;
        for (from, to) in self.carries() {
            if from == at {
                at = to;
            }
        }
        Some(at)
    }

    /// The run numbered `run`.
    #[must_use]
    pub fn run(&self, run: u32) -> Option<&ReportRun> {
        self.runs().find(|r| r.run == run)
    }

    /// The finding `id` as run `run` reported it.
    #[must_use]
    pub fn finding(&self, run: u32, id: &FindingId) -> Option<&FindingSummary> {
        self.run(run)?.findings.iter().find(|f| &f.id == id)
    }

    /// A finding of the latest run, by id.
    #[must_use]
    pub fn latest_finding(&self, id: &FindingId) -> Option<&FindingSummary> {
        self.latest_run()?.findings.iter().find(|f| &f.id == id)
    }

    /// Recorded invocation failures (they use no budget), with their events.
    pub fn invocation_failures(&self) -> impl Iterator<Item = (&Event, &InvocationFailure)> {
        self.history.iter().filter_map(|e| match &e.kind {
            EventKind::InvocationFailure(f) => Some((e, f)),
            _ => None,
        })
    }

    /// Every veto given. None is ever lifted, so each stays in force from its round on.
    pub(crate) fn vetoes(&self) -> impl Iterator<Item = &Veto> {
        self.kinds().filter_map(|k| match k {
            EventKind::Veto(v) => Some(v),
            _ => None,
        })
    }

    /// Vetoes in force for run `run`: those effective from that round or earlier.
    #[must_use]
    pub fn vetoes_in_force(&self, run: u32) -> Vec<&Veto> {
        self.vetoes()
            .filter(|v| v.effective_from_round <= run)
            .collect()
    }

    /// The veto in force for `run` on `key`, if any: the first given that is in force.
    #[must_use]
    pub fn veto_on(&self, key: &FindingKey, run: u32) -> Option<&Veto> {
        self.vetoes()
            .find(|v| &v.key == key && v.effective_from_round <= run)
    }

    /// One veto per vetoed key, the latest given, in the order they were given: what the
    /// record shows as standing. Whether a key is in force for a run is [`Self::veto_on`].
    #[must_use]
    pub fn latest_vetoes(&self) -> Vec<&Veto> {
        let mut out: Vec<&Veto> = Vec::new();
        for v in self.vetoes() {
            out.retain(|old| old.key != v.key);
            out.push(v);
        }
        out
    }

    #[must_use]
    pub fn waivers(&self) -> Vec<&Waiver> {
        self.kinds()
            .filter_map(|k| match k {
                EventKind::Waiver(w) => Some(w),
                _ => None,
            })
            .collect()
    }

    /// Every waived finding, in history order.
    #[must_use]
    pub fn waived(&self) -> Vec<Waived<'_>> {
        self.waivers()
            .into_iter()
            .flat_map(|waiver| {
                waiver
                    .findings
                    .iter()
                    .map(move |finding| Waived { waiver, finding })
            })
            .collect()
    }

    /// Every disposition given, including any a later one replaced.
    pub fn dispositions(&self) -> impl Iterator<Item = &Disposition> {
        self.kinds().filter_map(|k| match k {
            EventKind::Disposition(d) => Some(d),
            _ => None,
        })
    }

    /// The disposition in force for each finding (one per finding, docs/reference.md#history-events): the last
    /// given for that run and id, with its position in the history, in history order.
    fn dispositions_in_force_at(&self) -> Vec<(usize, &Disposition)> {
        let mut out: Vec<(usize, &Disposition)> = Vec::new();
        for (at, event) in self.history.iter().enumerate() {
            if let EventKind::Disposition(d) = &event.kind {
                out.retain(|(_, old)| !same_finding(&old.finding, &d.finding));
                out.push((at, d));
            }
        }
        out
    }

    /// The veto on the disposed finding's key that is in force for the round the
    /// disposition shapes (the one after the finding's run), when the disposition is other
    /// than `fix`: it replaces that disposition with `fix`, whichever came first.
    fn overriding_veto(&self, d: &Disposition) -> Option<&Veto> {
        if d.disposition == DispositionKind::Fix {
            return None;
        }
        let key = d.finding.key.as_ref()?;
        self.veto_on(key, d.finding.run.saturating_add(1))
    }

    /// The disposition as it stands: the one given, or `fix` when a veto in force on its
    /// key stands over it (a veto's fix entry, docs/reference.md#commands), with the note, authority and
    /// issue it was given with; the vetoes themselves are listed apart.
    fn effective<'a>(&'a self, d: &'a Disposition) -> Cow<'a, Disposition> {
        match self.overriding_veto(d) {
            None => Cow::Borrowed(d),
            Some(_) => Cow::Owned(Disposition {
                disposition: DispositionKind::Fix,
                vetoed_from: Some(d.disposition),
                ..d.clone()
            }),
        }
    }

    /// The disposition in force for each finding of every run, in history order: a veto in
    /// force on a finding's key makes it `fix` from the veto's round on, whatever was
    /// given before (docs/reference.md#commands).
    #[must_use]
    pub fn dispositions_in_force(&self) -> Vec<Cow<'_, Disposition>> {
        self.dispositions_in_force_at()
            .into_iter()
            .map(|(_, d)| self.effective(d))
            .collect()
    }

    /// The disposition in force of each finding of the latest run.
    #[must_use]
    pub fn latest_dispositions(&self) -> BTreeMap<FindingId, Cow<'_, Disposition>> {
        let Some(run) = self.latest_run().map(|r| r.run) else {
            return BTreeMap::new();
        };
        self.dispositions_in_force()
            .into_iter()
            .filter(|d| d.finding.run == run)
            .map(|d| (d.finding.id.clone(), d))
            .collect()
    }

    /// True when a run after the rejected finding's no longer reports its key: the
    /// auditor dropped it. A finding without a key is not tracked past its own run.
    fn rejection_dropped(&self, finding: &FindingRef) -> bool {
        self.runs().filter(|r| r.run > finding.run).any(|r| {
            !finding
                .key
                .as_ref()
                .is_some_and(|k| r.findings.iter().any(|f| f.key.as_ref() == Some(k)))
        })
    }

    /// True when a human resolved the rejection at history position `at`: a finding
    /// resolution recorded after it, of the same finding or of its key.
    fn rejection_resolved(&self, at: usize, finding: &FindingRef) -> bool {
        self.history.iter().skip(at).any(|e| match &e.kind {
            EventKind::Resolution(r) => r.finding.as_ref().is_some_and(|f| {
                same_finding(f, finding) || (f.key.is_some() && f.key == finding.key)
            }),
            _ => false,
        })
    }

    /// Rejected findings still contested (docs/reference.md#commands): the disposition in
    /// force is `reject`, no later run has dropped the key, and no human resolved it since.
    /// One entry per key (the latest rejection), in history order.
    #[must_use]
    pub fn contested(&self) -> Vec<&Disposition> {
        let mut out: Vec<&Disposition> = Vec::new();
        for (at, d) in self.dispositions_in_force_at() {
            if d.disposition != DispositionKind::Reject
                || self.overriding_veto(d).is_some()
                || self.rejection_dropped(&d.finding)
                || self.rejection_resolved(at, &d.finding)
            {
                continue;
            }
            if d.finding.key.is_some() {
                out.retain(|old| old.finding.key != d.finding.key);
            }
            out.push(d);
        }
        out
    }

    /// True when `finding` of the latest run is contested (its own rejection or its key's).
    #[must_use]
    pub fn is_contested(&self, id: &FindingId) -> bool {
        let Some(f) = self.latest_finding(id) else {
            return false;
        };
        let Some(run) = self.latest_run().map(|r| r.run) else {
            return false;
        };
        self.contested().into_iter().any(|d| {
            (d.finding.run == run && &d.finding.id == id)
                || (f.key.is_some() && d.finding.key == f.key)
        })
    }

    /// Limitation keys humans accepted, in history order.
    #[must_use]
    pub fn accepted_limitations(&self) -> Vec<AcceptedKey> {
        self.history
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::LimitationAcceptance(a) => Some((e, a)),
                _ => None,
            })
            .flat_map(|(e, a)| {
                a.limitations.iter().map(move |l| AcceptedKey {
                    key: l.key.clone(),
                    id: l.id.clone(),
                    run: a.run,
                    authority: a.authority.clone(),
                    actor: e.actor.clone(),
                })
            })
            .collect()
    }

    /// Whether `login` accepted limitation `key`. The event's actor is the login GitHub
    /// authenticated, so it is what counts, not any name written in text.
    #[must_use]
    pub fn accepted_by(&self, key: &FindingKey, login: &Login) -> bool {
        self.accepted_limitations()
            .iter()
            .any(|a| &a.key == key && a.actor.same_as(login))
    }

    /// The latest human acceptance of limitation `key`, if any.
    #[must_use]
    pub(crate) fn acceptance_of(&self, key: &FindingKey) -> Option<AcceptedKey> {
        self.accepted_limitations()
            .into_iter()
            .rev()
            .find(|a| &a.key == key)
    }

    /// The limitations of the latest run, each with the authority it stands on.
    #[must_use]
    pub fn latest_limitations(&self) -> Vec<LatestLimitation<'_>> {
        let Some(latest) = self.latest_run() else {
            return Vec::new();
        };
        latest
            .limitations
            .iter()
            .map(|limitation| LatestLimitation {
                limitation,
                run: latest.run,
                authority: limitation
                    .authority
                    .clone()
                    .or_else(|| self.acceptance_of(&limitation.key).map(|a| a.authority)),
            })
            .collect()
    }

    /// Invocation refs this record used: accepted runs and recorded failures.
    pub(crate) fn invocation_refs(&self) -> impl Iterator<Item = &str> {
        self.kinds().filter_map(|k| match k {
            EventKind::Report(r) => Some(r.invocation_ref.as_str()),
            EventKind::InvocationFailure(f) => Some(f.invocation_ref.as_str()),
            _ => None,
        })
    }
}
