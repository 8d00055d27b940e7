//! The audit record (docs/reference.md#the-audit-record), `schema_version` 3, and its append-only history.
//!
//! The derived fields (`audit_state`, `latest_verdict`, certification fields) are a fold
//! over `history`; they are stored for readers, and loading checks they agree.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{
    Artifact, AuditId, DeliveryId, FindingId, FindingKey, IssueNumber, LimitationId, Login,
    PrNumber, RepoName, TaskId, WorkUnit,
};
use crate::report::{InvocationMode, Receipt, Severity, Verdict};

pub const SCHEMA_VERSION: u32 = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub schema_version: u32,
    pub id: AuditId,
    pub repository: RepoName,
    pub pull_request: PrNumber,
    pub work_unit: WorkUnit,
    pub goal: String,
    pub completion_oracle: String,
    pub evidence: Option<Evidence>,
    pub candidate_artifact: Artifact,
    /// Canonical order: deduplicated and sorted by byte order.
    pub covered_tasks: Vec<TaskId>,
    pub audit_budget: u32,
    pub audit_state: AuditState,
    pub audit_blocked_reason: Option<BlockedReason>,
    pub latest_verdict: Option<Verdict>,
    pub certified_artifact: Option<Artifact>,
    pub certified_covered_tasks: Option<Vec<TaskId>>,
    pub certification_grade: Option<Grade>,
    pub producer_authenticated: Option<bool>,
    /// The accounts that pushed to the pull request, each with the first head it pushed
    /// (docs/reference.md#independence-of-the-auditor): derived from the history like the
    /// fields above. Absent in records written before it was kept; loading then checks
    /// nothing of it, and the next write adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementers: Option<Vec<Implementer>>,
    pub history: Vec<Event>,
}

/// An account that pushed to the pull request, and the first head it pushed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Implementer {
    pub(crate) login: Login,
    pub(crate) head: Artifact,
}

/// Evidence text and the commit it was given for; it does not carry over to a new head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub text: String,
    #[serde(rename = "for")]
    pub given_for: Artifact,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditState {
    Open,
    AwaitingHuman,
    Certified,
    Blocked,
}

impl AuditState {
    /// `audit_state` as the record stores it.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuditState::Open => "open",
            AuditState::AwaitingHuman => "awaiting_human",
            AuditState::Certified => "certified",
            AuditState::Blocked => "blocked",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockedReason {
    AuditBudgetExhausted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    SessionReported,
    Authenticated,
}

impl Grade {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::SessionReported => "session_reported",
            Grade::Authenticated => "authenticated",
        }
    }
}

/// One history entry. `prev` chains it to the entry before (docs/reference.md#history-events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    #[serde(flatten)]
    pub kind: EventKind,
    pub at: DateTime<Utc>,
    pub actor: Login,
    pub comment_url: Option<String>,
    pub delivery: DeliveryId,
    pub prev: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    Created(Created),
    Report(ReportRun),
    InvocationFailure(InvocationFailure),
    Baseline(Baseline),
    Resolution(Resolution),
    LimitationAcceptance(LimitationAcceptance),
    Override(Override),
    Disposition(Disposition),
    Waiver(Waiver),
    Veto(Veto),
    Dispatch(Dispatch),
    Push(Push),
    TaskReopened(TaskReopened),
}

/// Someone pushed `head` to the pull request without the record being rebound to it (a
/// push with `baseline_on_push: false`, or one the record did not follow): the pusher, the
/// event's actor, is an implementer from then on (docs/reference.md#independence-of-the-auditor).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Push {
    pub(crate) head: Artifact,
}

/// A covered issue was reopened after the record was certified: the certification is
/// stale (gate condition 3) until a baseline (docs/reference.md#gate-conditions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskReopened {
    pub(crate) task: TaskId,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Created {
    pub pull_request: PrNumber,
    pub work_unit: WorkUnit,
    pub goal: String,
    pub completion_oracle: String,
    pub evidence: Option<Evidence>,
    pub candidate_artifact: Artifact,
    pub covered_tasks: Vec<TaskId>,
    pub audit_budget: u32,
    /// Who set the candidate, in records written before the implementers were kept by
    /// push: those read it as an implementer (docs/reference.md#independence-of-the-auditor).
    /// A command no longer writes it: running `/audit new` makes nobody an implementer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_pushed_by: Option<Login>,
}

/// An accepted report: one run. Carries what the gate and the views need of it, so that
/// they read one file; the whole normalized report is at `report`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportRun {
    pub run: u32,
    pub invocation_ref: String,
    pub invocation_mode: InvocationMode,
    pub candidate_artifact: Artifact,
    pub covered_tasks: Vec<TaskId>,
    pub verdict: Verdict,
    pub report_digest: String,
    pub grade: Grade,
    /// Path of the stored normalized report on the records branch.
    pub report: String,
    pub receipt_id: Option<String>,
    /// The verified receipt, whole (its signature included), so the grade is verified
    /// again whenever the gate is evaluated; absent for unsigned runs and earlier records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Box<Receipt>>,
    /// Posted by the PR's author or the candidate's pusher, accepted only because the
    /// repository sets `allow_self_audit: true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub self_audit: bool,
    /// `false`, or the plan-audit handoff the report came as: `true` in runs recorded
    /// before the counts were kept, else `{"findings": {critical, warning, info}}`.
    #[serde(default)]
    pub handoff: HandoffMark,
    pub findings: Vec<FindingSummary>,
    pub limitations: Vec<LimitationSummary>,
    pub elegance: Option<u8>,
}

/// Whether a run came as a plan-audit handoff, and then its finding counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HandoffMark {
    /// `false`: a JSON report; `true`: a handoff recorded before its counts were kept.
    Flag(bool),
    /// A handoff with the counts of its `Findings:` line (critical counted as blocking).
    Counts { findings: HandoffCounts },
}

impl Default for HandoffMark {
    fn default() -> Self {
        HandoffMark::Flag(false)
    }
}

impl HandoffMark {
    #[must_use]
    pub(crate) fn is_handoff(self) -> bool {
        !matches!(self, HandoffMark::Flag(false))
    }

    #[must_use]
    pub(crate) fn counts(self) -> Option<HandoffCounts> {
        match self {
            HandoffMark::Counts { findings } => Some(findings),
            HandoffMark::Flag(_) => None,
        }
    }
}

/// A handoff's `Findings: critical=N, warning=N, info=N`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffCounts {
    pub critical: u32,
    pub warning: u32,
    pub info: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingSummary {
    pub id: FindingId,
    pub key: Option<FindingKey>,
    pub severity: Severity,
    pub blocking: bool,
    pub cross_remit: bool,
    pub claim: String,
    pub evidence_refs: Vec<String>,
    /// What done means for the finding (its closure criteria); absent in runs recorded
    /// before they were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_required: Option<String>,
    /// First raised late (docs/reference.md#the-finding-ledger): every file its evidence
    /// cites was unchanged since the candidate of this earlier run. Decided when the run
    /// was accepted; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_since: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitationSummary {
    pub id: LimitationId,
    pub key: FindingKey,
    pub text: String,
    pub authority: Option<String>,
}

/// An invocation that failed without a report (docs/reference.md#the-plan-audit-handoff): recorded, no budget used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvocationFailure {
    pub invocation_ref: String,
    pub candidate_artifact: Artifact,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineCause {
    Manual,
    Push,
    Reopen,
    BaseChange,
    Adopt,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub cause: BaselineCause,
    pub(crate) pull_request: PrNumber,
    pub(crate) candidate_artifact: Artifact,
    pub(crate) covered_tasks: Vec<TaskId>,
    pub(crate) evidence: Option<Evidence>,
    /// The certified candidate this rebind carried the certification from; absent (and
    /// not written, so older events hash as they did) when it carried nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<Artifact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<CarryReason>,
    /// Who pushed the new candidate: the sender of the push or reopen that brought it.
    /// Records written before the implementers were kept by push hold the commenter of a
    /// `baseline` or `adopt` here too; they read it as an implementer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) candidate_pushed_by: Option<Login>,
    /// The rebind reopened a certified record whose runs already used its whole budget:
    /// it is `blocked` until an override, never `open` with nothing able to move it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
}

/// Why a rebind kept the certification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CarryReason {
    /// The new head's git tree is byte for byte the certified candidate's.
    IdenticalTree,
}

/// A finding named across events: its id in run `run`, and its key when it had one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingRef {
    pub id: FindingId,
    pub key: Option<FindingKey>,
    pub run: u32,
}

/// A human answer: to `needs_human_decision` (no `finding`), or to a contested finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    pub note: String,
    /// `human: <login>`, always the commenter's own login.
    pub authority: String,
    pub finding: Option<FindingRef>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedLimitation {
    pub id: LimitationId,
    pub key: FindingKey,
}

/// `/audit resolve L-NN`: a human accepts limitations (by key) of run `run`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitationAcceptance {
    pub run: u32,
    pub limitations: Vec<AcceptedLimitation>,
    pub note: String,
    pub authority: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Override {
    pub budget: u32,
    pub previous_budget: u32,
    pub note: String,
    pub authority: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DispositionKind {
    #[serde(rename = "fix")]
    Fix,
    #[serde(rename = "file")]
    File,
    #[serde(rename = "reject")]
    Reject,
    #[serde(rename = "follow-up")]
    FollowUp,
}

impl DispositionKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DispositionKind::Fix => "fix",
            DispositionKind::File => "file",
            DispositionKind::Reject => "reject",
            DispositionKind::FollowUp => "follow-up",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disposition {
    pub finding: FindingRef,
    pub disposition: DispositionKind,
    pub note: String,
    pub authority: String,
    /// The issue a `file` disposition opened.
    pub issue: Option<IssueNumber>,
    /// Never stored: set on the disposition in force when a veto in force on the finding's
    /// key replaced the one given (`file`, `reject`, `follow-up`) with `fix`, the seed's
    /// synthetic fix entry (docs/reference.md#commands).
    #[serde(skip)]
    pub vetoed_from: Option<DispositionKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WaiverBasis {
    #[serde(rename = "triage-threshold")]
    TriageThreshold,
    #[serde(rename = "cross-remit")]
    CrossRemit,
}

impl WaiverBasis {
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WaiverBasis::TriageThreshold => "triage-threshold",
            WaiverBasis::CrossRemit => "cross-remit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiver {
    pub findings: Vec<FindingRef>,
    pub basis: WaiverBasis,
    pub reason: String,
    pub authority: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Veto {
    pub key: FindingKey,
    pub effective_from_round: u32,
    pub reason: String,
    pub authority: String,
}

/// The app asked the auditor workflow for run `run` on `candidate_artifact` (docs/reference.md#when-the-app-dispatches).
/// Recorded before the request is sent, so replicas and redeliveries agree on who sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispatch {
    pub candidate_artifact: Artifact,
    pub run: u32,
    pub event_type: String,
    /// The records commit the record was judged ready on; the payload names it.
    pub records_commit: Option<String>,
}
