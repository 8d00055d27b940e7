//! `/audit report`: a JSON report (its receipt verified on the latest index) or a
//! plan-audit handoff, decided on the latest record.

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::basis::{current, problems_text, refusal, CommandDecision, DecisionInputs, Facts, Halt};
use crate::app::commit::commit_loop::Unwritten;
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::reads::state::{change_files, State};
use crate::commands::ReportPayload;
use crate::engine::ledger::late;
use crate::engine::ledger::LedgerKey;
use crate::engine::receipt::{verify, ReceiptContext, TrustStore};
use crate::engine::record::{EventKind, HandoffCounts, Record};
use crate::engine::report::{
    handoff_verdict, parse_handoff, parse_report, report_from_handoff, Authority, Handoff,
    HandoffBinding, HandoffStatus, Intake, Report, Verdict,
};
use crate::engine::transition::{self as t, Applied, FailureInput, ReportInput, VerifiedReceipt};
use crate::engine::views::ViewContext;
use crate::ids::{Artifact, AuditId, RepoName};
use crate::records::Change;

pub(super) fn decide(
    ctx: &Ctx,
    inputs: DecisionInputs,
    flags: (Option<AuditId>, Option<String>, Option<Artifact>),
    payload: ReportPayload,
) -> Result<CommandDecision, CommandFailure> {
    match payload {
        ReportPayload::Json(text) => json(ctx, inputs, &text),
        ReportPayload::Handoff(text) => handoff(inputs, flags, &text),
    }
}

/// The report, or the refusal that lists its problems.
fn parse_or_refuse(text: &str) -> Result<Intake, Refused> {
    parse_report(text).map_err(|problems| {
        Refused::new(
            format!(
                "the report is not a valid auditor_report_v1 ({} problem{})",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ),
            crate::md!(
                "correct these and post the report again:\n\n{}",
                problems_text(&problems)
            ),
        )
    })
}

/// A JSON report: parsed and refused now if malformed; its receipt verified and the
/// decision records it cites read in the commit loop, against the latest index.
fn json(ctx: &Ctx, inputs: DecisionInputs, text: &str) -> Result<CommandDecision, CommandFailure> {
    let DecisionInputs {
        event,
        view,
        policy,
        delivery,
        by,
        author,
        report_reads,
        ..
    } = inputs;
    let intake = parse_or_refuse(text)?;
    let cites = cites_decision(ctx, &intake);
    let repo = ctx.repo.clone();
    // The App always has a trust store; an empty one pins no key, so verifies nothing.
    let trust = ctx.operator.trust.clone().unwrap_or_default();
    let now = ctx.now;
    let none = BTreeSet::new();
    Ok(CommandDecision {
        named: None,
        message: format!("Report on {} {by}", intake.report.audit_id),
        new_run: true,
        may_pass: !matches!(intake.report.verdict, Verdict::NeedsRemediation),
        decide: Arc::new(move |state: &State, facts: &Facts| {
            let record = current(state, &delivery)?;
            let verified = verified_receipt(state, &intake, &repo, now, &trust)?;
            let decisions = if cites { facts.decisions()? } else { &none };
            let wanted = versions_wanted(record, &intake.report);
            let input = |versions| ReportInput {
                report: &intake.report,
                digest: intake.digest.as_str(),
                receipt: verified.as_ref(),
                handoff: None,
                decisions,
                author: author.as_ref(),
                receipt_whole: intake.receipt.as_ref(),
                commits: &report_reads.commits,
                awaited: &report_reads.awaited,
                versions,
            };
            let accept = |versions| {
                t::accept_report(record, &state.index, input(versions), &event, &policy)
                    .map_err(refusal)
            };
            let versions = match facts.versions(&report_reads.versions, &wanted) {
                Ok(versions) => versions,
                // Nothing is read for a report the records refuse.
                Err(need) => {
                    accept(None)?;
                    return Err(need);
                }
            };
            let applied = accept(Some(&versions))?;
            let extra = stored_report(&applied, &intake.report);
            Ok(change_files(&applied, state, &view, extra))
        }),
    })
}

/// The file versions whether the report's new findings are late is decided on.
fn versions_wanted(record: &Record, report: &Report) -> Vec<(Artifact, String)> {
    let findings = report.findings.iter().map(|f| {
        let key = LedgerKey::of_parts(f.key.as_ref(), &f.id);
        (key, f.evidence_refs.as_slice())
    });
    late::wanted(record, &report.candidate_artifact, findings)
}

/// Whether the report cites a decision record: only then are the decision records on the
/// default branch read (and only when the configuration names where they are).
fn cites_decision(ctx: &Ctx, intake: &Intake) -> bool {
    ctx.config.is_ok()
        && intake
            .report
            .limitations
            .iter()
            .flatten()
            .any(|l| matches!(l.authority_kind(), Some(Authority::Decision(_))))
}

/// The report's receipt, verified on the index `state` holds (a receipt is used once);
/// `None` for an unsigned report. One that does not verify refuses the report.
fn verified_receipt(
    state: &State,
    intake: &Intake,
    repo: &RepoName,
    now: DateTime<Utc>,
    trust: &TrustStore,
) -> Result<Option<VerifiedReceipt>, Halt> {
    let Some(receipt) = &intake.receipt else {
        return Ok(None);
    };
    let used = |id: &str| state.index.receipts.contains_key(id);
    let rctx = ReceiptContext {
        repository: repo,
        now,
        receipt_used: &used,
    };
    match verify(receipt, &intake.report, &intake.digest, &rctx, trust) {
        Ok(_) => Ok(Some(VerifiedReceipt {
            receipt_id: receipt.receipt_id.clone(),
            key_id: receipt.key_id.clone(),
        })),
        Err(e) => Err(Unwritten::Refused(Refused::new(
            format!("the report's receipt does not verify: {e} ({})", e.rule()),
            "sign the normalized report again with `auditloop sign` and a key the operator pinned; a receipt is never downgraded to an unsigned report",
        ))),
    }
}

/// A plan-audit handoff: a failed invocation is recorded as such; any other status
/// becomes the report it stands for, bound to the record's work unit.
fn handoff(
    inputs: DecisionInputs,
    flags: (Option<AuditId>, Option<String>, Option<Artifact>),
    text: &str,
) -> Result<CommandDecision, CommandFailure> {
    let DecisionInputs {
        event,
        view,
        policy,
        delivery,
        by,
        author,
        report_reads,
        ..
    } = inputs;
    let (handoff, (audit_id, invocation, candidate)) = parsed_handoff(flags, text)?;
    let verdict = handoff_verdict(handoff.status);
    Ok(CommandDecision {
        named: None,
        message: format!("Handoff {} on {audit_id} {by}", handoff.status.as_str()),
        new_run: verdict.is_some(),
        may_pass: verdict == Some(Verdict::NeedsHumanDecision),
        decide: Arc::new(move |state: &State, _: &Facts| {
            let record = current(state, &delivery)?;
            let Some(verdict) = verdict else {
                let input = FailureInput {
                    audit_id: audit_id.clone(),
                    invocation_ref: invocation.clone(),
                    candidate_artifact: candidate.clone(),
                    reason: handoff.reason.clone(),
                    author: author.clone(),
                    commits: report_reads.commits.clone(),
                };
                return failed_invocation(state, record, input, (&event, &policy, &view));
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
                handoff: Some(counts(&handoff)),
                decisions: &BTreeSet::new(),
                author: author.as_ref(),
                receipt_whole: None,
                commits: &report_reads.commits,
                awaited: &report_reads.awaited,
                versions: None,
            };
            let applied =
                t::accept_report(record, &state.index, input, &event, &policy).map_err(refusal)?;
            let extra = stored_report(&applied, &report);
            Ok(change_files(&applied, state, &view, extra))
        }),
    })
}

/// A handoff's `ERROR`: the invocation failure recorded, no run spent.
fn failed_invocation(
    state: &State,
    record: &Record,
    input: FailureInput,
    (event, policy, view): (&t::EventContext, &t::AuditPolicy, &ViewContext),
) -> Result<Change, Halt> {
    let applied = t::record_invocation_failure(record, &state.index, input, event, policy)
        .map_err(refusal)?;
    Ok(change_files(&applied, state, view, Vec::new()))
}

fn counts(handoff: &Handoff) -> HandoffCounts {
    HandoffCounts {
        critical: handoff.critical,
        warning: handoff.warning,
        info: handoff.info,
    }
}

/// The handoff block and the flags that bind it, refused when either is missing or the
/// block says `AUDIT: PASS`, which a handoff cannot certify.
fn parsed_handoff(
    flags: (Option<AuditId>, Option<String>, Option<Artifact>),
    text: &str,
) -> Result<(Handoff, (AuditId, String, Artifact)), CommandFailure> {
    let handoff = parse_handoff(text).map_err(|problems| {
        Refused::new(
            "the handoff block is not a seed-002 completion handoff",
            crate::md!(
                "correct these and post it again:\n\n{}",
                problems_text(&problems)
            ),
        )
    })?;
    let (Some(audit_id), Some(invocation), Some(candidate)) = flags else {
        return Err(Refused::new(
            "a handoff needs --audit-id, --invocation and --candidate",
            "write `/audit report --audit-id AUD-n --invocation REF --candidate commit:SHA` above the ```text block",
        )
        .into());
    };
    if handoff.status == HandoffStatus::Pass {
        return Err(Refused::new(
            "`AUDIT: PASS` cannot certify: a handoff carries no perspectives or findings",
            "submit an auditor_report_v1 JSON report to certify",
        )
        .into());
    }
    Ok((handoff, (audit_id, invocation, candidate)))
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
