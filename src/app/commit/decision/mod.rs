//! The one decision path of a state-changing command: a pure function of the state the
//! commit loop read from the records branch ([`crate::app::commit::commit_loop::apply_fetching`] calls
//! it on every state it reads, again after a conflict). What the records cannot tell (the
//! adopted PR's state, the decision records a report cites, the number of the issue a
//! `file` disposition opens) the decision asks for as a [`Need`]; the loop fetches it and
//! decides again on the same state, so no decision is made on state read elsewhere, and
//! nothing is fetched for a command the records refuse.
//!
//! One function per command family: [`create`] (`new`, `adopt`), [`report`] (a JSON
//! report or a handoff), [`on_record`] (the commands that change the PR's record).

mod basis;
mod create;
mod on_record;
mod report;

use std::sync::Mutex;

use crate::app::commit::filing::{self};
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::reads::loading;
use crate::commands::{ParsedCommand, ReportPayload};
use crate::engine::transition as t;
use crate::events::IssueCommentEvent;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, Login};

use basis::DecisionInputs;
pub(crate) use basis::{CommandDecision, Facts, Need, ReportReads};

/// Answers `need` into `facts`: every read through the delivery's memory, so nothing read
/// earlier in the delivery is read again.
pub(crate) async fn fetch(ctx: &Ctx, facts: &Mutex<Facts>, need: Need) -> Result<(), GitHubError> {
    let lock = || {
        facts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    match need {
        Need::Pull(number) => {
            let pull = ctx.delivery_cache.pull(&ctx.api, &ctx.repo, number).await?;
            lock().pulls.insert(number, pull);
        }
        Need::DecisionRecords => {
            let found = crate::app::reads::decision_records::read(ctx).await?;
            lock().decisions = Some(found);
        }
        Need::Issue(wanted) => {
            let number = filing::open(ctx, &wanted).await?;
            lock().issues.insert(wanted.key(), number);
        }
        Need::PullAfter(number, seen) => {
            // Not the delivery's cached read: this one must come after the look at `seen`.
            let pull = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
            lock().pull_after = Some((seen, pull));
        }
        Need::Versions(pairs) => {
            let read = crate::github::file_versions::read(&ctx.api, &ctx.repo, &pairs).await?;
            lock().versions.extend(read);
        }
        Need::Record(id, pr) => {
            let loaded = loading::load(ctx, pr, Some(&id)).await?;
            let record = loaded.ok().and_then(|s| s.named).and_then(Result::ok);
            lock().records.insert(id, record);
        }
    }
    Ok(())
}

/// The decision `command` makes, by family. Nothing here reads GitHub: what a decision
/// needs, it asks for from the commit loop. `candidate`: the record's candidate as read
/// with `pull`.
pub(crate) fn for_command(
    ctx: &Ctx,
    command: &ParsedCommand,
    actor: &Login,
    (pull, candidate, report_reads): (&Pull, Option<Artifact>, ReportReads),
    e: &IssueCommentEvent,
) -> Result<CommandDecision, CommandFailure> {
    let inputs = DecisionInputs {
        event: ctx.event(actor, e.comment.html_url.clone()),
        view: ctx.view(),
        policy: policy(ctx),
        delivery: ctx.delivery.clone(),
        head: Artifact::commit(pull.head_sha.clone()),
        by: format!("by {actor} in {}", pull.number),
        author: Login::new(pull.author.clone()).ok(),
        candidate,
        report_reads,
    };
    match command.clone() {
        ParsedCommand::New { .. } | ParsedCommand::Adopt { .. } => {
            create::decide(ctx, inputs, command.clone(), pull)
        }
        ParsedCommand::Report {
            audit_id,
            invocation,
            candidate,
            payload,
        } => report::decide(ctx, inputs, (audit_id, invocation, candidate), payload),
        ParsedCommand::Status | ParsedCommand::Gate | ParsedCommand::Help => {
            Err(Refused::new("this command changes nothing", "").into())
        }
        other => on_record::decide(inputs, other, pull),
    }
}

pub(crate) fn carries_receipt(payload: &ReportPayload) -> bool {
    match payload {
        ReportPayload::Json(text) => serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("receipt").is_some()),
        ReportPayload::Handoff(_) => false,
    }
}

fn policy(ctx: &Ctx) -> t::AuditPolicy {
    let settings = ctx.settings();
    t::AuditPolicy {
        default_budget: settings.audit_budget,
        assurance: settings.effective_assurance(ctx.operator.min_assurance),
        allow_self_audit: settings.allow_self_audit,
    }
}
