//! The auditor runs the app asked for (`dispatch` events, docs/reference.md#when-the-app-dispatches).

use super::model::{Dispatch, Event, EventKind, InvocationFailure, Record};
use crate::ids::Artifact;

impl Record {
    /// Every `dispatch` event with its event, in order.
    pub fn dispatches(&self) -> impl Iterator<Item = (&Event, &Dispatch)> {
        self.history.iter().filter_map(|e| match &e.kind {
            EventKind::Dispatch(d) => Some((e, d)),
            _ => None,
        })
    }

    /// The event that asked for run `run` on `candidate`, if any.
    #[must_use]
    pub(crate) fn dispatch_for(&self, candidate: &Artifact, run: u32) -> Option<&Event> {
        self.dispatches()
            .find(|(_, d)| &d.candidate_artifact == candidate && d.run == run)
            .map(|(e, _)| e)
    }

    /// The auditor run asked for and not yet reported: the next run on the current
    /// candidate, while the record is open.
    #[must_use]
    pub fn awaited_dispatch(&self) -> Option<(&Event, &Dispatch)> {
        if self.audit_state != super::model::AuditState::Open {
            return None;
        }
        let next = self.runs_used() + 1;
        self.dispatches()
            .filter(|(_, d)| d.run == next && d.candidate_artifact == self.candidate_artifact)
            .last()
    }

    /// The newest invocation failure on the current candidate that no run followed, while
    /// the record is open: the auditor could not run, and said why (a setup step missing,
    /// say). No run was spent, and nothing asks the auditor again until someone does.
    #[must_use]
    pub(crate) fn stalled_invocation(&self) -> Option<(&Event, &InvocationFailure)> {
        if self.audit_state != super::model::AuditState::Open {
            return None;
        }
        let mut stalled = None;
        for event in &self.history {
            match &event.kind {
                EventKind::InvocationFailure(f)
                    if f.candidate_artifact == self.candidate_artifact =>
                {
                    stalled = Some((event, f));
                }
                EventKind::Report(_) | EventKind::Dispatch(_) => stalled = None,
                _ => {}
            }
        }
        stalled
    }
}
