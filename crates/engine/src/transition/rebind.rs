//! Rebinding a record to a new candidate (docs/reference.md#baseline): `/audit baseline`,
//! a push, a reopen or base change, and `/audit adopt` onto a new PR. History and budget
//! stay; a certification of another candidate is stale; evidence given for another commit
//! no longer counts.

use super::{append, Applied, EventContext, Refusal};
use crate::ids::{Artifact, PrNumber, TaskId};
use crate::record::{
    canonical_tasks, AuditState, Baseline, BaselineCause, CarryReason, EventKind, Evidence, Index,
    Record,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineInput {
    pub cause: BaselineCause,
    /// The PR the event came from; it must be the record's.
    pub pull_request: PrNumber,
    /// The PR head commit now.
    pub head: Artifact,
    /// `--covered-tasks`; the record's tasks are kept when absent.
    pub covered_tasks: Option<Vec<TaskId>>,
    /// `--evidence`, given for `head`.
    pub evidence: Option<String>,
}

fn rebound(
    record: &Record,
    head: &Artifact,
    tasks: Option<Vec<TaskId>>,
    evidence: Option<String>,
) -> Result<(Vec<TaskId>, Option<Evidence>), Refusal> {
    let tasks = match tasks {
        Some(t) => canonical_tasks(t),
        None => record.covered_tasks.clone(),
    };
    if tasks.is_empty() {
        return Err(Refusal::NoCoveredTasks);
    }
    let evidence = match evidence {
        Some(text) => Some(Evidence {
            text,
            given_for: head.clone(),
        }),
        // Evidence text counts only for the commit it was given for.
        None => record.evidence.clone().filter(|e| &e.given_for == head),
    };
    Ok((tasks, evidence))
}

/// Rebinds the record. `Ok(None)` when nothing would change (same head, same tasks, no
/// evidence given), so callers write no empty commit.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn baseline(
    record: &Record,
    input: BaselineInput,
    ctx: &EventContext,
) -> Result<Option<Applied>, Refusal> {
    if input.pull_request != record.pull_request {
        return Err(Refusal::WrongPullRequest {
            id: record.id.clone(),
            record_pull: record.pull_request,
            pull: input.pull_request,
        });
    }
    let evidence_given = input.evidence.is_some();
    let (tasks, evidence) = rebound(record, &input.head, input.covered_tasks, input.evidence)?;
    // A base change alters the integrated candidate even when the head is the same (docs/reference.md#baseline);
    // a covered task reopened since the certification leaves it stale (docs/reference.md#gate-conditions).
    let clears_certification = record.audit_state == AuditState::Certified
        && (input.cause == BaselineCause::BaseChange || record.reopened_task().is_some());
    if input.head == record.candidate_artifact
        && tasks == record.covered_tasks
        && !evidence_given
        && !clears_certification
    {
        return Ok(None);
    }
    let budget_exhausted = spends_the_last_run(record, &input.head, &tasks, input.cause);
    let kind = EventKind::Baseline(Baseline {
        cause: input.cause,
        pull_request: record.pull_request,
        candidate_artifact: input.head,
        covered_tasks: tasks,
        evidence,
        carried_from: None,
        reason: None,
        candidate_pushed_by: pusher(input.cause, ctx),
        budget_exhausted,
    });
    append(record, kind, ctx).map(Some)
}

/// Who pushed the new candidate: the sender of a push or a reopen. A command's commenter, or
/// whoever moved the base branch, pushed nothing (docs/reference.md#independence-of-the-auditor).
fn pusher(cause: BaselineCause, ctx: &EventContext) -> Option<crate::ids::Login> {
    matches!(cause, BaselineCause::Push | BaselineCause::Reopen).then(|| ctx.actor.clone())
}

/// Whether a rebind onto `head` with `tasks` reopens a certified record that has no run
/// left: it then becomes `blocked` (`audit_budget_exhausted`), so the views name the
/// override, instead of an `open` record that refuses every report (docs/reference.md#budget).
fn spends_the_last_run(
    record: &Record,
    head: &Artifact,
    tasks: &[TaskId],
    cause: BaselineCause,
) -> bool {
    let moved = head != &record.candidate_artifact
        || tasks != record.covered_tasks.as_slice()
        || record.reopened_task().is_some()
        || matches!(cause, BaselineCause::BaseChange | BaselineCause::Adopt);
    moved
        && record.audit_state == AuditState::Certified
        && record.runs_used() >= record.audit_budget
}

/// Whether a rebind by `cause` could keep the record's certification if the new head's
/// git tree is the certified one: the record is certified on its candidate, and the cause
/// is a new head of the same pull request on the same base (a push or a reopen). A base
/// change alters the integrated candidate whatever the tree; a manual baseline is a
/// maintainer's explicit word that the candidate moved.
#[must_use]
pub fn may_carry(record: &Record, cause: BaselineCause) -> bool {
    matches!(cause, BaselineCause::Push | BaselineCause::Reopen)
        && record.audit_state == AuditState::Certified
        && record.certified_artifact.as_ref() == Some(&record.candidate_artifact)
        && record.reopened_task().is_none()
}

/// A push that did not rebind the record (`baseline_on_push: false`, or a head the record
/// does not follow): its sender becomes an implementer, with `head`. `None` when it is one
/// already, so a later push of the same account costs nothing.
///
/// # Errors
///
/// Never in practice; the [`Refusal`] of [`append`]'s checks.
pub fn note_push(
    record: &Record,
    head: Artifact,
    ctx: &EventContext,
) -> Result<Option<Applied>, Refusal> {
    if record.is_implementer(&ctx.actor) {
        return Ok(None);
    }
    append(record, EventKind::Push(crate::record::Push { head }), ctx).map(Some)
}

/// Issue `task`, covered by the certified record, was reopened: the certification is
/// stale (gate condition 3) until a baseline. `None` when the record is not certified on
/// it, or a reopen already made it stale.
///
/// # Errors
///
/// Never in practice; the [`Refusal`] of [`append`]'s checks.
pub fn task_reopened(
    record: &Record,
    task: TaskId,
    ctx: &EventContext,
) -> Result<Option<Applied>, Refusal> {
    let covered = record
        .certified_covered_tasks
        .as_ref()
        .is_some_and(|t| t.contains(&task));
    if record.audit_state != AuditState::Certified || !covered || record.reopened_task().is_some() {
        return Ok(None);
    }
    let kind = EventKind::TaskReopened(crate::record::TaskReopened { task });
    append(record, kind, ctx).map(Some)
}

/// A rebind onto a head whose git tree the caller found byte for byte the certified
/// candidate's (docs/reference.md#carrying-a-certification): the certification
/// moves to the new head, no run is spent, and evidence text carries (the content is the
/// same). `closes`: the issues the PR body closes now; a carry needs each among the
/// record's tasks (gate condition 3 holds on the new head). Anything that does not qualify
/// (see [`may_carry`]; other tasks, asked or closed; evidence given anew) is an ordinary
/// [`baseline`].
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn carry(
    record: &Record,
    input: BaselineInput,
    closes: &[TaskId],
    ctx: &EventContext,
) -> Result<Option<Applied>, Refusal> {
    let same_tasks = input
        .covered_tasks
        .as_ref()
        .is_none_or(|t| canonical_tasks(t.clone()) == record.covered_tasks)
        && closes.iter().all(|t| record.covered_tasks.contains(t));
    if !may_carry(record, input.cause)
        || !same_tasks
        || input.evidence.is_some()
        || input.head == record.candidate_artifact
        || input.pull_request != record.pull_request
    {
        return baseline(record, input, ctx);
    }
    let evidence = record.evidence.clone().map(|e| Evidence {
        given_for: input.head.clone(),
        ..e
    });
    let kind = EventKind::Baseline(Baseline {
        cause: input.cause,
        pull_request: record.pull_request,
        candidate_artifact: input.head,
        covered_tasks: record.covered_tasks.clone(),
        evidence,
        carried_from: Some(record.candidate_artifact.clone()),
        reason: Some(CarryReason::IdenticalTree),
        candidate_pushed_by: pusher(input.cause, ctx),
        budget_exhausted: false,
    });
    append(record, kind, ctx).map(Some)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdoptInput {
    /// The PR taking the record over.
    pub pull_request: PrNumber,
    pub head: Artifact,
    /// The record's current PR was closed without merging.
    pub source_closed_unmerged: bool,
    pub covered_tasks: Option<Vec<TaskId>>,
    pub evidence: Option<String>,
}

/// Moves a record whose PR was closed without merging onto another PR, as a `baseline`
/// event with cause `adopt`: history, budget and work unit carry over.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn adopt(
    record: &Record,
    index: &Index,
    input: AdoptInput,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    if !input.source_closed_unmerged {
        return Err(Refusal::AdoptSourceActive {
            id: record.id.clone(),
            pull: record.pull_request,
        });
    }
    if let Some(id) = index.record_for_pull(input.pull_request) {
        return Err(Refusal::PullHasRecord {
            pull: input.pull_request,
            id: id.clone(),
        });
    }
    let (tasks, evidence) = rebound(record, &input.head, input.covered_tasks, input.evidence)?;
    let budget_exhausted = spends_the_last_run(record, &input.head, &tasks, BaselineCause::Adopt);
    let kind = EventKind::Baseline(Baseline {
        cause: BaselineCause::Adopt,
        pull_request: input.pull_request,
        candidate_artifact: input.head,
        covered_tasks: tasks,
        evidence,
        carried_from: None,
        reason: None,
        candidate_pushed_by: None,
        budget_exhausted,
    });
    let mut applied = append(record, kind, ctx)?;
    let mut next = index.clone();
    // One record, one PR: the closed PR no longer maps to it.
    next.pulls.retain(|_, id| id != &record.id);
    next.pulls
        .insert(input.pull_request.0.to_string(), record.id.clone());
    applied.index = Some(next);
    Ok(applied)
}
