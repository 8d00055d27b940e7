//! Questions the views, the gate and the transitions ask of a record's history.

use std::collections::BTreeMap;

use super::model::{
    Disposition, DispositionKind, Event, EventKind, FindingSummary, Record, ReportRun, Veto, Waiver,
};
use crate::ids::{DeliveryId, FindingId, FindingKey, LimitationId};

/// A limitation key a human accepted (`/audit resolve L-NN`), with that human's authority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedKey {
    pub key: FindingKey,
    pub id: LimitationId,
    /// The run whose limitation was accepted.
    pub run: u32,
    /// `human: <login>`.
    pub authority: String,
    pub actor: crate::ids::Login,
}

/// True when an event of this delivery is already in the history (redelivery).
pub fn has_delivery(record: &Record, delivery: &DeliveryId) -> bool {
    record.history.iter().any(|e| &e.delivery == delivery)
}

impl Record {
    fn kinds(&self) -> impl Iterator<Item = &EventKind> {
        self.history.iter().map(|e: &Event| &e.kind)
    }

    /// Every run (accepted report), in order.
    pub fn runs(&self) -> impl Iterator<Item = &ReportRun> {
        self.kinds().filter_map(|k| match k {
            EventKind::Report(r) => Some(r),
            _ => None,
        })
    }

    /// Accepted reports, certifying or not (§10). Invocation failures do not count.
    pub fn runs_used(&self) -> u32 {
        u32::try_from(self.runs().count()).unwrap_or(u32::MAX)
    }

    pub fn budget_left(&self) -> u32 {
        self.audit_budget.saturating_sub(self.runs_used())
    }

    pub fn latest_run(&self) -> Option<&ReportRun> {
        self.runs().last()
    }

    /// A finding of the latest run, by id.
    pub fn latest_finding(&self, id: &FindingId) -> Option<&FindingSummary> {
        self.latest_run()?.findings.iter().find(|f| &f.id == id)
    }

    /// Vetoes in force for run `run`: those effective from that round or earlier.
    pub fn vetoes_in_force(&self, run: u32) -> Vec<&Veto> {
        self.kinds()
            .filter_map(|k| match k {
                EventKind::Veto(v) if v.effective_from_round <= run => Some(v),
                _ => None,
            })
            .collect()
    }

    /// The veto in force for `run` on `key`, if any.
    pub fn veto_on(&self, key: &FindingKey, run: u32) -> Option<&Veto> {
        self.vetoes_in_force(run)
            .into_iter()
            .find(|v| &v.key == key)
    }

    pub fn waivers(&self) -> Vec<&Waiver> {
        self.kinds()
            .filter_map(|k| match k {
                EventKind::Waiver(w) => Some(w),
                _ => None,
            })
            .collect()
    }

    pub fn dispositions(&self) -> impl Iterator<Item = &Disposition> {
        self.kinds().filter_map(|k| match k {
            EventKind::Disposition(d) => Some(d),
            _ => None,
        })
    }

    /// The disposition of each finding of the latest run (one at most per finding).
    pub fn latest_dispositions(&self) -> BTreeMap<FindingId, &Disposition> {
        let Some(run) = self.latest_run().map(|r| r.run) else {
            return BTreeMap::new();
        };
        self.dispositions()
            .filter(|d| d.finding.run == run)
            .map(|d| (d.finding.id.clone(), d))
            .collect()
    }

    /// True when a human resolved the rejected finding `d`: a finding resolution of the
    /// same finding, or of the same key in the same or a later run.
    fn rejection_resolved(&self, d: &Disposition) -> bool {
        self.kinds().any(|k| match k {
            EventKind::Resolution(r) => r.finding.as_ref().is_some_and(|f| {
                (f.run == d.finding.run && f.id == d.finding.id)
                    || (f.run >= d.finding.run && f.key.is_some() && f.key == d.finding.key)
            }),
            _ => false,
        })
    }

    /// Rejected findings still contested: not resolved by a human, and still reported in
    /// the latest run (the same finding, or its key). One entry per key, the latest.
    pub fn contested(&self) -> Vec<&Disposition> {
        let Some(latest) = self.latest_run() else {
            return Vec::new();
        };
        let mut by_key: BTreeMap<String, &Disposition> = BTreeMap::new();
        for d in self.dispositions() {
            if d.disposition != DispositionKind::Reject || self.rejection_resolved(d) {
                continue;
            }
            let still_reported = d.finding.run == latest.run
                || d.finding
                    .key
                    .as_ref()
                    .is_some_and(|key| latest.findings.iter().any(|f| f.key.as_ref() == Some(key)));
            if still_reported {
                let slot = match &d.finding.key {
                    Some(key) => format!("key:{key}"),
                    None => format!("id:{}:{}", d.finding.run, d.finding.id),
                };
                by_key.insert(slot, d);
            }
        }
        let mut out: Vec<&Disposition> = by_key.into_values().collect();
        out.sort_by(|a, b| (a.finding.run, &a.finding.id).cmp(&(b.finding.run, &b.finding.id)));
        out
    }

    /// True when `finding` of the latest run is contested (its own rejection or its key's).
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

    /// Invocation refs this record used: accepted runs and recorded failures.
    pub fn invocation_refs(&self) -> impl Iterator<Item = &str> {
        self.kinds().filter_map(|k| match k {
            EventKind::Report(r) => Some(r.invocation_ref.as_str()),
            EventKind::InvocationFailure(f) => Some(f.invocation_ref.as_str()),
            _ => None,
        })
    }
}
