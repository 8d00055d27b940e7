//! Why a command was not carried out: one variant per rule, a stable rule name, what was
//! wrong (Display) and how to put it right (`fix`).

use crate::ids::{
    Artifact, AuditId, FindingId, FindingKey, LimitationId, Login, PrNumber, TaskId, WorkUnit,
};
use crate::md;
use crate::md::Md;
use crate::record::{AuditState, DispositionKind};

use super::implementation::awaited_words;
pub use super::implementation::Implementation;

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
    #[error("task {task} is covered by {id} of PR {pull}, which is not finished ({why})")]
    TaskOverlap {
        task: TaskId,
        id: AuditId,
        pull: PrNumber,
        why: &'static str,
    },

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
    #[error("self-audit: {poster} is an implementer of this pull request ({how}), and the auditor is never the implementer")]
    SelfAudit { poster: Login, how: Implementation },
    #[error("no evidence yet: the required checks have not all concluded success on the candidate ({})", awaited_words(.awaited))]
    NoEvidence { awaited: Vec<(String, String)> },
    #[error("hardened assurance: a handoff block carries nothing to sign")]
    HandoffUnderHardened,
    #[error("the record {id} awaits a human decision; no report is accepted until it is resolved")]
    AwaitingHuman { id: AuditId },
    #[error("the audit budget is spent: {used} of {budget} runs used")]
    BudgetExhausted { used: u32, budget: u32 },
    #[error(
        "the attempt budget for invocation failures is spent: {failed} recorded on {candidate}"
    )]
    InvocationFailuresSpent { failed: u32, candidate: Artifact },
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
    #[error("the record {id} is {}, not awaiting a human decision", .state.as_str())]
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
    #[error("finding {id} has key {key}, vetoed from round {from_round}: it takes `fix` only, not `{disposition}`")]
    DisposeVetoed {
        id: FindingId,
        key: FindingKey,
        from_round: u32,
        disposition: &'static str,
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

impl Refusal {
    /// The stable kebab-case name of the broken rule.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        use Refusal::{
            AdoptSourceActive, AlreadyCertified, AlreadyDisposed, AlreadyWaived, AuditIdMismatch,
            AuthorityUnrecognized, AwaitingHuman, BudgetExhausted, CoveredTasksMismatch,
            CoveredTasksRequired, DecisionRecordMissing, DeliveryAlreadyApplied, DisposeVetoed,
            EvidenceRequired, FindingAlreadyResolved, FindingNotRejected, FollowUpBlocking,
            HandoffUnderHardened, Inconsistent, InvocationFailuresSpent, InvocationRefReused,
            IssueRequired, LimitationNotAccepted, LimitationWithoutAuthority, NoCoveredTasks,
            NoEvidence, NoRun, NotAwaitingHuman, NotCrossRemit, NothingNamed, OverrideTooLow,
            PullHasRecord, ReceiptRequired, ReceiptReused, SelfAudit, StaleCandidate, TaskOverlap,
            UnknownFinding, UnknownLimitation, VetoRoundZero, VetoedFinding, WaiveVetoed,
            WorkUnitHasRecord, WorkUnitMismatch, WrongPullRequest, ZeroBudget,
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
            TaskOverlap { .. } => "task-overlap",
            SelfAudit { .. } => "self-audit",
            NoEvidence { .. } => "no-evidence",
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
            InvocationFailuresSpent { .. } => "invocation-failures-spent",
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
            DisposeVetoed { .. } => "dispose-vetoed",
            AlreadyWaived { .. } => "already-waived",
            VetoRoundZero => "veto-round-zero",
            AlreadyDisposed { .. } => "already-disposed",
            FollowUpBlocking { .. } => "follow-up-blocking",
            IssueRequired { .. } => "issue-required",
            DeliveryAlreadyApplied { .. } => "delivery-already-applied",
            Inconsistent(_) => "record-inconsistent",
        }
    }

    /// What was wrong, for the reply: the app's words keep their code spans, the values
    /// that came from a report or a command are escaped.
    #[must_use]
    pub fn what_md(&self) -> Md {
        use Refusal::{
            AlreadyDisposed, AuthorityUnrecognized, DisposeVetoed, FindingNotRejected,
            FollowUpBlocking, IssueRequired, NoEvidence, SelfAudit, StaleCandidate,
        };
        match self {
            StaleCandidate { report, current } => md!(
                "the report audits {}, which is stale: the current candidate is {}",
                Md::code(&format!("commit:{}", report.short())),
                Md::code(&format!("commit:{}", current.short()))
            ),
            AuthorityUnrecognized { id, authority } => md!(
                "limitation {} cites {}, which is neither `human: LOGIN` nor `D-<n>`",
                id,
                Md::code(authority)
            ),
            FindingNotRejected { id, run } => md!(
                "finding {} of run {} is not contested: it was not disposed `reject`",
                id,
                run
            ),
            AlreadyDisposed {
                id,
                run,
                disposition,
            } => md!(
                "finding {} of run {} is already disposed {}",
                id,
                run,
                Md::code(disposition.as_str())
            ),
            FollowUpBlocking { id } => md!(
                "finding {} is blocking; `follow-up` is only for non-blocking findings",
                id
            ),
            IssueRequired { id } => md!("a `file` disposition of {} needs the issue it opened", id),
            DisposeVetoed {
                id,
                key,
                from_round,
                disposition,
            } => md!(
                "finding {} has key {}, vetoed from round {}: it takes `fix` only, not {}",
                id,
                Md::code(key.as_str()),
                from_round,
                Md::code(disposition)
            ),
            NoEvidence { awaited } => {
                let each: Vec<Md> = awaited
                    .iter()
                    .map(|(name, stands)| md!("{} ({})", Md::code(name), stands.clone()))
                    .collect();
                md!(
                    "no evidence yet: the required checks have not all concluded success on the candidate: {}",
                    Md::join(&each, ", ")
                )
            }
            SelfAudit { poster, how } => md!(
                "self-audit: {} is an implementer of this pull request ({}), and the auditor is never the implementer",
                poster.as_str().to_owned(),
                how.to_md()
            ),
            // No Markdown of the app's own in the rest: all of it is escaped as text.
            other => Md::text_max(&other.to_string(), 4_000),
        }
    }

    /// How to put it right, for the reply.
    #[must_use]
    pub fn fix(&self) -> Md {
        use Refusal::{
            AdoptSourceActive, AlreadyCertified, AlreadyDisposed, AlreadyWaived, AuditIdMismatch,
            AuthorityUnrecognized, AwaitingHuman, BudgetExhausted, CoveredTasksMismatch,
            CoveredTasksRequired, DecisionRecordMissing, DeliveryAlreadyApplied, DisposeVetoed,
            EvidenceRequired, FindingAlreadyResolved, FindingNotRejected, FollowUpBlocking,
            HandoffUnderHardened, Inconsistent, InvocationFailuresSpent, InvocationRefReused,
            IssueRequired, LimitationNotAccepted, LimitationWithoutAuthority, NoCoveredTasks,
            NoEvidence, NoRun, NotAwaitingHuman, NotCrossRemit, NothingNamed, OverrideTooLow,
            PullHasRecord, ReceiptRequired, ReceiptReused, SelfAudit, StaleCandidate, TaskOverlap,
            UnknownFinding, UnknownLimitation, VetoRoundZero, VetoedFinding, WaiveVetoed,
            WorkUnitHasRecord, WorkUnitMismatch, WrongPullRequest, ZeroBudget,
        };
        match self {
            PullHasRecord { id, .. } => {
                md!("use `/audit baseline` to rebind {} to the current head", id)
            }
            WorkUnitHasRecord { id, pull, .. } => md!(
                "continue on {}{}, or use {} if that PR was closed without merging",
                id,
                on_pull(*pull),
                Md::code(&format!("/audit adopt {id}"))
            ),
            CoveredTasksRequired { .. } => {
                Md::lit("name the tasks with `--covered-tasks`, e.g. `--covered-tasks T-041,#12`")
            }
            NoCoveredTasks => Md::lit("close issues from the PR body (`Closes #12`) or pass `--covered-tasks`"),
            EvidenceRequired => Md::lit("pass `--evidence` with the integrated evidence for the head commit, or configure `evidence.required_checks`"),
            ZeroBudget => Md::lit("pass `--budget 1` or more"),
            WrongPullRequest { id, record_pull, .. } => md!(
                "run the command on PR {}, or {} here",
                record_pull,
                Md::code(&format!("/audit adopt {id}"))
            ),
            AdoptSourceActive { pull, .. } => {
                md!("close PR {} without merging first, or continue the audit there", pull)
            }
            TaskOverlap { id, pull, .. } => md!(
                "continue on PR {}; if it was closed without merging, move its record here with {} (its history and budget come along: a new PR never buys a fresh budget)",
                pull,
                Md::code(&format!("/audit adopt {id}"))
            ),
            NoEvidence { .. } => Md::lit("wait until every check named in `evidence.required_checks` has concluded `success` on the candidate, then post the report again (a dispatched auditor is started only then); nothing was spent"),
            SelfAudit { .. } => Md::lit("post the report from another account (for example a dedicated App or bot listed in `permissions.auditors`), sign it with a receipt (`auditloop sign`, a key in the operator's trust store), or set `allow_self_audit: true` in `.github/auditloop.yml` on the default branch"),
            AuditIdMismatch { record, .. } => md!("set `audit_id` to {}", Md::code(record.as_str())),
            WorkUnitMismatch { record, .. } => md!("set `work_unit` to {}", Md::code(record.as_str())),
            // The full SHA: `candidate_artifact` takes nothing shorter.
            StaleCandidate { current, .. } => md!(
                "audit the current candidate and submit a fresh report with {}",
                Md::code(&format!("\"candidate_artifact\": \"{current}\""))
            ),
            CoveredTasksMismatch { record, .. } => {
                md!("set `covered_tasks` to [{}]", Md::text(record))
            }
            InvocationRefReused { .. } => Md::lit("use a fresh invocation with a new, unique invocation ref"),
            ReceiptReused { .. } => Md::lit("sign the report again: each `receipt_id` is used once"),
            ReceiptRequired => Md::lit("sign the report with `auditloop sign` using a key in the trust store"),
            HandoffUnderHardened => Md::lit("submit a signed `auditor_report_v1` instead of a handoff block"),
            AwaitingHuman { .. } => Md::lit("a maintainer answers with `/audit resolve --note \"…\"` first"),
            BudgetExhausted { used, .. } => md!(
                "a maintainer raises the budget with {}",
                Md::code(&format!(
                    "/audit override --budget {} --note \"…\"",
                    used.saturating_add(1)
                ))
            ),
            InvocationFailuresSpent { .. } => md!(
                "find why the auditor fails; a maintainer allows more attempts with {}",
                Md::code("/audit override --budget N --note \"…\"")
            ),
            AlreadyCertified { .. } => Md::lit("nothing to do; a new head commit or `/audit baseline` starts a new audit of it"),
            VetoedFinding { key, .. } => {
                md!("the finding {} must be fixed before the audit can certify", Md::code(key.as_str()))
            }
            LimitationWithoutAuthority { .. } => Md::lit("use the verdict `needs_human_decision` so that a maintainer can accept the limitation"),
            AuthorityUnrecognized { .. } => Md::lit("cite `human: LOGIN` or `D-<n>`"),
            LimitationNotAccepted { id, key, login } => md!(
                "{} accepts it with {} on a run that lists {}, or the report says `needs_human_decision`",
                Md::text(login),
                Md::code(&format!("/audit resolve {id} --note \"…\"")),
                Md::code(key.as_str())
            ),
            DecisionRecordMissing { number, .. } => md!(
                "add the decision record D-{} under `decisions_path`, or cite an existing one",
                number
            ),
            NotAwaitingHuman { .. } => Md::lit("nothing to resolve; `/audit status` shows the record"),
            NoRun { .. } => Md::lit("wait for the first accepted report"),
            NothingNamed => Md::lit("name the ids, e.g. `A-01,A-02`"),
            UnknownLimitation { run, .. } => {
                md!("name a limitation of run {}; `/audit status` lists them", run)
            }
            UnknownFinding { run, .. } => {
                md!("name a finding of run {}; `/audit status` lists them", run)
            }
            FindingNotRejected { id, .. } => md!(
                "dispose it first with {}",
                Md::code(&format!("/audit dispose {id} reject --note \"…\""))
            ),
            FindingAlreadyResolved { .. } => Md::lit("nothing to do"),
            OverrideTooLow { used, .. } => md!(
                "pass {} or more",
                Md::code(&format!("--budget {}", used.saturating_add(1)))
            ),
            NotCrossRemit { .. } => Md::lit("use `--basis triage-threshold`"),
            DisposeVetoed { id, .. } => md!(
                "fix the finding and record it with {}; a veto lifts only by a later run that no longer reports the key",
                Md::code(&format!("/audit dispose {id} fix --note \"…\""))
            ),
            WaiveVetoed { id, .. } => md!(
                "fix the finding, or record it with {}",
                Md::code(&format!("/audit dispose {id} fix --note \"…\""))
            ),
            AlreadyWaived { .. } => Md::lit("nothing to do; the waiver table lists it"),
            VetoRoundZero => Md::lit("pass `--from-round 1` or later, or leave it out for the next round"),
            AlreadyDisposed { .. } => Md::lit("each finding takes one disposition per run; the next run can be disposed anew"),
            FollowUpBlocking { id } => md!(
                "dispose {} as `fix`, `file` or `reject`: {}",
                id,
                Md::code(&format!("/audit dispose {id} fix --note \"…\""))
            ),
            IssueRequired { .. } => Md::lit("open the issue, then record the disposition with its number"),
            DeliveryAlreadyApplied { .. } => Md::lit("nothing to do: this delivery was handled"),
            Inconsistent(_) => Md::lit("restore the record from the records branch history"),
        }
    }
}
