//! Each state-changing command as a decision on the latest records: the GitHub reads it
//! needs are done first (decision records, the adopted PR, a filed issue), then a pure
//! closure applies the engine's transition to whatever state the branch holds.

use std::sync::Arc;

use crate::app::context::Ctx;
use crate::app::reply::Refused;
use crate::app::store::{change_files, State, Stop};
use crate::app::AuditApp;
use crate::commands::{ParsedCommand, ReportPayload, ResolveTarget};
use crate::engine::closing::closing_issues;
use crate::engine::policy::AuditPolicy;
use crate::engine::record::{has_delivery, DispositionKind, Record};
use crate::engine::transition::{self as t, Applied, EventContext};
use crate::events::IssueCommentEvent;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, AuditId, CommitSha, Login, PrNumber};
use crate::records::Change;

use crate::app::filing::file_issue;
pub use crate::app::intake::decision_number;
use crate::app::intake::report;

pub(super) type Decide = dyn Fn(&State) -> Result<Change, Stop<Refused>> + Send + Sync;

pub struct Decision {
    pub named: Option<AuditId>,
    pub message: String,
    /// An accepted report gets a fresh check run (annotations are never duplicated).
    pub new_run: bool,
    pub decide: Arc<Decide>,
}

pub fn carries_receipt(payload: &ReportPayload) -> bool {
    match payload {
        ReportPayload::Json(text) => serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("receipt").is_some()),
        ReportPayload::Handoff(_) => false,
    }
}

pub(super) fn problems_text(problems: &[crate::engine::report::Problem]) -> String {
    problems
        .iter()
        .take(30)
        .map(|p| format!("- {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The PR's record, or why there is none to act on.
pub(super) fn current<'a>(
    state: &'a State,
    ctx_delivery: &crate::ids::DeliveryId,
) -> Result<&'a Record, Stop<Refused>> {
    match &state.record {
        None => Err(Stop::Refused(Refused::new(
            "this pull request has no audit record",
            "start one with `/audit new --goal \"…\" --oracle \"…\"`",
        ))),
        Some(Err(why)) => Err(Stop::Damaged(why.clone())),
        Some(Ok(record)) if has_delivery(record, ctx_delivery) => Err(Stop::AlreadyApplied),
        Some(Ok(record)) => Ok(record),
    }
}

pub(super) fn refusal(r: t::Refusal) -> Stop<Refused> {
    Stop::Refused(r.into())
}

pub(super) fn policy(app: &AuditApp, ctx: &Ctx) -> AuditPolicy {
    let settings = ctx.settings();
    AuditPolicy {
        default_budget: settings.audit_budget,
        assurance: settings.effective_assurance(app.operator_min),
    }
}

pub(super) fn head_of(pull: &Pull) -> Result<Artifact, Refused> {
    CommitSha::new(pull.head_sha.clone())
        .map(Artifact::commit)
        .map_err(|_| {
            Refused::new(
                "the pull request's head is not a commit SHA",
                "push a commit",
            )
        })
}

/// Wraps a transition on the PR's record into a decision.
fn on_record(
    message: String,
    ctx: &Ctx,
    event: EventContext,
    view: crate::engine::views::ViewContext,
    step: impl Fn(
            &Record,
            &State,
            &EventContext,
        ) -> Result<Option<(Applied, Vec<(String, String)>)>, Stop<Refused>>
        + Send
        + Sync
        + 'static,
) -> Decision {
    let delivery = ctx.delivery.clone();
    Decision {
        named: None,
        message,
        new_run: false,
        decide: Arc::new(move |state: &State| {
            let record = current(state, &delivery)?;
            match step(record, state, &event)? {
                Some((applied, extra)) => Ok(change_files(&applied, &view, extra)),
                None => Ok(Change::default()),
            }
        }),
    }
}

pub async fn prepare(
    app: &AuditApp,
    ctx: &Ctx,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
    e: &IssueCommentEvent,
) -> Result<Result<Decision, Refused>, GitHubError> {
    let event = ctx.event(actor, e.comment.html_url.clone());
    let view = ctx.view();
    let policy = policy(app, ctx);
    let head = match head_of(pull) {
        Ok(h) => h,
        Err(why) => return Ok(Err(why)),
    };
    let by = format!("by {actor} in #{}", pull.number);
    Ok(Ok(match command.clone() {
        ParsedCommand::New {
            goal,
            oracle,
            evidence,
            covered_tasks,
            work_unit,
            budget,
        } => {
            let required_checks_set = ctx
                .config
                .as_ref()
                .is_ok_and(|c| !c.evidence.required_checks.is_empty());
            let input = t::CreateInput {
                repository: ctx.repo.clone(),
                pull_request: PrNumber(pull.number),
                work_unit,
                goal,
                completion_oracle: oracle,
                evidence,
                explicit_tasks: covered_tasks,
                closing_issues: closing_issues(&pull.body, &ctx.repo),
                head,
                budget,
                required_checks_set,
            };
            let delivery = ctx.delivery.clone();
            Decision {
                named: None,
                message: format!("Create the audit record for #{} {by}", pull.number),
                new_run: false,
                decide: Arc::new(move |state: &State| {
                    if let Some(Ok(record)) = &state.record {
                        if has_delivery(record, &delivery) {
                            return Err(Stop::AlreadyApplied);
                        }
                    }
                    let applied =
                        t::create(&state.index, input.clone(), &event, &policy).map_err(refusal)?;
                    Ok(change_files(&applied, &view, Vec::new()))
                }),
            }
        }
        ParsedCommand::Adopt { audit_id } => {
            let loaded =
                crate::app::store::load(ctx, PrNumber(pull.number), Some(&audit_id)).await?;
            let source = loaded
                .ok()
                .and_then(|s| s.named)
                .and_then(|r| r.ok())
                .map(|r| r.pull_request);
            let closed_unmerged = match source {
                Some(n) if n.0 != pull.number => {
                    let p = rest::get_pull(&ctx.api, &ctx.repo, n.0).await?;
                    !p.open && !p.merged
                }
                _ => false,
            };
            let number = pull.number;
            let delivery = ctx.delivery.clone();
            Decision {
                named: Some(audit_id.clone()),
                message: format!("Adopt {audit_id} onto #{number} {by}"),
                new_run: false,
                decide: Arc::new(move |state: &State| {
                    let record = match &state.named {
                        None => {
                            return Err(Stop::Refused(Refused::new(
                                format!("there is no record {audit_id}"),
                                "name a record listed in index.json on the records branch",
                            )))
                        }
                        Some(Err(why)) => return Err(Stop::Damaged(why.clone())),
                        Some(Ok(r)) if has_delivery(r, &delivery) => {
                            return Err(Stop::AlreadyApplied)
                        }
                        Some(Ok(r)) => r,
                    };
                    if state.record.is_some() {
                        return Err(Stop::Refused(Refused::new(
                            format!("#{number} already has an audit record"),
                            "use `/audit baseline` on this pull request instead",
                        )));
                    }
                    let input = t::AdoptInput {
                        pull_request: PrNumber(number),
                        head: head.clone(),
                        source_closed_unmerged: closed_unmerged,
                        covered_tasks: None,
                        evidence: None,
                    };
                    let applied = t::adopt(record, &state.index, input, &event).map_err(refusal)?;
                    Ok(change_files(&applied, &view, Vec::new()))
                }),
            }
        }
        ParsedCommand::Report {
            audit_id,
            invocation,
            candidate,
            payload,
        } => {
            return report(
                app,
                ctx,
                event,
                (audit_id, invocation, candidate),
                payload,
                by,
            )
            .await;
        }
        ParsedCommand::Baseline {
            covered_tasks,
            evidence,
        } => {
            let number = pull.number;
            on_record(
                format!("Baseline onto {head} {by}"),
                ctx,
                event,
                view,
                move |record, _, ev| {
                    let input = t::BaselineInput {
                        cause: crate::engine::record::BaselineCause::Manual,
                        pull_request: PrNumber(number),
                        head: head.clone(),
                        covered_tasks: covered_tasks.clone(),
                        evidence: evidence.clone(),
                    };
                    Ok(t::baseline(record, input, ev)
                        .map_err(refusal)?
                        .map(|a| (a, Vec::new())))
                },
            )
        }
        ParsedCommand::Resolve { target, note } => on_record(
            format!("Resolve {by}"),
            ctx,
            event,
            view,
            move |record, _, ev| {
                let applied = match &target {
                    ResolveTarget::Decision => t::resolve_decision(record, &note, ev),
                    ResolveTarget::Limitations(ids) => {
                        t::accept_limitations(record, ids, &note, ev)
                    }
                    ResolveTarget::Finding(id) => t::resolve_finding(record, id, &note, ev),
                };
                Ok(Some((applied.map_err(refusal)?, Vec::new())))
            },
        ),
        ParsedCommand::Override { budget, note } => on_record(
            format!("Override the budget to {budget} {by}"),
            ctx,
            event,
            view,
            move |record, _, ev| {
                Ok(Some((
                    t::override_budget(record, budget, &note, ev).map_err(refusal)?,
                    Vec::new(),
                )))
            },
        ),
        ParsedCommand::Waive {
            findings,
            basis,
            reason,
        } => on_record(
            format!("Waive {} {by}", findings.len()),
            ctx,
            event,
            view,
            move |record, _, ev| {
                Ok(Some((
                    t::waive(record, &findings, basis, &reason, ev).map_err(refusal)?,
                    Vec::new(),
                )))
            },
        ),
        ParsedCommand::Veto {
            key,
            from_round,
            reason,
        } => on_record(
            format!("Veto {key} {by}"),
            ctx,
            event,
            view,
            move |record, _, ev| {
                Ok(Some((
                    t::veto(record, &key, from_round, &reason, ev).map_err(refusal)?,
                    Vec::new(),
                )))
            },
        ),
        ParsedCommand::Dispose {
            finding,
            disposition,
            note,
        } => {
            let issue = if disposition == DispositionKind::File {
                match file_issue(ctx, pull, &finding, &note).await? {
                    Ok(n) => n,
                    Err(why) => return Ok(Err(why)),
                }
            } else {
                None
            };
            on_record(
                format!("Dispose {finding} {} {by}", disposition.as_str()),
                ctx,
                event,
                view,
                move |record, _, ev| {
                    Ok(Some((
                        t::dispose(record, &finding, disposition, &note, issue, ev)
                            .map_err(refusal)?,
                        Vec::new(),
                    )))
                },
            )
        }
        ParsedCommand::Status | ParsedCommand::Gate | ParsedCommand::Help => {
            return Ok(Err(Refused::new("this command changes nothing", "")))
        }
    }))
}
