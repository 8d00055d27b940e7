//! The commands that change the PR's record: `baseline`, `resolve`, `override`, `waive`,
//! `veto` and `dispose` (whose `file` disposition opens its issue from inside the loop).

use std::sync::Arc;

use super::{current, refusal, CommandDecision, Facts, Halt, Made};
use crate::app::commit::filing::IssueToFile;
use crate::app::commit::store::{change_files, State};
use crate::app::failure::CommandFailure;
use crate::commands::{ParsedCommand, ResolveTarget};
use crate::engine::record::{BaselineCause, DispositionKind, Record};
use crate::engine::transition::{self as t, Applied, EventContext};
use crate::github::rest::Pull;
use crate::records::Change;

/// A transition of the record: `None` when it changes nothing.
type Step = dyn Fn(&Record, &Facts, &EventContext) -> Result<Option<Applied>, Halt> + Send + Sync;

pub(super) fn decide(
    made: Made,
    command: ParsedCommand,
    pull: &Pull,
) -> Result<CommandDecision, CommandFailure> {
    let by = &made.by;
    let (message, step): (String, Box<Step>) = match command {
        ParsedCommand::Baseline {
            covered_tasks,
            evidence,
        } => {
            let number = pull.number;
            let head = made.head.clone();
            (
                format!("Baseline onto {head} {by}"),
                Box::new(move |record, _, ev| {
                    let input = t::BaselineInput {
                        cause: BaselineCause::Manual,
                        pull_request: number,
                        head: head.clone(),
                        covered_tasks: covered_tasks.clone(),
                        evidence: evidence.clone(),
                    };
                    t::baseline(record, input, ev).map_err(refusal)
                }),
            )
        }
        ParsedCommand::Resolve { target, note } => (
            format!("Resolve {by}"),
            Box::new(move |record, _, ev| {
                let applied = match &target {
                    ResolveTarget::Decision => t::resolve_decision(record, &note, ev),
                    ResolveTarget::Limitations(ids) => {
                        t::accept_limitations(record, ids, &note, ev)
                    }
                    ResolveTarget::Finding(id) => t::resolve_finding(record, id, &note, ev),
                };
                applied.map(Some).map_err(refusal)
            }),
        ),
        ParsedCommand::Override { budget, note } => (
            format!("Override the budget to {budget} {by}"),
            Box::new(move |record, _, ev| {
                t::override_budget(record, budget, &note, ev)
                    .map(Some)
                    .map_err(refusal)
            }),
        ),
        ParsedCommand::Waive {
            findings,
            basis,
            reason,
        } => (
            format!("Waive {} {by}", findings.len()),
            Box::new(move |record, _, ev| {
                t::waive(record, &findings, basis, &reason, ev)
                    .map(Some)
                    .map_err(refusal)
            }),
        ),
        ParsedCommand::Veto {
            key,
            from_round,
            reason,
        } => (
            format!("Veto {key} {by}"),
            Box::new(move |record, _, ev| {
                t::veto(record, &key, from_round, &reason, ev)
                    .map(Some)
                    .map_err(refusal)
            }),
        ),
        ParsedCommand::Dispose {
            finding,
            disposition,
            note,
        } => {
            let (number, anchor) = (pull.number, pull.head_sha.clone());
            (
                format!("Dispose {finding} {} {by}", disposition.as_str()),
                Box::new(move |record, facts, ev| {
                    let issue = if disposition == DispositionKind::File {
                        // Checked first: a disposition the record refuses opens nothing.
                        t::check_dispose(record, &finding, disposition).map_err(refusal)?;
                        facts.issue(IssueToFile {
                            record: record.id.clone(),
                            run: record.latest_run().map_or(0, |r| r.run),
                            finding: finding.clone(),
                            summary: record
                                .latest_finding(&finding)
                                .map(|f| f.claim.clone())
                                .unwrap_or_default(),
                            note: note.clone(),
                            pull: number,
                            anchor: anchor.clone(),
                        })?
                    } else {
                        None
                    };
                    t::dispose(record, &finding, disposition, &note, issue, ev)
                        .map(Some)
                        .map_err(refusal)
                }),
            )
        }
        _ => {
            return Err(CommandFailure::Internal(
                "a command that does not change a record reached their decision".into(),
            ))
        }
    };
    Ok(on_record(made, message, step))
}

/// Wraps a transition on the PR's record into a decision.
fn on_record(made: Made, message: String, step: Box<Step>) -> CommandDecision {
    let Made {
        event,
        view,
        delivery,
        ..
    } = made;
    CommandDecision {
        named: None,
        message,
        new_run: false,
        decide: Arc::new(move |state: &State, facts: &Facts| {
            let record = current(state, &delivery)?;
            match step(record, facts, &event)? {
                Some(applied) => Ok(change_files(&applied, &view, Vec::new())),
                None => Ok(Change::default()),
            }
        }),
    }
}
