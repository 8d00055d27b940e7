//! `/audit new`: a record `AUD-<next>` bound to the PR head (docs/reference.md#commands).

use super::{Applied, EventContext, Refusal};
use crate::ids::{Artifact, AuditId, PrNumber, RepoName, TaskId, WorkUnit};
use crate::record::{
    canonical_tasks, AuditState, Created, Event, EventKind, Evidence, Index, Record, SCHEMA_VERSION,
};
use crate::transition::AuditPolicy;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateInput {
    pub repository: RepoName,
    pub pull_request: PrNumber,
    /// `--work-unit`; `pr:<number>` when absent.
    pub work_unit: Option<WorkUnit>,
    pub goal: String,
    pub completion_oracle: String,
    pub evidence: Option<String>,
    /// `--covered-tasks` as given; `None` when the flag was absent.
    pub explicit_tasks: Option<Vec<TaskId>>,
    /// The issues the PR body closes, the default for `pr:` units.
    pub closing_issues: Vec<TaskId>,
    /// The PR head commit.
    pub head: Artifact,
    /// `--budget`; the repository default when absent.
    pub budget: Option<u32>,
    /// `evidence.required_checks` is set, so evidence text is optional.
    pub required_checks_set: bool,
}

/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn create(
    index: &Index,
    input: CreateInput,
    ctx: &EventContext,
    policy: &AuditPolicy,
) -> Result<Applied, Refusal> {
    if let Some(id) = index.record_for_pull(input.pull_request) {
        return Err(Refusal::PullHasRecord {
            pull: input.pull_request,
            id: id.clone(),
        });
    }
    let work_unit = input
        .work_unit
        .unwrap_or_else(|| WorkUnit::for_pull(input.pull_request));
    if let Some(id) = index.work_units.get(work_unit.as_str()) {
        return Err(Refusal::WorkUnitHasRecord {
            pull: index.pull_of(id),
            work_unit,
            id: id.clone(),
        });
    }
    let tasks = match input.explicit_tasks {
        Some(tasks) => tasks,
        None if work_unit.is_pull_request() => input.closing_issues,
        None => return Err(Refusal::CoveredTasksRequired { work_unit }),
    };
    let covered_tasks = canonical_tasks(tasks);
    if covered_tasks.is_empty() {
        return Err(Refusal::NoCoveredTasks);
    }
    let evidence = match input.evidence {
        Some(text) => Some(Evidence {
            text,
            given_for: input.head.clone(),
        }),
        None if input.required_checks_set => None,
        None => return Err(Refusal::EvidenceRequired),
    };
    let audit_budget = input.budget.unwrap_or(policy.default_budget);
    if audit_budget == 0 {
        return Err(Refusal::ZeroBudget);
    }

    // `next` comes from a stored file; 0 would name the invalid `AUD-0`.
    let number = index.next.max(1);
    let id = AuditId::from_number(number);
    let created = Created {
        pull_request: input.pull_request,
        work_unit: work_unit.clone(),
        goal: input.goal.clone(),
        completion_oracle: input.completion_oracle.clone(),
        evidence: evidence.clone(),
        candidate_artifact: input.head.clone(),
        covered_tasks: covered_tasks.clone(),
        audit_budget,
        // Running the command makes nobody an implementer (docs/reference.md#independence-of-the-auditor).
        candidate_pushed_by: None,
    };
    let event = Event {
        kind: EventKind::Created(created),
        at: ctx.at,
        actor: ctx.actor.clone(),
        comment_url: ctx.comment_url.clone(),
        delivery: ctx.delivery.clone(),
        prev: None,
    };
    let record = Record {
        schema_version: SCHEMA_VERSION,
        id: id.clone(),
        repository: input.repository,
        pull_request: input.pull_request,
        work_unit: work_unit.clone(),
        goal: input.goal,
        completion_oracle: input.completion_oracle,
        evidence,
        candidate_artifact: input.head,
        covered_tasks,
        audit_budget,
        audit_state: AuditState::Open,
        audit_blocked_reason: None,
        latest_verdict: None,
        certified_artifact: None,
        certified_covered_tasks: None,
        certification_grade: None,
        producer_authenticated: None,
        implementers: None,
        history: vec![event.clone()],
    };
    let mut next = index.clone();
    next.next = number.saturating_add(1);
    next.work_units.insert(work_unit.to_string(), id.clone());
    next.pulls.insert(input.pull_request.0.to_string(), id);
    Ok(Applied {
        record,
        event,
        index: Some(next),
    })
}

/// `/audit new` on a task that `other` covers: refused while `other` is unfinished (not
/// certified, or certified on a PR not merged), so that closing a PR and opening another
/// never buys a fresh budget for the same tasks (docs/reference.md#budget). `merged`: whether
/// `other`'s PR was merged (asked only of a certified one).
///
/// # Errors
///
/// [`Refusal::TaskOverlap`] naming `other` and its PR.
pub fn check_overlap(task: &TaskId, other: &Record, merged: bool) -> Result<(), Refusal> {
    let why = match other.audit_state {
        AuditState::Certified if merged => return Ok(()),
        AuditState::Certified => "certified, not merged",
        AuditState::Open => "open",
        AuditState::AwaitingHuman => "awaiting a human decision",
        AuditState::Blocked => "blocked",
    };
    Err(Refusal::TaskOverlap {
        task: task.clone(),
        id: other.id.clone(),
        pull: other.pull_request,
        why,
    })
}
