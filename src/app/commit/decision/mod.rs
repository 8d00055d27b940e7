//! The one decision path of a state-changing command: a pure function of the state the
//! commit loop read from the records branch ([`crate::app::commit::store::apply_fetching`] calls
//! it on every state it reads, again after a conflict). What the records cannot tell (the
//! adopted PR's state, the decision records a report cites, the number of the issue a
//! `file` disposition opens) the decision asks for as a [`Need`]; the loop fetches it and
//! decides again on the same state, so no decision is made on state read elsewhere, and
//! nothing is fetched for a command the records refuse.
//!
//! One function per command family: [`create`] (`new`, `adopt`), [`report`] (a JSON
//! report or a handoff), [`on_record`] (the commands that change the PR's record).

mod create;
mod on_record;
mod report;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use crate::app::commit::filing::{self, IssueToFile};
use crate::app::commit::loading;
use crate::app::commit::store::{State, Unwritten};
use crate::app::context::Ctx;
use crate::app::failure::CommandFailure;
use crate::app::failure::Refused;
use crate::app::AuditApp;
use crate::commands::{ParsedCommand, ReportPayload};
use crate::engine::record::{has_delivery, Record};
use crate::engine::transition as t;
use crate::events::IssueCommentEvent;
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{Artifact, AuditId, DeliveryId, IssueNumber, Login, PrNumber};
use crate::records::Change;

/// Why a decision did not give a change.
pub type Halt = Unwritten<Refused, Need>;

pub type Decide = dyn Fn(&State, &Facts) -> Result<Change, Halt> + Send + Sync;

/// A command made into a decision on the latest records, with what the commit needs.
pub struct CommandDecision {
    /// A record named by id (adopt), to load beside the PR's own.
    pub named: Option<AuditId>,
    pub message: String,
    /// An accepted report gets a fresh check run (annotations are never duplicated).
    pub new_run: bool,
    /// The change may leave the gate passing or awaiting a human (a report that
    /// certifies or asks for a decision): the views then combine the gates of the open PRs
    /// sharing the head, listed beside the commit.
    pub may_pass: bool,
    pub decide: Arc<Decide>,
}

/// What a decision asks GitHub for, in the commit loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Another pull request (the source of an adopted record).
    Pull(PrNumber),
    /// The `D-<n>` decision records under `decisions_path` on the default branch.
    DecisionRecords,
    /// The tech-debt issue a `file` disposition opens.
    Issue(Box<IssueToFile>),
    /// Another record, read at the records commit the decision is made on (the one
    /// covering a task `/audit new` asks for), with the PR the decision is for.
    Record(AuditId, PrNumber),
}

/// What the needs of one decision found; kept across attempts of one commit.
#[derive(Debug, Default)]
pub struct Facts {
    pulls: HashMap<PrNumber, Pull>,
    decisions: Option<BTreeSet<u32>>,
    /// The issue number per [`IssueToFile::key`]; `None`: left to a redelivery.
    issues: HashMap<String, Option<IssueNumber>>,
    /// Other records by id; `None`: missing or damaged.
    records: HashMap<AuditId, Option<Record>>,
}

impl Facts {
    pub fn pull(&self, number: PrNumber) -> Result<&Pull, Halt> {
        self.pulls
            .get(&number)
            .ok_or(Unwritten::Needs(Need::Pull(number)))
    }

    pub fn decisions(&self) -> Result<&BTreeSet<u32>, Halt> {
        self.decisions
            .as_ref()
            .ok_or(Unwritten::Needs(Need::DecisionRecords))
    }

    pub fn record(&self, id: &AuditId, pr: PrNumber) -> Result<Option<&Record>, Halt> {
        match self.records.get(id) {
            Some(r) => Ok(r.as_ref()),
            None => Err(Unwritten::Needs(Need::Record(id.clone(), pr))),
        }
    }

    pub fn issue(&self, wanted: IssueToFile) -> Result<Option<IssueNumber>, Halt> {
        match self.issues.get(&wanted.key()) {
            Some(n) => Ok(*n),
            None => Err(Unwritten::Needs(Need::Issue(Box::new(wanted)))),
        }
    }
}

/// Answers `need` into `facts`: every read through the delivery's memory, so nothing read
/// earlier in the delivery is read again.
pub async fn fetch(ctx: &Ctx, facts: &Mutex<Facts>, need: Need) -> Result<(), GitHubError> {
    let lock = || {
        facts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    match need {
        Need::Pull(number) => {
            let pull = ctx.seen.pull(&ctx.api, &ctx.repo, number).await?;
            lock().pulls.insert(number, pull);
        }
        Need::DecisionRecords => {
            let found = crate::app::decision_records::read(ctx).await?;
            lock().decisions = Some(found);
        }
        Need::Issue(wanted) => {
            let number = filing::open(ctx, &wanted).await?;
            lock().issues.insert(wanted.key(), number);
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
/// needs, it asks for from the commit loop.
pub fn for_command(
    app: &AuditApp,
    ctx: &Ctx,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
    e: &IssueCommentEvent,
) -> Result<CommandDecision, CommandFailure> {
    let made = Made {
        event: ctx.event(actor, e.comment.html_url.clone()),
        view: ctx.view(),
        policy: policy(app, ctx),
        delivery: ctx.delivery.clone(),
        head: Artifact::commit(pull.head_sha.clone()),
        by: format!("by {actor} in {}", pull.number),
        author: Login::new(pull.author.clone()).ok(),
    };
    match command.clone() {
        ParsedCommand::New { .. } | ParsedCommand::Adopt { .. } => {
            create::decide(ctx, made, command.clone(), pull)
        }
        ParsedCommand::Report {
            audit_id,
            invocation,
            candidate,
            payload,
        } => report::decide(app, ctx, made, (audit_id, invocation, candidate), payload),
        ParsedCommand::Status | ParsedCommand::Gate | ParsedCommand::Help => {
            Err(Refused::new("this command changes nothing", "").into())
        }
        other => on_record::decide(made, other, pull),
    }
}

/// What every decision is made with.
struct Made {
    event: t::EventContext,
    view: crate::engine::views::ViewContext,
    policy: t::AuditPolicy,
    delivery: DeliveryId,
    head: Artifact,
    by: String,
    /// The pull request's author, for the independence rule.
    author: Option<Login>,
}

pub fn carries_receipt(payload: &ReportPayload) -> bool {
    match payload {
        ReportPayload::Json(text) => serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("receipt").is_some()),
        ReportPayload::Handoff(_) => false,
    }
}

/// The problems as a Markdown list, each problem's words escaped (they quote the report).
fn problems_text(problems: &[crate::engine::report::Problem]) -> crate::engine::views::md::Md {
    let items: Vec<crate::engine::views::md::Md> = problems
        .iter()
        .take(30)
        .map(|p| {
            crate::md!(
                "- {}",
                crate::engine::views::md::Md::text_max(&p.to_string(), 2_000)
            )
        })
        .collect();
    crate::engine::views::md::Md::join(&items, "\n")
}

/// The PR's record, or why there is none to act on.
fn current<'a>(state: &'a State, delivery: &DeliveryId) -> Result<&'a Record, Halt> {
    match &state.record {
        None => Err(Unwritten::Refused(Refused::new(
            "this pull request has no audit record",
            "start one with `/audit new --goal \"…\" --oracle \"…\"`",
        ))),
        Some(Err(why)) => Err(Unwritten::Damaged(why.clone().into())),
        Some(Ok(record)) if has_delivery(record, delivery) => Err(Unwritten::AlreadyApplied),
        Some(Ok(record)) => Ok(record),
    }
}

fn refusal(r: t::Refusal) -> Halt {
    Unwritten::Refused(r.into())
}

fn policy(app: &AuditApp, ctx: &Ctx) -> t::AuditPolicy {
    let settings = ctx.settings();
    t::AuditPolicy {
        default_budget: settings.audit_budget,
        assurance: settings.effective_assurance(app.operator_min),
        allow_self_audit: settings.allow_self_audit,
    }
}
