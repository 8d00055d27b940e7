//! `/audit report`: the record-dependent rules of an accepted report (docs/reference.md#report-rules,
//! docs/reference.md#budget) and the effects of a run; and the plan-audit `ERROR` handoff as an invocation failure.

use std::collections::BTreeSet;

use super::limits::check_authorities;
use super::{append, Applied, EventContext, Refusal};
use crate::ids::{Artifact, AuditId, Login, TaskId, WorkUnit};
use crate::ledger::late::{late_since, FileVersions};
use crate::ledger::LedgerKey;
use crate::record::{
    canonical_tasks, AuditState, EventKind, FindingSummary, Grade, HandoffCounts, HandoffMark,
    Index, InvocationFailure, LimitationSummary, Record, ReportRun,
};
use crate::repo_config::Assurance;
use crate::report::{Receipt, Report, Verdict};
use crate::transition::AuditPolicy;

/// What the receipt verifier established about a report's receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedReceipt {
    pub receipt_id: String,
    pub key_id: String,
}

/// A parsed, normalized report that passed every record-independent rule.
#[derive(Debug, Clone, Copy)]
pub struct ReportInput<'a> {
    pub report: &'a Report,
    /// `sha256:` digest of the normalized report.
    pub digest: &'a str,
    pub receipt: Option<&'a VerifiedReceipt>,
    /// The report came as a plan-audit handoff block, with its finding counts.
    pub handoff: Option<HandoffCounts>,
    /// Numbers `n` of the decision records `D-<n>` that exist.
    pub decisions: &'a BTreeSet<u32>,
    /// The pull request's author, as GitHub names it.
    pub author: Option<&'a Login>,
    /// The verified receipt as it came, kept whole with the run.
    pub receipt_whole: Option<&'a Receipt>,
    /// The accounts GitHub links to the pull request's commits, as author or committer.
    pub commits: &'a [CommitIdentity],
    /// The required checks that have not concluded `success` on the candidate, with where
    /// each stands (see [`crate::gate::evidence_awaited`]): the report waits for them.
    pub awaited: &'a [(String, String)],
    /// The cited files' versions at the candidates, for whether a new finding is late
    /// ([`crate::ledger::late::wanted`]); `None`: not read, and no finding is marked late.
    pub versions: Option<&'a FileVersions>,
}

/// An account GitHub links to one of the pull request's commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitIdentity {
    /// The commit's full SHA.
    pub oid: String,
    pub login: Login,
    /// Its committer rather than its author.
    pub committer: bool,
}

/// The account GitHub names as the committer of commits made through its web interface
/// (and of squash merges): it wrote nothing (docs/reference.md#independence-of-the-auditor).
pub const WEB_FLOW: &str = "web-flow";

/// How `poster` is one of the implementers of the pull request `record` audits, if it is:
/// its author, an account that pushed to it, or one GitHub links to its commits.
#[must_use]
pub fn implementation(
    record: &Record,
    poster: &Login,
    author: Option<&Login>,
    commits: &[CommitIdentity],
) -> Option<super::refusal::Implementation> {
    use super::refusal::Implementation as I;
    use crate::record::ImplementerBy;
    let same = |other: &Login| other.as_str().eq_ignore_ascii_case(poster.as_str());
    if author.is_some_and(same) {
        return Some(I::Author);
    }
    if let Some(how) = record.implementer(poster) {
        return Some(match how {
            ImplementerBy::Pushed(head) => I::Pushed(head),
            ImplementerBy::SetCandidate(head) => I::SetCandidate(head),
        });
    }
    commits
        .iter()
        .filter(|c| !c.login.as_str().eq_ignore_ascii_case(WEB_FLOW))
        .find(|c| same(&c.login))
        .map(|c| {
            if c.committer {
                I::CommitCommitter(c.oid.clone())
            } else {
                I::CommitAuthor(c.oid.clone())
            }
        })
}

/// Whether the poster may grade this candidate (docs/reference.md#independence-of-the-auditor):
/// `Ok(true)` when the poster is an implementer and only `allow_self_audit` lets it
/// through, `Ok(false)` for an independent poster or a signed report.
///
/// # Errors
///
/// [`Refusal::SelfAudit`] when the poster is an implementer, unsigned, naming how.
pub(crate) fn independence(
    record: &Record,
    (poster, author, commits): (&Login, Option<&Login>, &[CommitIdentity]),
    signed: bool,
    policy: AuditPolicy,
) -> Result<bool, Refusal> {
    if signed {
        return Ok(false);
    }
    let Some(how) = implementation(record, poster, author, commits) else {
        return Ok(false);
    };
    if policy.allow_self_audit {
        return Ok(true);
    }
    Err(Refusal::SelfAudit {
        poster: poster.clone(),
        how,
    })
}

pub(crate) use crate::layout::report_path;

fn tasks_word(tasks: &[TaskId]) -> String {
    tasks
        .iter()
        .map(TaskId::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_binding(
    record: &Record,
    audit_id: &AuditId,
    work_unit: Option<&WorkUnit>,
    candidate: &Artifact,
) -> Result<(), Refusal> {
    if audit_id != &record.id {
        return Err(Refusal::AuditIdMismatch {
            report: audit_id.clone(),
            record: record.id.clone(),
        });
    }
    if let Some(unit) = work_unit.filter(|u| *u != &record.work_unit) {
        return Err(Refusal::WorkUnitMismatch {
            report: unit.clone(),
            record: record.work_unit.clone(),
        });
    }
    if candidate != &record.candidate_artifact {
        return Err(Refusal::StaleCandidate {
            report: candidate.clone(),
            current: record.candidate_artifact.clone(),
        });
    }
    Ok(())
}

fn check_invocation_unused(record: &Record, index: &Index, reference: &str) -> Result<(), Refusal> {
    let used_by = index.invocations.get(reference).cloned().or_else(|| {
        record
            .invocation_refs()
            .any(|r| r == reference)
            .then(|| record.id.clone())
    });
    match used_by {
        Some(id) => Err(Refusal::InvocationRefReused {
            reference: reference.to_owned(),
            id,
        }),
        None => Ok(()),
    }
}

/// Applies an accepted report as the next run, or refuses it naming the rule.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn accept_report(
    record: &Record,
    index: &Index,
    input: ReportInput<'_>,
    ctx: &EventContext,
    policy: &AuditPolicy,
) -> Result<Applied, Refusal> {
    let report = input.report;
    if policy.assurance == Assurance::Hardened {
        if input.handoff.is_some() {
            return Err(Refusal::HandoffUnderHardened);
        }
        if input.receipt.is_none() {
            return Err(Refusal::ReceiptRequired);
        }
    }
    check_binding(
        record,
        &report.audit_id,
        Some(&report.work_unit),
        &report.candidate_artifact,
    )?;
    let tasks = canonical_tasks(report.covered_tasks.iter().cloned());
    if tasks != record.covered_tasks {
        return Err(Refusal::CoveredTasksMismatch {
            report: tasks_word(&tasks),
            record: tasks_word(&record.covered_tasks),
        });
    }
    let self_audit = independence(
        record,
        (&ctx.actor, input.author, input.commits),
        input.receipt.is_some(),
        *policy,
    )?;
    // No audit before the final evidence exists for the exact candidate
    // (docs/reference.md#report-rules).
    if !input.awaited.is_empty() {
        return Err(Refusal::NoEvidence {
            awaited: input.awaited.to_vec(),
        });
    }
    check_invocation_unused(record, index, &report.invocation.reference)?;
    if let Some(receipt) = input.receipt {
        if let Some(id) = index.receipts.get(&receipt.receipt_id) {
            return Err(Refusal::ReceiptReused {
                receipt_id: receipt.receipt_id.clone(),
                id: id.clone(),
            });
        }
    }
    let used = record.runs_used();
    match record.audit_state {
        AuditState::AwaitingHuman => {
            return Err(Refusal::AwaitingHuman {
                id: record.id.clone(),
            })
        }
        AuditState::Certified => {
            return Err(Refusal::AlreadyCertified {
                artifact: record
                    .certified_artifact
                    .clone()
                    .unwrap_or_else(|| record.candidate_artifact.clone()),
            })
        }
        AuditState::Blocked | AuditState::Open => {}
    }
    if record.audit_state == AuditState::Blocked || used >= record.audit_budget {
        return Err(Refusal::BudgetExhausted {
            used,
            budget: record.audit_budget,
        });
    }
    let run = used + 1;
    let limitations = report.limitations.clone().unwrap_or_default();
    if report.verdict.certifies() {
        for f in &report.findings {
            if let Some(veto) = f.key.as_ref().and_then(|k| record.veto_on(k, run)) {
                return Err(Refusal::VetoedFinding {
                    finding: f.id.clone(),
                    key: veto.key.clone(),
                    from_round: veto.effective_from_round,
                });
            }
        }
    }
    if report.verdict == Verdict::CertifiedWithAcceptedLimitations {
        check_authorities(record, &limitations, input.decisions)?;
    }

    let grade = if input.receipt.is_some() {
        Grade::Authenticated
    } else {
        Grade::SessionReported
    };
    let event =
        ReportRun {
            run,
            invocation_ref: report.invocation.reference.clone(),
            invocation_mode: report.invocation.mode,
            candidate_artifact: report.candidate_artifact.clone(),
            covered_tasks: tasks,
            verdict: report.verdict,
            report_digest: input.digest.to_owned(),
            grade,
            report: report_path(&record.id, run),
            receipt_id: input.receipt.map(|r| r.receipt_id.clone()),
            receipt: input
                .receipt
                .and(input.receipt_whole.cloned().map(Box::new)),
            self_audit,
            handoff: input.handoff.map_or(HandoffMark::Flag(false), |findings| {
                HandoffMark::Counts { findings }
            }),
            findings: report
                .findings
                .iter()
                .map(|f| FindingSummary {
                    id: f.id.clone(),
                    key: f.key.clone(),
                    severity: f.severity,
                    blocking: f.blocking,
                    cross_remit: f.cross_remit.unwrap_or(false),
                    claim: f.claim.clone(),
                    evidence_refs: f.evidence_refs.clone(),
                    required_outcome: Some(f.required_outcome.clone()),
                    verification_required: Some(f.verification_required.clone()),
                    late_since: input.versions.and_then(|v| {
                        let key = LedgerKey::of_parts(f.key.as_ref(), &f.id);
                        late_since(
                            record,
                            &report.candidate_artifact,
                            (&key, &f.evidence_refs),
                            v,
                        )
                    }),
                })
                .collect(),
            limitations: limitations
                .into_iter()
                .map(|l| LimitationSummary {
                    id: l.id,
                    key: l.key,
                    text: l.text,
                    authority: l.authority,
                })
                .collect(),
            elegance: report.elegance.as_ref().map(|e| e.score),
        };
    let mut applied = append(record, EventKind::Report(event), ctx)?;
    let mut next = index.clone();
    next.invocations
        .insert(report.invocation.reference.clone(), record.id.clone());
    if let Some(receipt) = input.receipt {
        next.receipts
            .insert(receipt.receipt_id.clone(), record.id.clone());
    }
    applied.index = Some(next);
    Ok(applied)
}

/// Invocation failures one candidate may record before a maintainer's override: the
/// fourth is refused (docs/reference.md#the-plan-audit-handoff).
pub(crate) const MAX_INVOCATION_FAILURES: u32 = 3;

/// The invocation failures on the current candidate since the last override.
fn failures_since_override(record: &Record) -> u32 {
    let since = record
        .history
        .iter()
        .rposition(|e| matches!(e.kind, EventKind::Override(_)))
        .map_or(0, |at| at + 1);
    let n = record.history[since..]
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::InvocationFailure(f)
                if f.candidate_artifact == record.candidate_artifact)
        })
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A plan-audit `ERROR` handoff: the invocation failed without a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureInput {
    pub audit_id: AuditId,
    pub invocation_ref: String,
    pub candidate_artifact: Artifact,
    pub reason: String,
    /// The pull request's author, as GitHub names it.
    pub author: Option<Login>,
    /// The accounts GitHub links to the pull request's commits.
    pub commits: Vec<CommitIdentity>,
}

/// Records an invocation failure: no budget used (docs/reference.md#budget), the ref registered.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn record_invocation_failure(
    record: &Record,
    index: &Index,
    input: FailureInput,
    ctx: &EventContext,
    policy: &AuditPolicy,
) -> Result<Applied, Refusal> {
    if policy.assurance == Assurance::Hardened {
        return Err(Refusal::HandoffUnderHardened);
    }
    check_binding(record, &input.audit_id, None, &input.candidate_artifact)?;
    let poster = (&ctx.actor, input.author.as_ref(), input.commits.as_slice());
    independence(record, poster, false, *policy)?;
    check_invocation_unused(record, index, &input.invocation_ref)?;
    let failed = failures_since_override(record);
    if failed >= MAX_INVOCATION_FAILURES {
        return Err(Refusal::InvocationFailuresSpent {
            failed,
            candidate: record.candidate_artifact.clone(),
        });
    }
    let kind = EventKind::InvocationFailure(InvocationFailure {
        invocation_ref: input.invocation_ref.clone(),
        candidate_artifact: input.candidate_artifact,
        reason: input.reason,
    });
    let mut applied = append(record, kind, ctx)?;
    let mut next = index.clone();
    next.invocations
        .insert(input.invocation_ref, record.id.clone());
    applied.index = Some(next);
    Ok(applied)
}
