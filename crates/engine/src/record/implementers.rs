//! Who wrote what a record audits (docs/reference.md#independence-of-the-auditor), and
//! whether a covered task was reopened since its certification
//! (docs/reference.md#gate-conditions): questions of the history, as `query.rs` asks others.

use super::model::{BaselineCause, EventKind, Record};
use crate::ids::{Login, TaskId};

/// How an account came to be an implementer of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImplementerBy {
    /// It pushed this head to the pull request.
    Pushed(crate::ids::Artifact),
    /// A record written before pushes were kept names it as having set this candidate.
    SetCandidate(crate::ids::Artifact),
}

impl Record {
    /// Every account the history makes an implementer, in the order it first appears, and
    /// how (docs/reference.md#independence-of-the-auditor): the sender of each push and of
    /// each reopen that brought a head, whether or not it rebound the record; and, in
    /// records written before pushes were kept that way, whoever a `created`, `baseline` or
    /// `adopt` event names as having set the candidate. Nothing removes one.
    #[must_use]
    pub(crate) fn implementers(&self) -> Vec<(&Login, ImplementerBy)> {
        let mut out: Vec<(&Login, ImplementerBy)> = Vec::new();
        for e in &self.history {
            let found = match &e.kind {
                EventKind::Push(p) => Some((&e.actor, ImplementerBy::Pushed(p.head.clone()))),
                EventKind::Baseline(b)
                    if matches!(b.cause, BaselineCause::Push | BaselineCause::Reopen) =>
                {
                    let by = b.candidate_pushed_by.as_ref().unwrap_or(&e.actor);
                    Some((by, ImplementerBy::Pushed(b.candidate_artifact.clone())))
                }
                EventKind::Baseline(b) => b.candidate_pushed_by.as_ref().map(|by| {
                    (
                        by,
                        ImplementerBy::SetCandidate(b.candidate_artifact.clone()),
                    )
                }),
                EventKind::Created(c) => c.candidate_pushed_by.as_ref().map(|by| {
                    (
                        by,
                        ImplementerBy::SetCandidate(c.candidate_artifact.clone()),
                    )
                }),
                _ => None,
            };
            if let Some((login, how)) = found {
                let known = out
                    .iter()
                    .any(|(l, _)| l.as_str().eq_ignore_ascii_case(login.as_str()));
                if !known {
                    out.push((login, how));
                }
            }
        }
        out
    }

    /// How `login` is an implementer of this record, if it is one.
    #[must_use]
    pub(crate) fn implementer(&self, login: &Login) -> Option<ImplementerBy> {
        self.implementers()
            .into_iter()
            .find(|(l, _)| l.as_str().eq_ignore_ascii_case(login.as_str()))
            .map(|(_, how)| how)
    }

    #[must_use]
    pub(crate) fn is_implementer(&self, login: &Login) -> bool {
        self.implementer(login).is_some()
    }

    /// The covered task reopened since the record's certification, while the record is
    /// still certified on it: the certification is stale until a baseline
    /// (docs/reference.md#gate-conditions).
    #[must_use]
    pub(crate) fn reopened_task(&self) -> Option<&TaskId> {
        let mut stale = None;
        for kind in self.history.iter().map(|e| &e.kind) {
            match kind {
                EventKind::Report(r) if r.verdict.certifies() => stale = None,
                EventKind::Baseline(_) => stale = None,
                EventKind::TaskReopened(t) if stale.is_none() => stale = Some(&t.task),
                _ => {}
            }
        }
        stale.filter(|_| self.audit_state == crate::record::AuditState::Certified)
    }
}
