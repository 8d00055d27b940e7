//! Record transitions (docs/reference.md#the-audit-record): each takes the current record (and index when
//! it needs it) and returns the new record and the one event appended, or a `Refusal`.
//! Texts (`--note`, `--reason`, ...) were already checked for placeholders by the caller.

use chrono::{DateTime, Utc};

use crate::ids::{DeliveryId, Login};
use crate::record::{
    has_delivery, next_prev, Derived, Event, EventKind, FindingRef, FindingSummary, Index, Record,
};
use crate::repo_config::{Assurance, RepoConfig};

pub mod create;
pub(crate) mod dispatch;
pub(crate) mod human;
mod implementation;
pub(crate) mod limits;
pub(crate) mod rebind;
pub mod refusal;
pub(crate) mod report;
pub(crate) mod triage;

pub use create::{check_overlap, create, CreateInput};
pub use dispatch::{
    client_payload, decide_dispatch, ready, sent_marker, DispatchDecision, DispatchPlan, NotReady,
};
pub use human::{accept_limitations, override_budget, resolve_decision, resolve_finding};
pub use rebind::{
    adopt, baseline, carry, may_carry, note_push, task_reopened, AdoptInput, BaselineInput,
};
pub use refusal::{Implementation, Refusal};
pub use report::{
    accept_report, implementation, record_invocation_failure, CommitIdentity, FailureInput,
    ReportInput, VerifiedReceipt, WEB_FLOW,
};
pub use triage::{check_dispose, dispose, veto, waive};

/// What the record transitions need of the repository configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditPolicy {
    /// `audit_budget`: the budget of a new record when `--budget` is not given (docs/reference.md#budget).
    pub default_budget: u32,
    /// The effective assurance: the repository setting raised by the operator minimum.
    pub assurance: Assurance,
    /// `allow_self_audit`: the PR's author or the candidate's pusher may post its report
    /// (docs/reference.md#independence-of-the-auditor).
    pub allow_self_audit: bool,
}

impl Default for AuditPolicy {
    fn default() -> Self {
        let defaults = RepoConfig::default();
        AuditPolicy {
            default_budget: defaults.audit_budget,
            assurance: defaults.assurance,
            allow_self_audit: defaults.allow_self_audit,
        }
    }
}

/// Who did it, when, and the delivery that carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventContext {
    pub at: DateTime<Utc>,
    pub actor: Login,
    pub comment_url: Option<String>,
    pub delivery: DeliveryId,
}

impl EventContext {
    /// A human authority is always the commenter's own login (docs/reference.md#who-may-run-a-command).
    #[must_use]
    pub(crate) fn authority(&self) -> String {
        format!("human: {}", self.actor)
    }
}

/// A carried-out transition: the new record, the event appended, and the new index when
/// the transition changed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub record: Record,
    pub event: Event,
    pub index: Option<Index>,
}

/// Appends one event: chains it to the stored last event and folds it into the derived
/// fields with the same step replay uses.
pub(crate) fn append(
    record: &Record,
    kind: EventKind,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    if has_delivery(record, &ctx.delivery) {
        return Err(Refusal::DeliveryAlreadyApplied {
            delivery: ctx.delivery.0.clone(),
        });
    }
    append_again(record, kind, ctx)
}

/// [`append`] without the check that the delivery is new: for the dispatch a command's own
/// delivery made ready.
pub(crate) fn append_again(
    record: &Record,
    kind: EventKind,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    let event = Event {
        kind,
        at: ctx.at,
        actor: ctx.actor.clone(),
        comment_url: ctx.comment_url.clone(),
        delivery: ctx.delivery.clone(),
        prev: next_prev(&record.history),
    };
    let mut derived = Derived::stored(record);
    derived
        .step(record.history.len() + 1, &event)
        .map_err(|e| Refusal::Inconsistent(e.to_string()))?;
    let mut next = record.clone();
    derived.write_to(&mut next);
    next.history.push(event.clone());
    Ok(Applied {
        record: next,
        event,
        index: None,
    })
}

/// The latest run's number and its finding `id`, or the refusal naming what is missing.
pub(crate) fn latest_finding<'r>(
    record: &'r Record,
    id: &crate::ids::FindingId,
) -> Result<(u32, &'r FindingSummary), Refusal> {
    let run = record.latest_run().ok_or_else(|| Refusal::NoRun {
        id: record.id.clone(),
    })?;
    let finding =
        run.findings
            .iter()
            .find(|f| &f.id == id)
            .ok_or_else(|| Refusal::UnknownFinding {
                id: id.clone(),
                run: run.run,
            })?;
    Ok((run.run, finding))
}

pub(crate) fn finding_ref(run: u32, f: &FindingSummary) -> FindingRef {
    FindingRef {
        id: f.id.clone(),
        key: f.key.clone(),
        run,
    }
}
