//! The commands that change the PR's record: `baseline`, `resolve`, `override`, `waive`,
//! `veto` and `dispose` (whose `file` disposition opens its issue from inside the loop).

use std::sync::Arc;

use super::basis::{
    current, refusal, unfinished_elsewhere, CommandDecision, DecisionInputs, Facts, Halt,
};
use crate::app::commit::filing::IssueToFile;
use crate::app::context::failure::CommandFailure;
use crate::app::reads::state::{change_files, State};
use crate::commands::{ParsedCommand, ResolveTarget};
use crate::engine::record::{BaselineCause, DispositionKind, Record};
use crate::engine::transition::{self as t, Applied, EventContext};
use crate::github::rest::Pull;
use crate::ids::{Artifact, FindingId, TaskId};
use crate::records::Change;

/// A transition of the record, decided on the state the commit loop read: `None` when it
/// changes nothing.
type Step =
    dyn Fn(&Record, &State, &Facts, &EventContext) -> Result<Option<Applied>, Halt> + Send + Sync;

/// The decision of a command that changes the PR's record: its commit message and the
/// transition it applies.
pub(super) fn decide(
    inputs: DecisionInputs,
    command: ParsedCommand,
    pull: &Pull,
) -> Result<CommandDecision, CommandFailure> {
    let by = &inputs.by;
    let (message, step): (String, Box<Step>) = match command {
        ParsedCommand::Baseline {
            covered_tasks,
            evidence,
        } => (
            format!("Baseline {by}"),
            baseline(pull, &inputs, covered_tasks, evidence),
        ),
        ParsedCommand::Resolve { target, note } => (format!("Resolve {by}"), resolve(target, note)),
        ParsedCommand::Override { budget, note } => (
            format!("Override the budget to {budget} {by}"),
            boxed(move |record, ev| t::override_budget(record, budget, &note, ev)),
        ),
        ParsedCommand::Waive {
            findings,
            basis,
            reason,
        } => (
            format!("Waive {} {by}", findings.len()),
            boxed(move |record, ev| t::waive(record, &findings, basis, &reason, ev)),
        ),
        ParsedCommand::Veto {
            key,
            from_round,
            reason,
        } => (
            format!("Veto {key} {by}"),
            boxed(move |record, ev| t::veto(record, &key, from_round, &reason, ev)),
        ),
        ParsedCommand::Dispose {
            finding,
            disposition,
            note,
        } => (
            format!("Dispose {finding} {} {by}", disposition.as_str()),
            dispose(pull, finding, disposition, note),
        ),
        _ => {
            return Err(CommandFailure::Internal(
                "a command that does not change a record reached their decision".into(),
            ))
        }
    };
    Ok(on_record(inputs, message, step))
}

/// A transition that always changes the record and needs nothing from GitHub.
fn boxed(
    apply: impl Fn(&Record, &EventContext) -> Result<Applied, t::Refusal> + Send + Sync + 'static,
) -> Box<Step> {
    Box::new(move |record, _, _, ev| apply(record, ev).map(Some).map_err(refusal))
}

/// `baseline`: the record rebound by hand to the PR's head. When someone else rebound
/// the record after the PR was read (a push's delivery, another baseline), the PR is read
/// again and the record goes to the head it has then, never back to the one read before.
fn baseline(
    pull: &Pull,
    inputs: &DecisionInputs,
    covered_tasks: Option<Vec<TaskId>>,
    evidence: Option<String>,
) -> Box<Step> {
    let number = pull.number;
    let (head, candidate) = (inputs.head.clone(), inputs.candidate.clone());
    Box::new(move |record, state, facts, ev| {
        let head = if candidate.as_ref() == Some(&record.candidate_artifact) {
            head.clone()
        } else {
            let now = facts.pull_after(number, &record.candidate_artifact)?;
            Artifact::commit(now.head_sha.clone())
        };
        let input = t::BaselineInput {
            cause: BaselineCause::Manual,
            pull_request: number,
            head,
            covered_tasks: covered_tasks.clone(),
            evidence: evidence.clone(),
        };
        let applied = t::baseline(record, input, ev).map_err(refusal)?;
        // Tasks it takes on that another PR's unfinished record covers are refused as
        // `new` refuses them: a baseline never moves a task to a fresh budget.
        if let Some(applied) = &applied {
            let taken: Vec<TaskId> = applied
                .record
                .covered_tasks
                .iter()
                .filter(|t| !record.covered_tasks.contains(t))
                .cloned()
                .collect();
            unfinished_elsewhere(state, facts, &taken, number)?;
        }
        Ok(applied)
    })
}

/// `resolve`: the decision, limitations or a finding the command names, resolved.
fn resolve(target: ResolveTarget, note: String) -> Box<Step> {
    boxed(move |record, ev| match &target {
        ResolveTarget::Decision => t::resolve_decision(record, &note, ev),
        ResolveTarget::Limitations(ids) => t::accept_limitations(record, ids, &note, ev),
        ResolveTarget::Finding(id) => t::resolve_finding(record, id, &note, ev),
    })
}

/// `dispose`: a `file` disposition asks for its issue, opened from inside the commit loop
/// once the record accepts the disposition (one it refuses opens nothing).
fn dispose(
    pull: &Pull,
    finding: FindingId,
    disposition: DispositionKind,
    note: String,
) -> Box<Step> {
    let (number, anchor) = (pull.number, pull.head_sha.clone());
    Box::new(move |record, _, facts, ev| {
        let issue = if disposition == DispositionKind::File {
            t::check_dispose(record, &finding, disposition).map_err(refusal)?;
            let found = record.latest_finding(&finding);
            facts.issue(IssueToFile {
                record: record.id.clone(),
                run: record.latest_run().map_or(0, |r| r.run),
                finding: finding.clone(),
                summary: found.map(|f| f.claim.clone()).unwrap_or_default(),
                note: note.clone(),
                evidence_refs: found.map(|f| f.evidence_refs.clone()).unwrap_or_default(),
                required_outcome: found.and_then(|f| f.required_outcome.clone()),
                verification_required: found.and_then(|f| f.verification_required.clone()),
                pull: number,
                anchor: anchor.clone(),
            })?
        } else {
            None
        };
        t::dispose(record, &finding, disposition, &note, issue, ev)
            .map(Some)
            .map_err(refusal)
    })
}

/// Wraps a transition on the PR's record into a decision.
fn on_record(inputs: DecisionInputs, message: String, step: Box<Step>) -> CommandDecision {
    let DecisionInputs {
        event,
        view,
        delivery,
        ..
    } = inputs;
    CommandDecision {
        named: None,
        message,
        new_run: false,
        may_pass: false,
        decide: Arc::new(move |state: &State, facts: &Facts| {
            let record = current(state, &delivery)?;
            match step(record, state, facts, &event)? {
                Some(applied) => Ok(change_files(&applied, state, &view, Vec::new())),
                None => Ok(Change::default()),
            }
        }),
    }
}
