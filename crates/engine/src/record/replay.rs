//! The derived fields of a record are a fold over its history, starting at `created`
//! (docs/reference.md#the-audit-record). Transitions apply the same step, so what they store is what a
//! replay gives.

use super::model::{
    AuditState, BaselineCause, BlockedReason, Event, EventKind, Evidence, Grade, Implementer,
    Record,
};
use crate::ids::{Artifact, PrNumber, TaskId, WorkUnit};
use crate::report::Verdict;

/// Covered tasks in canonical order: deduplicated, sorted by byte order (docs/reference.md#the-audit-record).
pub fn canonical_tasks(tasks: impl IntoIterator<Item = TaskId>) -> Vec<TaskId> {
    let mut tasks: Vec<TaskId> = tasks.into_iter().collect();
    tasks.sort();
    tasks.dedup();
    tasks
}

/// Writes `Derived` and its field-by-field methods (`stored`, `write_to`, `differences`)
/// from one list of the fields a record stores and a replay derives. Written out by hand,
/// a field forgotten in one copy would go unwritten by a transition or unchecked at load;
/// listed once, a derived field added to `Record` is one more line here. `implementers` and
/// the fields not stored have rules of their own, written out after the list's.
macro_rules! derived_fields {
    ($($field:ident: $ty:ty,)*) => {
        /// Everything in a record that history determines.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Derived {
            $(pub(crate) $field: $ty,)*
            /// `None` when the stored record predates the field: then nothing is compared.
            pub(crate) implementers: Option<Vec<Implementer>>,
            /// Accepted reports so far (not stored; counted from history).
            pub(crate) runs_used: u32,
            /// A covered task reopened since the certification (not stored): the next baseline
            /// clears the certification whatever else it changes.
            pub(crate) reopened_since_certified: bool,
        }

        impl Derived {
            /// The fields as a record stores them, to compare with a replay.
            #[must_use]
            pub fn stored(record: &Record) -> Derived {
                Derived {
                    $($field: record.$field.clone(),)*
                    implementers: record.implementers.clone(),
                    runs_used: record.runs_used(),
                    // Not stored, but a transition continues from these fields: read from history.
                    reopened_since_certified: record.reopened_task().is_some(),
                }
            }

            /// Writes the derived fields into `record`.
            pub(crate) fn write_to(self, record: &mut Record) {
                $(record.$field = self.$field;)*
                // Written once someone pushed; a record with none keeps the field out, as before.
                record.implementers = self.implementers.filter(|v| !v.is_empty());
            }

            /// Names of the fields where `self` (stored) differs from `replayed`, with both
            /// values as JSON, in the record's order.
            #[must_use]
            pub fn differences(&self, replayed: &Derived) -> Vec<(&'static str, String, String)> {
                let mut out = Vec::new();
                $(differ(&mut out, stringify!($field), &self.$field, &replayed.$field);)*
                // A record stored before the field was kept is not held to it; one with nobody
                // who pushed leaves it out.
                if self.implementers.is_some() {
                    let replayed = replayed.implementers.clone().filter(|v| !v.is_empty());
                    differ(&mut out, "implementers", &self.implementers, &replayed);
                }
                out
            }
        }
    };
}

// In `Record`'s order, which `differences` keeps.
derived_fields! {
    pull_request: PrNumber,
    work_unit: WorkUnit,
    goal: String,
    completion_oracle: String,
    evidence: Option<Evidence>,
    candidate_artifact: Artifact,
    covered_tasks: Vec<TaskId>,
    audit_budget: u32,
    audit_state: AuditState,
    audit_blocked_reason: Option<BlockedReason>,
    latest_verdict: Option<Verdict>,
    certified_artifact: Option<Artifact>,
    certified_covered_tasks: Option<Vec<TaskId>>,
    certification_grade: Option<Grade>,
    producer_authenticated: Option<bool>,
}

/// Adds `(name, stored, replayed)` to `out`, both as JSON, when they differ.
fn differ<T: serde::Serialize>(
    out: &mut Vec<(&'static str, String, String)>,
    name: &'static str,
    stored: &T,
    replayed: &T,
) {
    let json = |v: &T| serde_json::to_string(v).unwrap_or_default();
    let (stored, replayed) = (json(stored), json(replayed));
    if stored != replayed {
        out.push((name, stored, replayed));
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("history event 1 is `{kind}`, but a record's history starts with `created`")]
    FirstNotCreated { kind: &'static str },
    #[error("history event {index} is a second `created` event")]
    SecondCreated { index: usize },
    #[error("history event {index} (report) is numbered run {found}, expected run {expected}")]
    RunOutOfOrder {
        index: usize,
        expected: u32,
        found: u32,
    },
    #[error("history event {index} (baseline): {why}")]
    Inconsistent { index: usize, why: &'static str },
}

#[must_use]
pub(crate) fn kind_name(kind: &EventKind) -> &'static str {
    match kind {
        EventKind::Created(_) => "created",
        EventKind::Report(_) => "report",
        EventKind::InvocationFailure(_) => "invocation_failure",
        EventKind::Baseline(_) => "baseline",
        EventKind::Resolution(_) => "resolution",
        EventKind::LimitationAcceptance(_) => "limitation_acceptance",
        EventKind::Override(_) => "override",
        EventKind::Disposition(_) => "disposition",
        EventKind::Waiver(_) => "waiver",
        EventKind::Veto(_) => "veto",
        EventKind::Dispatch(_) => "dispatch",
        EventKind::Push(_) => "push",
        EventKind::TaskReopened(_) => "task_reopened",
    }
}

/// Adds `login` as an implementer with `head`, unless it is one already (logins compare
/// case-insensitively).
fn add_implementer(list: &mut Vec<Implementer>, login: &crate::ids::Login, head: &Artifact) {
    let known = list
        .iter()
        .any(|i| i.login.as_str().eq_ignore_ascii_case(login.as_str()));
    if !known {
        list.push(Implementer {
            login: login.clone(),
            head: head.clone(),
        });
    }
}

impl Derived {
    fn clear_certification(&mut self) {
        self.certified_artifact = None;
        self.certified_covered_tasks = None;
        self.certification_grade = None;
        self.producer_authenticated = None;
    }

    /// After a human answer or a budget change: `open`, or `blocked` when the budget is spent.
    fn reopen(&mut self) {
        if self.runs_used >= self.audit_budget {
            self.audit_state = AuditState::Blocked;
            self.audit_blocked_reason = Some(BlockedReason::AuditBudgetExhausted);
        } else {
            self.audit_state = AuditState::Open;
            self.audit_blocked_reason = None;
        }
    }

    /// One step of the fold. `index` (1-based) only names the event in errors.
    ///
    /// # Errors
    ///
    /// The [`ReplayError`] of an event that cannot follow the state folded so far.
    pub(crate) fn step(&mut self, index: usize, event: &Event) -> Result<(), ReplayError> {
        match &event.kind {
            EventKind::Created(_) => return Err(ReplayError::SecondCreated { index }),
            EventKind::Report(run) => {
                let expected = self.runs_used + 1;
                if run.run != expected {
                    return Err(ReplayError::RunOutOfOrder {
                        index,
                        expected,
                        found: run.run,
                    });
                }
                self.runs_used = expected;
                self.latest_verdict = Some(run.verdict);
                self.audit_blocked_reason = None;
                if run.verdict.certifies() {
                    self.reopened_since_certified = false;
                    self.audit_state = AuditState::Certified;
                    self.certified_artifact = Some(run.candidate_artifact.clone());
                    self.certified_covered_tasks = Some(run.covered_tasks.clone());
                    self.certification_grade = Some(run.grade);
                    self.producer_authenticated = Some(run.grade == Grade::Authenticated);
                } else if run.verdict == Verdict::NeedsHumanDecision {
                    // Stays awaiting a human even when the budget is spent (docs/reference.md#budget); the block
                    // applies once resolved.
                    self.audit_state = AuditState::AwaitingHuman;
                } else {
                    self.reopen();
                }
            }
            EventKind::InvocationFailure(_)
            | EventKind::Disposition(_)
            | EventKind::Waiver(_)
            | EventKind::Veto(_)
            | EventKind::Dispatch(_) => {}
            EventKind::Push(p) => {
                add_implementer(
                    self.implementers.get_or_insert_with(Vec::new),
                    &event.actor,
                    &p.head,
                );
            }
            EventKind::TaskReopened(_) => {
                if self.audit_state == AuditState::Certified {
                    self.reopened_since_certified = true;
                }
            }
            EventKind::Baseline(b) => {
                if let (Some(by), BaselineCause::Push | BaselineCause::Reopen) =
                    (&b.candidate_pushed_by, b.cause)
                {
                    let list = self.implementers.get_or_insert_with(Vec::new);
                    add_implementer(list, by, &b.candidate_artifact);
                }
                let moved = b.candidate_artifact != self.candidate_artifact
                    || b.covered_tasks != self.covered_tasks
                    || self.reopened_since_certified
                    || matches!(b.cause, BaselineCause::BaseChange | BaselineCause::Adopt);
                self.reopened_since_certified = false;
                // A carry moves a current certification of the very candidate it names, with
                // the same tasks, to the new head; anything else claiming to be one is not.
                let carries = b.carried_from.as_ref() == Some(&self.candidate_artifact)
                    && b.reason.is_some()
                    && self.audit_state == AuditState::Certified
                    && self.certified_artifact.as_ref() == Some(&self.candidate_artifact)
                    && b.covered_tasks == self.covered_tasks
                    && matches!(b.cause, BaselineCause::Push | BaselineCause::Reopen);
                if carries {
                    self.certified_artifact = Some(b.candidate_artifact.clone());
                } else if moved {
                    self.clear_certification();
                    if self.audit_state == AuditState::Certified {
                        // Earlier events reopened whatever the runs used; a rebind that
                        // says so blocks a record with no run left (docs/reference.md#budget).
                        if b.budget_exhausted && self.runs_used < self.audit_budget {
                            return Err(ReplayError::Inconsistent {
                                index,
                                why: "a rebind says the budget is spent, but runs are left",
                            });
                        }
                        if b.budget_exhausted {
                            self.reopen();
                        } else {
                            self.audit_state = AuditState::Open;
                        }
                    }
                }
                self.pull_request = b.pull_request;
                self.candidate_artifact = b.candidate_artifact.clone();
                self.covered_tasks.clone_from(&b.covered_tasks);
                self.evidence.clone_from(&b.evidence);
            }
            EventKind::Resolution(r) => {
                if r.finding.is_none() && self.audit_state == AuditState::AwaitingHuman {
                    self.reopen();
                }
            }
            EventKind::LimitationAcceptance(_) => {
                // One command both accepts limitations and answers the pending decision.
                if self.audit_state == AuditState::AwaitingHuman {
                    self.reopen();
                }
            }
            EventKind::Override(o) => {
                self.audit_budget = o.budget;
                if self.audit_state == AuditState::Blocked {
                    self.reopen();
                }
            }
        }
        Ok(())
    }
}

/// Folds `history` from its `created` event.
///
/// # Errors
///
/// The [`ReplayError`] of a history that does not start with `created`, or of an event that
/// cannot follow.
pub fn replay(history: &[Event]) -> Result<Derived, ReplayError> {
    let (mut derived, rest) = start(history)?;
    for (i, event) in rest.iter().enumerate() {
        derived.step(i + 2, event)?;
    }
    Ok(derived)
}

/// The audit state after each event of `history`, in order: where a record became
/// certified or blocked, and how often (the pattern library counts each ending once).
///
/// # Errors
///
/// The [`ReplayError`] of a history [`replay`] refuses.
pub fn replay_states(history: &[Event]) -> Result<Vec<AuditState>, ReplayError> {
    let (mut derived, rest) = start(history)?;
    let mut states = vec![derived.audit_state];
    for (i, event) in rest.iter().enumerate() {
        derived.step(i + 2, event)?;
        states.push(derived.audit_state);
    }
    Ok(states)
}

/// The state `created` makes, and the events after it.
fn start(history: &[Event]) -> Result<(Derived, &[Event]), ReplayError> {
    let Some((first, rest)) = history.split_first() else {
        return Err(ReplayError::FirstNotCreated { kind: "nothing" });
    };
    let EventKind::Created(c) = &first.kind else {
        return Err(ReplayError::FirstNotCreated {
            kind: kind_name(&first.kind),
        });
    };
    let derived = Derived {
        pull_request: c.pull_request,
        work_unit: c.work_unit.clone(),
        goal: c.goal.clone(),
        completion_oracle: c.completion_oracle.clone(),
        evidence: c.evidence.clone(),
        candidate_artifact: c.candidate_artifact.clone(),
        covered_tasks: c.covered_tasks.clone(),
        audit_budget: c.audit_budget,
        audit_state: AuditState::Open,
        audit_blocked_reason: None,
        latest_verdict: None,
        certified_artifact: None,
        certified_covered_tasks: None,
        certification_grade: None,
        producer_authenticated: None,
        implementers: Some(Vec::new()),
        reopened_since_certified: false,
        runs_used: 0,
    };
    Ok((derived, rest))
}
