//! Why a command was not carried out: one variant per rule, a stable rule name, what was
//! wrong (Display) and how to put it right (`fix`).

use crate::engine::record::{AuditState, DispositionKind};
use crate::ids::{Artifact, AuditId, FindingId, FindingKey, LimitationId, PrNumber, WorkUnit};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    // --- creating and binding records
    #[error("PR {pull} already has the audit record {id}")]
    PullHasRecord { pull: PrNumber, id: AuditId },
    #[error("work unit {work_unit} already has the audit record {id}{}", on_pull(*.pull))]
    WorkUnitHasRecord {
        work_unit: WorkUnit,
        id: AuditId,
        pull: Option<PrNumber>,
    },
    #[error("work unit {work_unit} needs its covered tasks named")]
    CoveredTasksRequired { work_unit: WorkUnit },
    #[error("no covered tasks: the audit has nothing to cover")]
    NoCoveredTasks,
    #[error(
        "evidence is required: no evidence text was given and no required checks are configured"
    )]
    EvidenceRequired,
    #[error("an audit budget of 0 allows no report")]
    ZeroBudget,
    #[error("the record {id} belongs to PR {record_pull}, not PR {pull}")]
    WrongPullRequest {
        id: AuditId,
        record_pull: PrNumber,
        pull: PrNumber,
    },
    #[error("the record {id} is still bound to PR {pull}, which was not closed without merging")]
    AdoptSourceActive { id: AuditId, pull: PrNumber },

    // --- reports
    #[error("the report is for {report}, but this PR's record is {record}")]
    AuditIdMismatch { report: AuditId, record: AuditId },
    #[error("the report is for work unit {report}, but the record covers {record}")]
    WorkUnitMismatch { report: WorkUnit, record: WorkUnit },
    #[error("the report audits {report}, which is stale: the current candidate is {current}")]
    StaleCandidate { report: Artifact, current: Artifact },
    #[error("the report covers tasks [{report}], but the record covers [{record}]")]
    CoveredTasksMismatch { report: String, record: String },
    #[error("invocation ref {reference} was already used by {id}")]
    InvocationRefReused { reference: String, id: AuditId },
    #[error("receipt {receipt_id} was already used by {id}")]
    ReceiptReused { receipt_id: String, id: AuditId },
    #[error("hardened assurance: the report carries no verified receipt")]
    ReceiptRequired,
    #[error("hardened assurance: a handoff block carries nothing to sign")]
    HandoffUnderHardened,
    #[error("the record {id} awaits a human decision; no report is accepted until it is resolved")]
    AwaitingHuman { id: AuditId },
    #[error("the audit budget is spent: {used} of {budget} runs used")]
    BudgetExhausted { used: u32, budget: u32 },
    #[error("already certified: {artifact} is certified and the certification is current")]
    AlreadyCertified { artifact: Artifact },
    #[error(
        "the report certifies, but finding {finding} has key {key}, vetoed from round {from_round}"
    )]
    VetoedFinding {
        finding: FindingId,
        key: FindingKey,
        from_round: u32,
    },
    #[error("limitation {id} has no authority, which certified_with_accepted_limitations needs")]
    LimitationWithoutAuthority { id: LimitationId },
    #[error("limitation {id} cites `{authority}`, which is neither `human: LOGIN` nor `D-<n>`")]
    AuthorityUnrecognized { id: LimitationId, authority: String },
    #[error(
        "limitation {id} cites human: {login}, but {login} never accepted the limitation {key}"
    )]
    LimitationNotAccepted {
        id: LimitationId,
        key: FindingKey,
        login: String,
    },
    #[error("limitation {id} cites D-{number}, but there is no decision record D-{number}")]
    DecisionRecordMissing { id: LimitationId, number: u32 },

    // --- human answers and budget
    #[error("the record {id} is {}, not awaiting a human decision", state_word(*.state))]
    NotAwaitingHuman { id: AuditId, state: AuditState },
    #[error("the record {id} has no run yet")]
    NoRun { id: AuditId },
    #[error("nothing named: give at least one id")]
    NothingNamed,
    #[error("run {run} has no limitation {id}")]
    UnknownLimitation { id: LimitationId, run: u32 },
    #[error("run {run} has no finding {id}")]
    UnknownFinding { id: FindingId, run: u32 },
    #[error("finding {id} of run {run} is not contested: it was not disposed `reject`")]
    FindingNotRejected { id: FindingId, run: u32 },
    #[error("finding {id} of run {run} is already resolved")]
    FindingAlreadyResolved { id: FindingId, run: u32 },
    #[error("a budget of {budget} does not exceed the {used} runs already used")]
    OverrideTooLow { budget: u32, used: u32 },

    // --- waivers, vetoes, dispositions
    #[error("finding {id} is not marked cross_remit, so it cannot be waived as cross-remit")]
    NotCrossRemit { id: FindingId },
    #[error("finding {id} has key {key}, vetoed from round {from_round}: it must be fixed")]
    WaiveVetoed {
        id: FindingId,
        key: FindingKey,
        from_round: u32,
    },
    #[error("finding {id} of run {run} is already waived")]
    AlreadyWaived { id: FindingId, run: u32 },
    #[error("a veto cannot start at round 0; rounds count from 1")]
    VetoRoundZero,
    #[error("finding {id} of run {run} is already disposed `{}`", .disposition.as_str())]
    AlreadyDisposed {
        id: FindingId,
        run: u32,
        disposition: DispositionKind,
    },
    #[error("finding {id} is blocking; `follow-up` is only for non-blocking findings")]
    FollowUpBlocking { id: FindingId },
    #[error("a `file` disposition of {id} needs the issue it opened")]
    IssueRequired { id: FindingId },

    // --- delivery and consistency
    #[error("delivery {delivery} was already applied to this record")]
    DeliveryAlreadyApplied { delivery: String },
    #[error("the record's history is inconsistent: {0}")]
    Inconsistent(String),
}

fn on_pull(pull: Option<PrNumber>) -> String {
    pull.map(|p| format!(" on PR {p}")).unwrap_or_default()
}

fn state_word(state: AuditState) -> &'static str {
    match state {
        AuditState::Open => "open",
        AuditState::AwaitingHuman => "awaiting_human",
        AuditState::Certified => "certified",
        AuditState::Blocked => "blocked",
    }
}

impl Refusal {
    /// The stable kebab-case name of the broken rule.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        use Refusal::{
            AdoptSourceActive, AlreadyCertified, AlreadyDisposed, AlreadyWaived, AuditIdMismatch,
            AuthorityUnrecognized, AwaitingHuman, BudgetExhausted, CoveredTasksMismatch,
            CoveredTasksRequired, DecisionRecordMissing, DeliveryAlreadyApplied, EvidenceRequired,
            FindingAlreadyResolved, FindingNotRejected, FollowUpBlocking, HandoffUnderHardened,
            Inconsistent, InvocationRefReused, IssueRequired, LimitationNotAccepted,
            LimitationWithoutAuthority, NoCoveredTasks, NoRun, NotAwaitingHuman, NotCrossRemit,
            NothingNamed, OverrideTooLow, PullHasRecord, ReceiptRequired, ReceiptReused,
            StaleCandidate, UnknownFinding, UnknownLimitation, VetoRoundZero, VetoedFinding,
            WaiveVetoed, WorkUnitHasRecord, WorkUnitMismatch, WrongPullRequest, ZeroBudget,
        };
        match self {
            PullHasRecord { .. } => "pull-has-record",
            WorkUnitHasRecord { .. } => "work-unit-has-record",
            CoveredTasksRequired { .. } => "covered-tasks-required",
            NoCoveredTasks => "no-covered-tasks",
            EvidenceRequired => "evidence-required",
            ZeroBudget => "budget-zero",
            WrongPullRequest { .. } => "wrong-pull-request",
            AdoptSourceActive { .. } => "adopt-source-active",
            AuditIdMismatch { .. } => "audit-id-mismatch",
            WorkUnitMismatch { .. } => "work-unit-mismatch",
            StaleCandidate { .. } => "stale-candidate",
            CoveredTasksMismatch { .. } => "covered-tasks-mismatch",
            InvocationRefReused { .. } => "invocation-ref-reused",
            ReceiptReused { .. } => "receipt-reused",
            ReceiptRequired => "receipt-required",
            HandoffUnderHardened => "handoff-under-hardened",
            AwaitingHuman { .. } => "awaiting-human",
            BudgetExhausted { .. } => "budget-exhausted",
            AlreadyCertified { .. } => "already-certified",
            VetoedFinding { .. } => "vetoed-finding",
            LimitationWithoutAuthority { .. } => "limitation-without-authority",
            AuthorityUnrecognized { .. } => "limitation-authority-invalid",
            LimitationNotAccepted { .. } => "limitation-not-accepted",
            DecisionRecordMissing { .. } => "decision-record-missing",
            NotAwaitingHuman { .. } => "not-awaiting-human",
            NoRun { .. } => "no-run",
            NothingNamed => "nothing-named",
            UnknownLimitation { .. } => "unknown-limitation",
            UnknownFinding { .. } => "unknown-finding",
            FindingNotRejected { .. } => "finding-not-rejected",
            FindingAlreadyResolved { .. } => "finding-already-resolved",
            OverrideTooLow { .. } => "override-too-low",
            NotCrossRemit { .. } => "not-cross-remit",
            WaiveVetoed { .. } => "waive-vetoed",
            AlreadyWaived { .. } => "already-waived",
            VetoRoundZero => "veto-round-zero",
            AlreadyDisposed { .. } => "already-disposed",
            FollowUpBlocking { .. } => "follow-up-blocking",
            IssueRequired { .. } => "issue-required",
            DeliveryAlreadyApplied { .. } => "delivery-already-applied",
            Inconsistent(_) => "record-inconsistent",
        }
    }

    /// How to put it right, for the reply.
    #[must_use]
    pub fn fix(&self) -> String {
        use Refusal::{
            AdoptSourceActive, AlreadyCertified, AlreadyDisposed, AlreadyWaived, AuditIdMismatch,
            AuthorityUnrecognized, AwaitingHuman, BudgetExhausted, CoveredTasksMismatch,
            CoveredTasksRequired, DecisionRecordMissing, DeliveryAlreadyApplied, EvidenceRequired,
            FindingAlreadyResolved, FindingNotRejected, FollowUpBlocking, HandoffUnderHardened,
            Inconsistent, InvocationRefReused, IssueRequired, LimitationNotAccepted,
            LimitationWithoutAuthority, NoCoveredTasks, NoRun, NotAwaitingHuman, NotCrossRemit,
            NothingNamed, OverrideTooLow, PullHasRecord, ReceiptRequired, ReceiptReused,
            StaleCandidate, UnknownFinding, UnknownLimitation, VetoRoundZero, VetoedFinding,
            WaiveVetoed, WorkUnitHasRecord, WorkUnitMismatch, WrongPullRequest, ZeroBudget,
        };
        match self {
            PullHasRecord { id, .. } => {
                format!("use /audit baseline to rebind {id} to the current head")
            }
            WorkUnitHasRecord { id, pull, .. } => format!(
                "continue on {id}{}, or use /audit adopt {id} if that PR was closed without merging",
                on_pull(*pull)
            ),
            CoveredTasksRequired { .. } => {
                "name the tasks with --covered-tasks, e.g. --covered-tasks T-041,#12".to_owned()
            }
            NoCoveredTasks => "close issues from the PR body (`Closes #12`) or pass --covered-tasks".to_owned(),
            EvidenceRequired => "pass --evidence with the integrated evidence for the head commit, or configure evidence.required_checks".to_owned(),
            ZeroBudget => "pass --budget 1 or more".to_owned(),
            WrongPullRequest { id, record_pull, .. } => {
                format!("run the command on PR {record_pull}, or /audit adopt {id} here")
            }
            AdoptSourceActive { pull, .. } => {
                format!("close PR {pull} without merging first, or continue the audit there")
            }
            AuditIdMismatch { record, .. } => format!("set audit_id to {record}"),
            WorkUnitMismatch { record, .. } => format!("set work_unit to {record}"),
            StaleCandidate { current, .. } => {
                format!("audit the current candidate {current} and submit a fresh report")
            }
            CoveredTasksMismatch { record, .. } => format!("set covered_tasks to [{record}]"),
            InvocationRefReused { .. } => "use a fresh invocation with a new, unique invocation ref".to_owned(),
            ReceiptReused { .. } => "sign the report again: each receipt_id is used once".to_owned(),
            ReceiptRequired => "sign the report with `auditloop sign` using a key in the trust store".to_owned(),
            HandoffUnderHardened => "submit a signed auditor_report_v1 instead of a handoff block".to_owned(),
            AwaitingHuman { .. } => "a maintainer answers with /audit resolve --note T first".to_owned(),
            BudgetExhausted { used, .. } => format!(
                "a maintainer raises the budget with /audit override --budget {} --note T",
                used.saturating_add(1)
            ),
            AlreadyCertified { .. } => "nothing to do; a new head commit or /audit baseline starts a new audit of it".to_owned(),
            VetoedFinding { key, .. } => {
                format!("the finding {key} must be fixed before the audit can certify")
            }
            LimitationWithoutAuthority { .. } => "use verdict needs_human_decision so a maintainer can accept the limitation".to_owned(),
            AuthorityUnrecognized { .. } => "cite `human: LOGIN` or `D-<n>`".to_owned(),
            LimitationNotAccepted { key, login, .. } => format!(
                "{login} accepts it with /audit resolve L-NN --note T on a run that lists {key}, or report needs_human_decision"
            ),
            DecisionRecordMissing { number, .. } => {
                format!("add the decision record D-{number} under decisions_path, or cite an existing one")
            }
            NotAwaitingHuman { .. } => "nothing to resolve; /audit status shows the record".to_owned(),
            NoRun { .. } => "wait for the first accepted report".to_owned(),
            NothingNamed => "name the ids, e.g. A-01,A-02".to_owned(),
            UnknownLimitation { run, .. } => {
                format!("name a limitation of run {run}; /audit status lists them")
            }
            UnknownFinding { run, .. } => {
                format!("name a finding of run {run}; /audit status lists them")
            }
            FindingNotRejected { id, .. } => {
                format!("dispose it first with /audit dispose {id} reject --note T")
            }
            FindingAlreadyResolved { .. } => "nothing to do".to_owned(),
            OverrideTooLow { used, .. } => {
                format!("pass --budget {} or more", used.saturating_add(1))
            }
            NotCrossRemit { .. } => "use --basis triage-threshold".to_owned(),
            WaiveVetoed { id, .. } => format!("fix the finding, or dispose {id} fix"),
            AlreadyWaived { .. } => "nothing to do; the waiver table lists it".to_owned(),
            VetoRoundZero => "pass --from-round 1 or later, or leave it out for the next round".to_owned(),
            AlreadyDisposed { .. } => "each finding takes one disposition per run; the next run can be disposed anew".to_owned(),
            FollowUpBlocking { id } => format!("dispose {id} fix, file or reject"),
            IssueRequired { .. } => "open the issue, then record the disposition with its number".to_owned(),
            DeliveryAlreadyApplied { .. } => "nothing to do: this delivery was handled".to_owned(),
            Inconsistent(_) => "restore the record from the records branch history".to_owned(),
        }
    }
}
