//! `/audit report` on GitHub: a JSON report (receipt verified on the latest index) or a
//! seed-002 handoff, decided on the latest record.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::app::context::Ctx;
use crate::app::reply::Refused;
use crate::app::store::{change_files, State, Stop};
use crate::app::AuditApp;
use crate::commands::ReportPayload;
use crate::engine::receipt::{verify, ReceiptContext};
use crate::engine::record::EventKind;
use crate::engine::report::{
    handoff_verdict, parse_handoff, parse_report, report_from_handoff, Authority, HandoffBinding,
    HandoffStatus, Report,
};
use crate::engine::transition::{
    self as t, Applied, EventContext, FailureInput, ReportInput, VerifiedReceipt,
};
use crate::github::rest::{self};
use crate::github::GitHubError;
use crate::ids::{Artifact, AuditId};

use crate::app::exec::*;

pub(super) async fn report(
    app: &AuditApp,
    ctx: &Ctx,
    event: EventContext,
    flags: (Option<AuditId>, Option<String>, Option<Artifact>),
    payload: ReportPayload,
    by: String,
) -> Result<Result<Decision, Refused>, GitHubError> {
    let view = ctx.view();
    let policy = policy(app, ctx);
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
