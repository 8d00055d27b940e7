//! The refusals' one table: for each rule, its stable name, what was wrong and the fix.

use crate::ids::PrNumber;
use crate::md;
use crate::md::Md;
use crate::transition::implementation::awaited_words;

use super::Refusal;

fn on_pull(pull: Option<PrNumber>) -> String {
    pull.map(|p| format!(" on PR {p}")).unwrap_or_default()
}

/// A rule's row of the table.
pub(super) struct Entry {
    /// The stable kebab-case name of the broken rule.
    pub(super) rule: &'static str,
    /// What was wrong, in plain words: the refusal's `Display`.
    pub(super) why: String,
    /// The same words in Markdown, where the app's own words keep their code spans.
    pub(super) why_md: Option<Md>,
    /// How to put it right.
    pub(super) fix: Md,
}

fn row(rule: &'static str, why: String, fix: impl Into<Md>) -> Entry {
    Entry {
        rule,
        why,
        why_md: None,
        fix: fix.into(),
    }
}

impl Entry {
    /// The row with its words in Markdown: the app's code spans kept, values escaped.
    fn md(self, why_md: Md) -> Self {
        Self {
            why_md: Some(why_md),
            ..self
        }
    }
}

impl Refusal {
    /// The table: one row per rule.
    pub(super) fn entry(&self) -> Entry {
        match self {
            // --- creating and binding records
            Self::PullHasRecord { pull, id } => row(
                "pull-has-record",
                format!("PR {pull} already has the audit record {id}"),
                md!("use `/audit baseline` to rebind {} to the current head", id),
            ),
            Self::WorkUnitHasRecord { work_unit, id, pull } => row(
                "work-unit-has-record",
                format!("work unit {work_unit} already has the audit record {id}{}", on_pull(*pull)),
                // A value's edges are trimmed when escaped: the space stays in the template.
                match pull {
                    Some(p) => md!(
                        "continue on {} on PR {}, or use {} if that PR was closed without merging",
                        id,
                        *p,
                        Md::code(&format!("/audit adopt {id}"))
                    ),
                    None => md!(
                        "continue on {}, or use {} if that PR was closed without merging",
                        id,
                        Md::code(&format!("/audit adopt {id}"))
                    ),
                },
            ),
            Self::CoveredTasksRequired { work_unit } => row(
                "covered-tasks-required",
                format!("work unit {work_unit} needs its covered tasks named"),
                "name the tasks with `--covered-tasks`, e.g. `--covered-tasks T-041,#12`",
            ),
            Self::NoCoveredTasks => row(
                "no-covered-tasks",
                "no covered tasks: the audit has nothing to cover".to_owned(),
                "close issues from the PR body (`Closes #12`) or pass `--covered-tasks`",
            ),
            Self::EvidenceRequired => row(
                "evidence-required",
                "evidence is required: no evidence text was given and no required checks are configured".to_owned(),
                "pass `--evidence` with the integrated evidence for the head commit, or configure `evidence.required_checks`",
            ),
            Self::ZeroBudget => row(
                "budget-zero",
                "an audit budget of 0 allows no report".to_owned(),
                "pass `--budget 1` or more",
            ),
            Self::WrongPullRequest { id, record_pull, pull } => row(
                "wrong-pull-request",
                format!("the record {id} belongs to PR {record_pull}, not PR {pull}"),
                md!(
                    "run the command on PR {}, or {} here",
                    record_pull,
                    Md::code(&format!("/audit adopt {id}"))
                ),
            ),
            Self::AdoptSourceActive { id, pull } => row(
                "adopt-source-active",
                format!("the record {id} is still bound to PR {pull}, which was not closed without merging"),
                md!("close PR {} without merging first, or continue the audit there", pull),
            ),
            Self::TaskOverlap { task, id, pull, why } => row(
                "task-overlap",
                format!("task {task} is covered by {id} of PR {pull}, which is not finished ({why})"),
                md!(
                    "continue on PR {}; if it was closed without merging, move its record here with {} (its history and budget come along: a new PR never buys a fresh budget)",
                    pull,
                    Md::code(&format!("/audit adopt {id}"))
                ),
            ),

            // --- reports
            Self::AuditIdMismatch { report, record } => row(
                "audit-id-mismatch",
                format!("the report is for {report}, but this PR's record is {record}"),
                md!("set `audit_id` to {}", Md::code(record.as_str())),
            ),
            Self::WorkUnitMismatch { report, record } => row(
                "work-unit-mismatch",
                format!("the report is for work unit {report}, but the record covers {record}"),
                md!("set `work_unit` to {}", Md::code(record.as_str())),
            ),
            Self::StaleCandidate { report, current } => row(
                "stale-candidate",
                format!("the report audits {report}, which is stale: the current candidate is {current}"),
                // The full SHA: `candidate_artifact` takes nothing shorter.
                md!(
                    "audit the current candidate and submit a fresh report with {}",
                    Md::code(&format!("\"candidate_artifact\": \"{current}\""))
                ),
            )
            .md(md!(
                "the report audits {}, which is stale: the current candidate is {}",
                Md::code(&format!("commit:{}", report.short())),
                Md::code(&format!("commit:{}", current.short()))
            )),
            Self::CoveredTasksMismatch { report, record } => row(
                "covered-tasks-mismatch",
                format!("the report covers tasks [{report}], but the record covers [{record}]"),
                md!("set `covered_tasks` to [{}]", Md::text(record)),
            ),
            Self::InvocationRefReused { reference, id } => row(
                "invocation-ref-reused",
                format!("invocation ref {reference} was already used by {id}"),
                "use a fresh invocation with a new, unique invocation ref",
            ),
            Self::ReceiptReused { receipt_id, id } => row(
                "receipt-reused",
                format!("receipt {receipt_id} was already used by {id}"),
                "sign the report again: each `receipt_id` is used once",
            ),
            Self::ReceiptRequired => row(
                "receipt-required",
                "hardened assurance: the report carries no verified receipt".to_owned(),
                "sign the report with `auditloop sign` using a key in the trust store",
            ),
            Self::SelfAudit { poster, how } => row(
                "self-audit",
                format!("self-audit: {poster} is an implementer of this pull request ({how}), and the auditor is never the implementer"),
                "post the report from another account (for example a dedicated App or bot listed in `permissions.auditors`), sign it with a receipt (`auditloop sign`, a key in the operator's trust store), or set `allow_self_audit: true` in `.github/auditloop.yml` on the default branch",
            )
            .md(md!(
                "self-audit: {} is an implementer of this pull request ({}), and the auditor is never the implementer",
                poster.as_str().to_owned(),
                how.to_md()
            )),
            Self::NoEvidence { awaited } => {
                let each: Vec<Md> = awaited
                    .iter()
                    .map(|(name, stands)| md!("{} ({})", Md::code(name), stands.clone()))
                    .collect();
                row(
                    "no-evidence",
                    format!("no evidence yet: the required checks have not all concluded success on the candidate ({})", awaited_words(awaited)),
                    "wait until every check named in `evidence.required_checks` has concluded `success` on the candidate, then post the report again (a dispatched auditor is started only then); nothing was spent",
                )
                .md(md!(
                    "no evidence yet: the required checks have not all concluded success on the candidate: {}",
                    Md::join(&each, ", ")
                ))
            }
            Self::HandoffUnderHardened => row(
                "handoff-under-hardened",
                "hardened assurance: a handoff block carries nothing to sign".to_owned(),
                "submit a signed `auditor_report_v1` instead of a handoff block",
            ),
            Self::AwaitingHuman { id } => row(
                "awaiting-human",
                format!("the record {id} awaits a human decision; no report is accepted until it is resolved"),
                "a maintainer answers with `/audit resolve --note \"…\"` first",
            ),
            Self::BudgetExhausted { used, budget } => row(
                "budget-exhausted",
                format!("the audit budget is spent: {used} of {budget} runs used"),
                md!(
                    "a maintainer raises the budget with {}",
                    Md::code(&format!(
                        "/audit override --budget {} --note \"…\"",
                        used.saturating_add(1)
                    ))
                ),
            ),
            Self::InvocationFailuresSpent { failed, candidate } => row(
                "invocation-failures-spent",
                format!("the attempt budget for invocation failures is spent: {failed} recorded on {candidate}"),
                md!(
                    "find why the auditor fails; a maintainer allows more attempts with {}",
                    Md::code("/audit override --budget N --note \"…\"")
                ),
            ),
            Self::AlreadyCertified { artifact } => row(
                "already-certified",
                format!("already certified: {artifact} is certified and the certification is current"),
                "nothing to do; a new head commit or `/audit baseline` starts a new audit of it",
            ),
            Self::VetoedFinding { finding, key, from_round } => row(
                "vetoed-finding",
                format!("the report certifies, but finding {finding} has key {key}, vetoed from round {from_round}"),
                md!("the finding {} must be fixed before the audit can certify", Md::code(key.as_str())),
            ),
            Self::LimitationWithoutAuthority { id } => row(
                "limitation-without-authority",
                format!("limitation {id} has no authority, which certified_with_accepted_limitations needs"),
                "use the verdict `needs_human_decision` so that a maintainer can accept the limitation",
            ),
            Self::AuthorityUnrecognized { id, authority } => row(
                "limitation-authority-invalid",
                format!("limitation {id} cites `{authority}`, which is neither `human: LOGIN` nor `D-<n>`"),
                "cite `human: LOGIN` or `D-<n>`",
            )
            .md(md!(
                "limitation {} cites {}, which is neither `human: LOGIN` nor `D-<n>`",
                id,
                Md::code(authority)
            )),
            Self::LimitationNotAccepted { id, key, login } => row(
                "limitation-not-accepted",
                format!("limitation {id} cites human: {login}, but {login} never accepted the limitation {key}"),
                md!(
                    "{} accepts it with {} on a run that lists {}, or the report says `needs_human_decision`",
                    Md::text(login),
                    Md::code(&format!("/audit resolve {id} --note \"…\"")),
                    Md::code(key.as_str())
                ),
            ),
            Self::DecisionRecordMissing { id, number } => row(
                "decision-record-missing",
                format!("limitation {id} cites D-{number}, but there is no decision record D-{number}"),
                md!(
                    "add the decision record D-{} under `decisions_path`, or cite an existing one",
                    number
                ),
            ),

            // --- human answers and budget
            Self::NotAwaitingHuman { id, state } => row(
                "not-awaiting-human",
                format!("the record {id} is {}, not awaiting a human decision", state.as_str()),
                "nothing to resolve; `/audit status` shows the record",
            ),
            Self::NoRun { id } => row(
                "no-run",
                format!("the record {id} has no run yet"),
                "wait for the first accepted report",
            ),
            Self::NothingNamed => row(
                "nothing-named",
                "nothing named: give at least one id".to_owned(),
                "name the ids, e.g. `A-01,A-02`",
            ),
            Self::UnknownLimitation { id, run } => row(
                "unknown-limitation",
                format!("run {run} has no limitation {id}"),
                md!("name a limitation of run {}; `/audit status` lists them", run),
            ),
            Self::UnknownFinding { id, run } => row(
                "unknown-finding",
                format!("run {run} has no finding {id}"),
                md!("name a finding of run {}; `/audit status` lists them", run),
            ),
            Self::FindingNotRejected { id, run } => row(
                "finding-not-rejected",
                format!("finding {id} of run {run} is not contested: it was not disposed `reject`"),
                md!(
                    "dispose it first with {}",
                    Md::code(&format!("/audit dispose {id} reject --note \"…\""))
                ),
            )
            .md(md!(
                "finding {} of run {} is not contested: it was not disposed `reject`",
                id,
                run
            )),
            Self::FindingAlreadyResolved { id, run } => row(
                "finding-already-resolved",
                format!("finding {id} of run {run} is already resolved"),
                "nothing to do",
            ),
            Self::OverrideTooLow { budget, used } => row(
                "override-too-low",
                format!("a budget of {budget} does not exceed the {used} runs already used"),
                md!(
                    "pass {} or more",
                    Md::code(&format!("--budget {}", used.saturating_add(1)))
                ),
            ),

            // --- waivers, vetoes, dispositions
            Self::NotCrossRemit { id } => row(
                "not-cross-remit",
                format!("finding {id} is not marked cross_remit, so it cannot be waived as cross-remit"),
                "use `--basis triage-threshold`",
            ),
            Self::WaiveVetoed { id, key, from_round } => row(
                "waive-vetoed",
                format!("finding {id} has key {key}, vetoed from round {from_round}: it must be fixed"),
                md!(
                    "fix the finding, or record it with {}",
                    Md::code(&format!("/audit dispose {id} fix --note \"…\""))
                ),
            ),
            Self::DisposeVetoed { id, key, from_round, disposition } => row(
                "dispose-vetoed",
                format!("finding {id} has key {key}, vetoed from round {from_round}: it takes `fix` only, not `{disposition}`"),
                md!(
                    "fix the finding and record it with {}; a veto lifts only by a later run that no longer reports the key",
                    Md::code(&format!("/audit dispose {id} fix --note \"…\""))
                ),
            )
            .md(md!(
                "finding {} has key {}, vetoed from round {}: it takes `fix` only, not {}",
                id,
                Md::code(key.as_str()),
                from_round,
                Md::code(disposition)
            )),
            Self::AlreadyWaived { id, run } => row(
                "already-waived",
                format!("finding {id} of run {run} is already waived"),
                "nothing to do; the waiver table lists it",
            ),
            Self::VetoRoundZero => row(
                "veto-round-zero",
                "a veto cannot start at round 0; rounds count from 1".to_owned(),
                "pass `--from-round 1` or later, or leave it out for the next round",
            ),
            Self::AlreadyDisposed { id, run, disposition } => row(
                "already-disposed",
                format!("finding {id} of run {run} is already disposed `{}`", disposition.as_str()),
                "each finding takes one disposition per run; the next run can be disposed anew",
            )
            .md(md!(
                "finding {} of run {} is already disposed {}",
                id,
                run,
                Md::code(disposition.as_str())
            )),
            Self::FollowUpBlocking { id } => row(
                "follow-up-blocking",
                format!("finding {id} is blocking; `follow-up` is only for non-blocking findings"),
                md!(
                    "dispose {} as `fix`, `file` or `reject`: {}",
                    id,
                    Md::code(&format!("/audit dispose {id} fix --note \"…\""))
                ),
            )
            .md(md!(
                "finding {} is blocking; `follow-up` is only for non-blocking findings",
                id
            )),
            Self::IssueRequired { id } => row(
                "issue-required",
                format!("a `file` disposition of {id} needs the issue it opened"),
                "open the issue, then record the disposition with its number",
            )
            .md(md!("a `file` disposition of {} needs the issue it opened", id)),

            // --- delivery and consistency
            Self::DeliveryAlreadyApplied { delivery } => row(
                "delivery-already-applied",
                format!("delivery {delivery} was already applied to this record"),
                "nothing to do: this delivery was handled",
            ),
            Self::Inconsistent(why) => row(
                "record-inconsistent",
                format!("the record's history is inconsistent: {why}"),
                "restore the record from the records branch history",
            ),
        }
    }
}
