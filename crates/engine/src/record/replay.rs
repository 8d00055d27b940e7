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

/// Everything in a record that history determines.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub(crate) pull_request: PrNumber,
    pub(crate) work_unit: WorkUnit,
    pub(crate) goal: String,
    pub(crate) completion_oracle: String,
    pub(crate) evidence: Option<Evidence>,
    pub(crate) candidate_artifact: Artifact,
    pub(crate) covered_tasks: Vec<TaskId>,
    pub(crate) audit_budget: u32,
    pub(crate) audit_state: AuditState,
    pub(crate) audit_blocked_reason: Option<BlockedReason>,
    pub(crate) latest_verdict: Option<Verdict>,
    pub(crate) certified_artifact: Option<Artifact>,
    pub(crate) certified_covered_tasks: Option<Vec<TaskId>>,
    pub(crate) certification_grade: Option<Grade>,
    pub(crate) producer_authenticated: Option<bool>,
    /// `None` when the stored record predates the field: then nothing is compared.
    pub(crate) implementers: Option<Vec<Implementer>>,
    /// Accepted reports so far (not stored; counted from history).
    pub(crate) runs_used: u32,
    /// A covered task reopened since the certification (not stored): the next baseline
    /// clears the certification whatever else it changes.
    pub(crate) reopened_since_certified: bool,
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
    /// The fields as a record stores them, to compare with a replay.
    #[must_use]
    pub fn stored(record: &Record) -> Derived {
        Derived {
            pull_request: record.pull_request,
            work_unit: record.work_unit.clone(),
            goal: record.goal.clone(),
            completion_oracle: record.completion_oracle.clone(),
            evidence: record.evidence.clone(),
            candidate_artifact: record.candidate_artifact.clone(),
            covered_tasks: record.covered_tasks.clone(),
            audit_budget: record.audit_budget,
            audit_state: record.audit_state,
            audit_blocked_reason: record.audit_blocked_reason,
            latest_verdict: record.latest_verdict,
            certified_artifact: record.certified_artifact.clone(),
            certified_covered_tasks: record.certified_covered_tasks.clone(),
            certification_grade: record.certification_grade,
            producer_authenticated: record.producer_authenticated,
            implementers: record.implementers.clone(),
            runs_used: record.runs_used(),
            // Not stored, but a transition continues from these fields: read from history.
            reopened_since_certified: record.reopened_task().is_some(),
        }
    }

    /// Writes the derived fields into `record`.
    pub(crate) fn write_to(self, record: &mut Record) {
        record.pull_request = self.pull_request;
        record.work_unit = self.work_unit;
        record.goal = self.goal;
        record.completion_oracle = self.completion_oracle;
        record.evidence = self.evidence;
        record.candidate_artifact = self.candidate_artifact;
        record.covered_tasks = self.covered_tasks;
        record.audit_budget = self.audit_budget;
        record.audit_state = self.audit_state;
        record.audit_blocked_reason = self.audit_blocked_reason;
        record.latest_verdict = self.latest_verdict;
        record.certified_artifact = self.certified_artifact;
        record.certified_covered_tasks = self.certified_covered_tasks;
        record.certification_grade = self.certification_grade;
        record.producer_authenticated = self.producer_authenticated;
        // Written once someone pushed; a record with none keeps the field out, as before.
        record.implementers = self.implementers.filter(|v| !v.is_empty());
    }

    /// Names of the fields where `self` (stored) differs from `replayed`, with both values.
    #[must_use]
    pub fn differences(&self, replayed: &Derived) -> Vec<(&'static str, String, String)> {
        fn j<T: serde::Serialize>(v: &T) -> String {
            serde_json::to_string(v).unwrap_or_default()
        }
        let mut out = Vec::new();
        let mut cmp = |name: &'static str, a: String, b: String| {
            if a != b {
                out.push((name, a, b));
            }
        };
        cmp(
            "pull_request",
            j(&self.pull_request),
            j(&replayed.pull_request),
        );
        cmp("work_unit", j(&self.work_unit), j(&replayed.work_unit));
        cmp("goal", j(&self.goal), j(&replayed.goal));
        cmp(
            "completion_oracle",
            j(&self.completion_oracle),
            j(&replayed.completion_oracle),
        );
        cmp("evidence", j(&self.evidence), j(&replayed.evidence));
        cmp(
            "candidate_artifact",
            j(&self.candidate_artifact),
            j(&replayed.candidate_artifact),
        );
        cmp(
            "covered_tasks",
            j(&self.covered_tasks),
            j(&replayed.covered_tasks),
        );
        cmp(
            "audit_budget",
            j(&self.audit_budget),
            j(&replayed.audit_budget),
        );
        cmp(
            "audit_state",
            j(&self.audit_state),
            j(&replayed.audit_state),
        );
        cmp(
            "audit_blocked_reason",
            j(&self.audit_blocked_reason),
            j(&replayed.audit_blocked_reason),
        );
        cmp(
            "latest_verdict",
            j(&self.latest_verdict),
            j(&replayed.latest_verdict),
        );
        cmp(
            "certified_artifact",
            j(&self.certified_artifact),
            j(&replayed.certified_artifact),
        );
        cmp(
            "certified_covered_tasks",
            j(&self.certified_covered_tasks),
            j(&replayed.certified_covered_tasks),
        );
        cmp(
            "certification_grade",
            j(&self.certification_grade),
            j(&replayed.certification_grade),
        );
        cmp(
            "producer_authenticated",
            j(&self.producer_authenticated),
            j(&replayed.producer_authenticated),
        );
        // A record stored before the field was kept is not held to it; one with nobody
        // who pushed leaves it out.
        if self.implementers.is_some() {
            let replayed = replayed.implementers.clone().filter(|v| !v.is_empty());
            cmp("implementers", j(&self.implementers), j(&replayed));
        }
        out
    }

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
