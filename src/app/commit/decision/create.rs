//! `new` and `adopt`: the commands that give the PR its record.

use std::sync::Arc;

use super::basis::{refusal, unfinished_elsewhere, CommandDecision, DecisionInputs, Facts, Halt};
use crate::app::commit::commit_loop::Unwritten;
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::reads::state::{change_files, State};
use crate::commands::ParsedCommand;
use crate::engine::closing::closing_issues;
use crate::engine::record::has_delivery;
use crate::engine::transition as t;
use crate::github::rest::Pull;
use crate::ids::{AuditId, PrNumber};

pub(super) fn decide(
    ctx: &Ctx,
    inputs: DecisionInputs,
    command: ParsedCommand,
    pull: &Pull,
) -> Result<CommandDecision, CommandFailure> {
    match command {
        ParsedCommand::New {
            goal,
            oracle,
            evidence,
            covered_tasks,
            work_unit,
            budget,
        } => {
            let input = t::CreateInput {
                repository: ctx.repo.clone(),
                pull_request: pull.number,
                work_unit,
                goal,
                completion_oracle: oracle,
                evidence,
                explicit_tasks: covered_tasks,
                closing_issues: closing_issues(&pull.body, &ctx.repo),
                head: inputs.head.clone(),
                budget,
                required_checks_set: ctx
                    .config
                    .as_ref()
                    .is_ok_and(|c| !c.evidence.required_checks.is_empty()),
            };
            Ok(new_record(inputs, input, pull.number))
        }
        ParsedCommand::Adopt { audit_id } => Ok(adopt(inputs, audit_id, pull.number)),
        _ => Err(CommandFailure::Internal(
            "a command other than new or adopt reached their decision".into(),
        )),
    }
}

fn new_record(inputs: DecisionInputs, input: t::CreateInput, number: PrNumber) -> CommandDecision {
    let DecisionInputs {
        event,
        view,
        policy,
        delivery,
        by,
        ..
    } = inputs;
    CommandDecision {
        named: None,
        message: format!("Create the audit record for {number} {by}"),
        new_run: false,
        may_pass: false,
        decide: Arc::new(move |state: &State, facts: &Facts| {
            if let Some(Ok(record)) = &state.record {
                if has_delivery(record, &delivery) {
                    return Err(Unwritten::AlreadyApplied);
                }
            }
            let applied =
                t::create(&state.index, input.clone(), &event, &policy).map_err(refusal)?;
            unfinished_elsewhere(state, facts, &applied.record.covered_tasks, number)?;
            Ok(change_files(&applied, state, &view, Vec::new()))
        }),
    }
}

/// The record named by id moves onto this PR; whether its source PR was closed unmerged
/// is asked of GitHub only once the records allow the adoption.
fn adopt(inputs: DecisionInputs, audit_id: AuditId, number: PrNumber) -> CommandDecision {
    let DecisionInputs {
        event,
        view,
        delivery,
        head,
        by,
        ..
    } = inputs;
    CommandDecision {
        named: Some(audit_id.clone()),
        message: format!("Adopt {audit_id} onto {number} {by}"),
        new_run: false,
        may_pass: false,
        decide: Arc::new(move |state: &State, facts: &Facts| -> Result<_, Halt> {
            let record = match &state.named {
                None => {
                    return Err(Unwritten::Refused(Refused::new(
                        format!("there is no record {audit_id}"),
                        "name a record listed in index.json on the records branch",
                    )))
                }
                Some(Err(why)) => return Err(Unwritten::Damaged(why.clone().into())),
                Some(Ok(r)) if has_delivery(r, &delivery) => return Err(Unwritten::AlreadyApplied),
                Some(Ok(r)) => r,
            };
            if state.record.is_some() {
                return Err(Unwritten::Refused(Refused::new(
                    format!("{number} already has an audit record"),
                    "use `/audit baseline` on this pull request instead",
                )));
            }
            let source = record.pull_request;
            let closed_unmerged = if source == number {
                false
            } else {
                let p = facts.pull(source)?;
                !p.open && !p.merged
            };
            let input = t::AdoptInput {
                pull_request: number,
                head: head.clone(),
                source_closed_unmerged: closed_unmerged,
                covered_tasks: None,
                evidence: None,
            };
            let applied = t::adopt(record, &state.index, input, &event).map_err(refusal)?;
            Ok(change_files(&applied, state, &view, Vec::new()))
        }),
    }
}
