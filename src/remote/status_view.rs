//! What `auditloop status` and the `gate_status` tool answer (docs/reference.md#command-line): the gate's
//! conclusion and conditions as the check run states them, and the record behind them.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::gate::{effective_grade, Conclusion, GateResult, Outcome};
use crate::engine::ledger::Ledger;
use crate::engine::receipt::TrustStore;
use crate::engine::record::{Grade, Record};
use crate::engine::views::open_findings::ordered;

/// The gate of a PR's head as the app computes it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GateStatus {
    /// The gate passes: the check run concludes `success`, or `neutral` when the repository
    /// requires no audit.
    pub(crate) passes: bool,
    /// The check run's conclusion: `success`, `failure`, `action_required`, `neutral` or
    /// `in_progress` (waiting for a required evidence check).
    pub(crate) conclusion: String,
    /// The check run's title words.
    pub(crate) title: String,
    /// Every gate condition (docs/reference.md#gate-conditions), in order.
    pub(crate) conditions: Vec<ConditionStatus>,
    /// The PR's audit record, when it has one that can be read.
    pub(crate) record: Option<RecordStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ConditionStatus {
    /// The condition's number, 1 to 9.
    pub(crate) n: u8,
    pub(crate) title: String,
    /// It holds; a condition waiting for an evidence check does not hold yet.
    pub(crate) passes: bool,
    /// Why it holds, or what is missing.
    pub(crate) reason: String,
    /// The earlier condition this one fails only because of (the check run shows it as
    /// "waits on N" instead of a failure of its own).
    pub(crate) waits_on: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct RecordStatus {
    pub(crate) id: String,
    /// `open`, `awaiting_human`, `certified` or `blocked`.
    pub(crate) audit_state: String,
    pub(crate) audit_blocked_reason: Option<String>,
    pub(crate) latest_verdict: Option<String>,
    pub(crate) candidate_artifact: String,
    pub(crate) certified_artifact: Option<String>,
    pub(crate) covered_tasks: Vec<String>,
    pub(crate) budget: BudgetStatus,
    /// `session_reported` or `authenticated`: the certification's grade as it counts now
    /// (a kept receipt that no longer verifies counts as `session_reported`); `null`
    /// before a certification.
    pub(crate) certification_grade: Option<String>,
    /// The certification's producer was authenticated by a receipt that still verifies.
    pub(crate) producer_authenticated: Option<bool>,
    /// The certifying run was posted by the PR's author or the candidate's pusher,
    /// accepted only under `allow_self_audit` (docs/reference.md#independence-of-the-auditor).
    pub(crate) self_audit: bool,
    /// The latest run's findings, blocking first, then by severity.
    pub(crate) open_findings: Vec<OpenFinding>,
    /// Per run, what it raised and resolved (docs/reference.md#the-finding-ledger).
    pub(crate) convergence: Vec<RunConvergence>,
    /// Whether the last run converges: nothing late, nothing raised again after it was
    /// resolved, fewer findings open than the run before; `null` before a second run.
    pub(crate) converging: Option<bool>,
    /// The check run's convergence line.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) convergence_line: Option<String>,
}

/// One run's line of the finding ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct RunConvergence {
    pub(crate) run: u32,
    /// Keys first raised in this run.
    pub(crate) new: u32,
    /// Of `new`: raised on files unchanged since a candidate an earlier run audited.
    pub(crate) late: u32,
    /// Keys raised again (`regressed` among them).
    pub(crate) carried: u32,
    /// Keys the run before raised and this one did not.
    pub(crate) resolved: u32,
    /// Of `carried`: raised again after a run that no longer raised them.
    pub(crate) regressed: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct BudgetStatus {
    pub(crate) audit_budget: u32,
    pub(crate) runs_used: u32,
    pub(crate) runs_left: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct OpenFinding {
    /// The round (run) that reported it.
    pub(crate) run: u32,
    pub(crate) id: String,
    pub(crate) key: Option<String>,
    pub(crate) severity: String,
    pub(crate) blocking: bool,
    pub(crate) claim: String,
    pub(crate) evidence_refs: Vec<String>,
    pub(crate) waived: bool,
    /// The disposition in force (`fix`, `file`, `reject`, …), if any.
    pub(crate) disposition: Option<String>,
}

/// A value's serde word (`"open"`, `"commit:…"`), for enums and ids that serialize as one.
fn word<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

impl GateStatus {
    /// The status of an evaluated gate over `record`.
    #[must_use]
    /// `verified`: the trust store and the certifying run's stored report, when known, to
    /// say the grade as it counts now.
    pub fn new(
        gate: &GateResult,
        record: Option<&Record>,
        verified: (Option<&TrustStore>, Option<&str>),
    ) -> Self {
        let conclusion = gate.conclusion;
        GateStatus {
            passes: matches!(conclusion, Conclusion::Success | Conclusion::Neutral),
            conclusion: conclusion.as_str().to_owned(),
            title: gate.title.plain().to_owned(),
            conditions: gate
                .conditions
                .iter()
                .map(|c| ConditionStatus {
                    n: c.number,
                    title: c.title.to_owned(),
                    passes: c.outcome == Outcome::Pass,
                    reason: c.reason.plain().to_owned(),
                    waits_on: c.waits_on,
                })
                .collect(),
            record: record.map(|r| RecordStatus::new(r, verified)),
        }
    }

    /// An invalid `.github/auditloop.yml`: the check run fails without conditions.
    #[must_use]
    pub(crate) fn invalid_config(error: &str) -> Self {
        GateStatus {
            passes: false,
            conclusion: Conclusion::Failure.as_str().to_owned(),
            title: format!("invalid .github/auditloop.yml on the default branch: {error}"),
            conditions: Vec::new(),
            record: None,
        }
    }

    /// What people read: the conclusion, each condition, the record's state and findings.
    #[must_use]
    pub(crate) fn text(&self) -> String {
        let mut out = format!(
            "gate {}: {} ({})\n",
            if self.passes { "passes" } else { "fails" },
            self.title,
            self.conclusion
        );
        for c in &self.conditions {
            let mark = if c.passes { "pass" } else { "FAIL" };
            let _ = writeln!(out, "  {mark} {}. {}: {}", c.n, c.title, c.reason);
        }
        let Some(r) = &self.record else {
            out.push_str("no audit record\n");
            return out;
        };
        let _ = writeln!(
            out,
            "record {}: {}{}; latest verdict {}; candidate {}",
            r.id,
            r.audit_state,
            r.audit_blocked_reason
                .as_deref()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default(),
            r.latest_verdict.as_deref().unwrap_or("none yet"),
            r.candidate_artifact
        );
        let _ = writeln!(
            out,
            "budget: {} of {} runs used, {} left",
            r.budget.runs_used, r.budget.audit_budget, r.budget.runs_left
        );
        if let Some(line) = &r.convergence_line {
            let _ = writeln!(out, "convergence: {line}");
        }
        for f in &r.open_findings {
            let mut notes = Vec::new();
            if f.blocking {
                notes.push("blocking".to_owned());
            }
            if f.waived {
                notes.push("waived".to_owned());
            }
            if let Some(d) = &f.disposition {
                notes.push(format!("disposed {d}"));
            }
            let _ = writeln!(
                out,
                "  finding {} ({}{}): {}",
                f.id,
                f.severity,
                notes.iter().fold(String::new(), |mut all, n| {
                    all.push_str(", ");
                    all.push_str(n);
                    all
                }),
                f.claim
            );
        }
        out
    }
}

impl RecordStatus {
    fn new(record: &Record, (trust, stored): (Option<&TrustStore>, Option<&str>)) -> Self {
        let grade = record
            .certification_grade
            .map(|_| effective_grade(record, trust, stored).0);
        let waived = record.waived();
        let dispositions = record.latest_dispositions();
        let convergence = Ledger::of(record).convergence();
        let open_findings = record
            .latest_run()
            .map(|run| {
                ordered(&run.findings)
                    .into_iter()
                    .map(|f| OpenFinding {
                        run: run.run,
                        id: f.id.to_string(),
                        key: f.key.as_ref().map(word),
                        severity: f.severity.as_str().to_owned(),
                        blocking: f.blocking,
                        claim: f.claim.clone(),
                        evidence_refs: f.evidence_refs.clone(),
                        waived: waived
                            .iter()
                            .any(|w| w.finding.run == run.run && w.finding.id == f.id),
                        disposition: dispositions
                            .get(&f.id)
                            .map(|d| d.disposition.as_str().to_owned()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        RecordStatus {
            id: record.id.to_string(),
            audit_state: word(&record.audit_state),
            audit_blocked_reason: record.audit_blocked_reason.as_ref().map(word),
            latest_verdict: record.latest_verdict.map(|v| v.as_str().to_owned()),
            candidate_artifact: word(&record.candidate_artifact),
            certified_artifact: record.certified_artifact.as_ref().map(word),
            covered_tasks: record.covered_tasks.iter().map(word).collect(),
            budget: BudgetStatus {
                audit_budget: record.audit_budget,
                runs_used: record.runs_used(),
                runs_left: record.budget_left(),
            },
            certification_grade: grade.map(|g| g.as_str().to_owned()),
            producer_authenticated: grade.map(|g| g == Grade::Authenticated),
            self_audit: record.self_audit(),
            open_findings,
            convergence: convergence
                .runs
                .iter()
                .map(|c| RunConvergence {
                    run: c.run,
                    new: c.new,
                    late: c.late,
                    carried: c.carried,
                    resolved: c.resolved,
                    regressed: c.regressed,
                })
                .collect(),
            converging: convergence.last_converges(),
            convergence_line: convergence.line(),
        }
    }
}
