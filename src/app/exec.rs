//! Each state-changing command as a decision on the latest records: the GitHub reads it
//! needs are done first (decision records, the adopted PR, a filed issue), then a pure
//! closure applies the engine's transition to whatever state the branch holds.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::app::context::Ctx;
use crate::app::reply::Refused;
use crate::app::store::{change_files, State, Stop};
use crate::app::AuditApp;
use crate::commands::{ParsedCommand, ReportPayload, ResolveTarget};
use crate::engine::closing::closing_issues;
use crate::engine::policy::AuditPolicy;
use crate::engine::receipt::{verify, ReceiptContext};
use crate::engine::record::{has_delivery, DispositionKind, EventKind, Record};
use crate::engine::report::{
    handoff_verdict, parse_handoff, parse_report, report_from_handoff, Authority, HandoffBinding,
    HandoffStatus, Report,
};
use crate::engine::transition::{
    self as t, Applied, EventContext, FailureInput, ReportInput, VerifiedReceipt,
};
use crate::events::IssueCommentEvent;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, AuditId, CommitSha, Login, PrNumber};
use crate::records::Change;

type Decide = dyn Fn(&State) -> Result<Change, Stop<Refused>> + Send + Sync;

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

fn problems_text(problems: &[crate::engine::report::Problem]) -> String {
    problems
        .iter()
        .take(30)
        .map(|p| format!("- {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The PR's record, or why there is none to act on.
fn current<'a>(
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

fn refusal(r: t::Refusal) -> Stop<Refused> {
    Stop::Refused(r.into())
}

fn policy(app: &AuditApp, ctx: &Ctx) -> AuditPolicy {
    let config = ctx.config.as_ref().ok();
    AuditPolicy {
        default_budget: config.map(|c| c.audit_budget).unwrap_or(3),
        assurance: config
            .map(|c| c.effective_assurance(app.operator_min))
            .unwrap_or(app.operator_min),
    }
}

fn head_of(pull: &Pull) -> Result<Artifact, Refused> {
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
                view,
                policy,
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

/// Opens the tech-debt issue for a `file` disposition, after checking on the current record
/// that the disposition will be accepted, so a refused command opens nothing. `None` when
/// this delivery is already recorded: the decision then stops as already applied and only
/// the views are finished.
async fn file_issue(
    ctx: &Ctx,
    pull: &Pull,
    finding: &crate::ids::FindingId,
    note: &str,
) -> Result<Result<Option<u64>, Refused>, GitHubError> {
    let state = match crate::app::store::load(ctx, PrNumber(pull.number), None).await? {
        Ok(s) => s,
        Err(why) => {
            return Ok(Err(Refused::new(
                format!("the records branch is damaged: {why}"),
                "restore it",
            )))
        }
    };
    let record = match current(&state, &ctx.delivery) {
        Ok(r) => r,
        Err(Stop::Refused(why)) => return Ok(Err(why)),
        Err(Stop::Damaged(why)) => {
            return Ok(Err(Refused::new(
                format!("the records branch is damaged: {why}"),
                "restore it",
            )))
        }
        Err(Stop::AlreadyApplied) => return Ok(Ok(None)),
    };
    if let Err(r) = t::check_dispose(record, finding, DispositionKind::File) {
        return Ok(Err(r.into()));
    }
    let summary = record
        .latest_finding(finding)
        .map(|f| f.claim.clone())
        .unwrap_or_default();
    let label = ctx
        .config
        .as_ref()
        .map(|c| c.tech_debt_label.clone())
        .unwrap_or_else(|_| "tech-debt".into());
    let title: String = format!("{} {finding}: {}", record.id, summary)
        .chars()
        .take(200)
        .collect();
    // The marker names the finding of its run, so a redelivery finds the issue it opened.
    let run = record.latest_run().map_or(0, |r| r.run);
    let marker = format!("<!-- auditloop:filed:{}:run-{run}:{finding} -->", record.id);
    if let Some(n) = rest::find_issue(&ctx.api, &ctx.repo, &label, &marker).await? {
        return Ok(Ok(Some(n)));
    }
    let body = format!(
        "Filed from pull request #{} by a `file` disposition of {finding} ({}).\n\n{}\n\n{marker}",
        pull.number,
        record.id,
        crate::engine::views::escape::block(note),
    );
    Ok(Ok(Some(
        rest::create_issue(&ctx.api, &ctx.repo, &title, &body, &label).await?,
    )))
}

#[allow(clippy::too_many_arguments)]
async fn report(
    app: &AuditApp,
    ctx: &Ctx,
    event: EventContext,
    view: crate::engine::views::ViewContext,
    policy: AuditPolicy,
    flags: (Option<AuditId>, Option<String>, Option<Artifact>),
    payload: ReportPayload,
    by: String,
) -> Result<Result<Decision, Refused>, GitHubError> {
    let delivery = ctx.delivery.clone();
    let repo = ctx.repo.clone();
    let trust = app.trust.clone();
    match payload {
        ReportPayload::Json(text) => {
            let intake = match parse_report(&text) {
                Ok(i) => i,
                Err(problems) => {
                    return Ok(Err(Refused::new(
                        format!(
                            "the report is not a valid auditor_report_v1 ({} problem{})",
                            problems.len(),
                            if problems.len() == 1 { "" } else { "s" }
                        ),
                        format!(
                            "correct these and post the report again:\n{}",
                            problems_text(&problems)
                        ),
                    )))
                }
            };
            let decisions = decision_numbers(ctx, &intake.report).await?;
            let now = ctx.now;
            Ok(Ok(Decision {
                named: None,
                message: format!("Report on {} {by}", intake.report.audit_id),
                new_run: true,
                decide: Arc::new(move |state: &State| {
                    let record = current(state, &delivery)?;
                    let verified = match &intake.receipt {
                        None => None,
                        Some(receipt) => {
                            let used = |id: &str| state.index.receipts.contains_key(id);
                            let rctx = ReceiptContext {
                                repository: &repo,
                                now,
                                receipt_used: &used,
                            };
                            match verify(receipt, &intake.report, &intake.digest, &rctx, &trust) {
                                Ok(_) => Some(VerifiedReceipt { receipt_id: receipt.receipt_id.clone(), key_id: receipt.key_id.clone() }),
                                Err(e) => {
                                    return Err(Stop::Refused(Refused::new(
                                        format!("the report's receipt does not verify: {e} ({})", e.rule()),
                                        "sign the normalized report again with `auditloop sign` and a key the operator pinned; a receipt is never downgraded to an unsigned report",
                                    )))
                                }
                            }
                        }
                    };
                    let input = ReportInput {
                        report: &intake.report,
                        digest: intake.digest.as_str(),
                        receipt: verified.as_ref(),
                        handoff: false,
                        decisions: &decisions,
                    };
                    let applied = t::accept_report(record, &state.index, input, &event, &policy)
                        .map_err(refusal)?;
                    let extra = stored_report(&applied, &intake.report);
                    Ok(change_files(&applied, &view, extra))
                }),
            }))
        }
        ReportPayload::Handoff(text) => {
            let handoff = match parse_handoff(&text) {
                Ok(h) => h,
                Err(problems) => {
                    return Ok(Err(Refused::new(
                        "the handoff block is not a seed-002 completion handoff",
                        format!(
                            "correct these and post it again:\n{}",
                            problems_text(&problems)
                        ),
                    )))
                }
            };
            let (Some(audit_id), Some(invocation), Some(candidate)) = flags else {
                return Ok(Err(Refused::new(
                    "a handoff needs --audit-id, --invocation and --candidate",
                    "write `/audit report --audit-id AUD-n --invocation REF --candidate commit:SHA` above the ```text block",
                )));
            };
            if handoff.status == HandoffStatus::Pass {
                return Ok(Err(Refused::new(
                    "`AUDIT: PASS` cannot certify: a handoff carries no perspectives or findings",
                    "submit an auditor_report_v1 JSON report to certify",
                )));
            }
            let verdict = handoff_verdict(handoff.status);
            Ok(Ok(Decision {
                named: None,
                message: format!("Handoff {} on {audit_id} {by}", handoff.status.as_str()),
                new_run: verdict.is_some(),
                decide: Arc::new(move |state: &State| {
                    let record = current(state, &delivery)?;
                    let Some(verdict) = verdict else {
                        let input = FailureInput {
                            audit_id: audit_id.clone(),
                            invocation_ref: invocation.clone(),
                            candidate_artifact: candidate.clone(),
                            reason: handoff.reason.clone(),
                        };
                        let applied = t::record_invocation_failure(
                            record,
                            &state.index,
                            input,
                            &event,
                            &policy,
                        )
                        .map_err(refusal)?;
                        return Ok(change_files(&applied, &view, Vec::new()));
                    };
                    let bind = HandoffBinding {
                        audit_id: audit_id.clone(),
                        work_unit: record.work_unit.clone(),
                        candidate: candidate.clone(),
                        covered_tasks: record.covered_tasks.clone(),
                        invocation_ref: invocation.clone(),
                    };
                    let report = report_from_handoff(&handoff, verdict, bind);
                    let digest = crate::engine::report::digest(&report);
                    let input = ReportInput {
                        report: &report,
                        digest: digest.as_str(),
                        receipt: None,
                        handoff: true,
                        decisions: &BTreeSet::new(),
                    };
                    let applied = t::accept_report(record, &state.index, input, &event, &policy)
                        .map_err(refusal)?;
                    let extra = stored_report(&applied, &report);
                    Ok(change_files(&applied, &view, extra))
                }),
            }))
        }
    }
}

fn stored_report(applied: &Applied, report: &Report) -> Vec<(String, String)> {
    match &applied.event.kind {
        EventKind::Report(run) => {
            let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
            vec![(run.report.clone(), text)]
        }
        _ => Vec::new(),
    }
}

/// `D-<n>` decision records that exist under `decisions_path` on the default branch; read
/// only when the report cites one.
async fn decision_numbers(ctx: &Ctx, report: &Report) -> Result<BTreeSet<u32>, GitHubError> {
    let cites = report
        .limitations
        .iter()
        .flatten()
        .any(|l| matches!(l.authority_kind(), Some(Authority::Decision(_))));
    let Ok(config) = &ctx.config else {
        return Ok(BTreeSet::new());
    };
    if !cites {
        return Ok(BTreeSet::new());
    }
    let names = rest::list_dir(
        &ctx.api,
        &ctx.repo,
        &config.decisions_path,
        &ctx.default_branch,
    )
    .await?;
    Ok(names.iter().filter_map(|n| decision_number(n)).collect())
}

/// `D-12-title.md` and `D-12.md` are decision 12.
pub fn decision_number(file: &str) -> Option<u32> {
    let rest = file.strip_prefix("D-")?.strip_suffix(".md")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with(['-', '_', ' ', '.'])) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}
