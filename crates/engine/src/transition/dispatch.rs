//! Driving the loop (docs/reference.md#driving-the-loop): when a record is ready for a fresh auditor run, and the
//! `dispatch` event that says the auditor was asked. For one candidate and one run number
//! there is at most one such event; the records branch's compare-and-swap makes that hold
//! across replicas, and the event's delivery id says which delivery must send it.

use serde_json::{json, Value};

use super::{Applied, EventContext, Refusal};
use crate::ids::Artifact;
use crate::record::{AuditState, Dispatch, Event, EventKind, Record};

/// What the app asks the auditor for: run `run` on `candidate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchPlan {
    pub candidate: Artifact,
    pub run: u32,
}

/// Why no auditor run is asked for now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReady {
    /// Blocked, awaiting a human, or certified.
    State(AuditState),
    BudgetSpent,
    /// The candidate is not the PR head.
    NotHead,
    /// Gate condition 8 (final-state evidence for the head) does not hold yet.
    NoEvidence,
}

/// Whether `record` is ready for a fresh auditor run (docs/reference.md#when-the-app-dispatches): open, runs below the
/// budget, its candidate the PR head, and final-state evidence for it holding.
///
/// # Errors
///
/// The [`NotReady`] reason when any condition does not hold.
pub fn ready(
    record: &Record,
    head: &Artifact,
    evidence_holds: bool,
) -> Result<DispatchPlan, NotReady> {
    if record.audit_state != AuditState::Open {
        return Err(NotReady::State(record.audit_state));
    }
    if record.runs_used() >= record.audit_budget {
        return Err(NotReady::BudgetSpent);
    }
    if &record.candidate_artifact != head {
        return Err(NotReady::NotHead);
    }
    if !evidence_holds {
        return Err(NotReady::NoEvidence);
    }
    Ok(DispatchPlan {
        candidate: record.candidate_artifact.clone(),
        run: record.runs_used() + 1,
    })
}

/// What deciding on the latest record gives.
#[derive(Debug, Clone, PartialEq)]
pub enum DispatchDecision {
    /// Record a new `dispatch` event, then send it.
    Record(Box<Applied>),
    /// This delivery recorded it before (a redelivery after a failure): send it again,
    /// since whether it reached GitHub is unknown.
    Resend(Box<Event>),
    /// Another delivery (or replica) asked for this run already: nothing to send.
    AlreadyAsked,
    NotReady(NotReady),
}

/// Decides on the latest record whether to ask for `plan`'s run.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn decide_dispatch(
    record: &Record,
    plan: Result<DispatchPlan, NotReady>,
    event_type: &str,
    records_commit: Option<&str>,
    ctx: &EventContext,
) -> Result<DispatchDecision, Refusal> {
    let plan = match plan {
        Ok(p) => p,
        Err(why) => return Ok(DispatchDecision::NotReady(why)),
    };
    if let Some(event) = record.dispatch_for(&plan.candidate, plan.run) {
        return Ok(if event.delivery == ctx.delivery {
            DispatchDecision::Resend(Box::new(event.clone()))
        } else {
            DispatchDecision::AlreadyAsked
        });
    }
    let kind = EventKind::Dispatch(Dispatch {
        candidate_artifact: plan.candidate,
        run: plan.run,
        event_type: event_type.to_owned(),
        records_commit: records_commit.map(str::to_owned),
    });
    Ok(DispatchDecision::Record(Box::new(super::append_again(
        record, kind, ctx,
    )?)))
}

/// The `client_payload` of the `repository_dispatch` (docs/reference.md#the-dispatch-payload): at most ten
/// top-level properties, as GitHub allows.
#[must_use]
pub fn client_payload(record: &Record, dispatch: &Dispatch, records_branch: &str) -> Value {
    json!({
        "audit_id": record.id,
        "pull_request": record.pull_request.0,
        "candidate_artifact": dispatch.candidate_artifact,
        "covered_tasks": record.covered_tasks,
        "run": dispatch.run,
        "records_branch": records_branch,
        "records_commit": dispatch.records_commit,
        "packet_path": crate::layout::record_path(&record.id),
    })
}

/// Hidden in the check run's summary once the request went out, by the delivery that sent
/// it, and carried forward by every later update: a redelivery that finds it sends nothing.
#[must_use]
pub fn sent_marker(record: &Record, dispatch: &Dispatch) -> String {
    format!(
        "<!-- auditloop:dispatched:{}:{}:{} -->",
        record.id, dispatch.run, dispatch.candidate_artifact
    )
}
