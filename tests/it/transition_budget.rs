//! Budget semantics (docs/reference.md#budget): runs used, blocking on exhaustion, certification stopping the
//! count, and invocation failures that use no budget.

use crate::record_support;

use auditloop::engine::ids::AuditId;
use auditloop::engine::record::{AuditState, BaselineCause, BlockedReason, EventKind};
use auditloop::engine::repo_config::Assurance;
use auditloop::engine::report::Verdict;
use auditloop::engine::transition::{self, BaselineInput, FailureInput};
use record_support::*;

#[test]
fn budget_semantics_table() {
    use AuditState::{AwaitingHuman, Blocked, Open};
    use Verdict::{NeedsHumanDecision, NeedsRemediation};
    const C: Verdict = Verdict::Certified;
    const CERTIFIED: AuditState = AuditState::Certified;
    let cases: Vec<(Vec<Verdict>, AuditState, Option<BlockedReason>)> = vec![
        (vec![NeedsRemediation], Open, None),
        (vec![NeedsHumanDecision], AwaitingHuman, None),
        (vec![NeedsRemediation, C], CERTIFIED, None),
        (vec![NeedsRemediation, NeedsRemediation, C], CERTIFIED, None),
        (
            vec![NeedsRemediation, NeedsRemediation, NeedsRemediation],
            Blocked,
            Some(BlockedReason::AuditBudgetExhausted),
        ),
        // The last run asked for a human: it waits for one first (docs/reference.md#budget).
        (
            vec![NeedsRemediation, NeedsRemediation, NeedsHumanDecision],
            AwaitingHuman,
            None,
        ),
    ];
    for (verdicts, state, reason) in cases {
        let mut fx = Fx::new();
        for (i, v) in verdicts.iter().enumerate() {
            if i > 0 && fx.record.audit_state == AwaitingHuman {
                fx.apply(|r, c| transition::resolve_decision(r, "go on", c))
                    .unwrap();
            }
            fx.submit(*v);
        }
        assert_eq!(fx.record.audit_state, state, "{verdicts:?}");
        assert_eq!(fx.record.audit_blocked_reason, reason, "{verdicts:?}");
        assert_eq!(fx.record.latest_verdict, verdicts.last().copied());
        assert_eq!(
            fx.record.runs_used(),
            u32::try_from(verdicts.len()).unwrap()
        );
    }
}

#[test]
fn exhausted_by_a_human_decision_blocks_once_resolved() {
    let mut fx = Fx::new();
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::NeedsHumanDecision);
    fx.apply(|r, c| transition::resolve_decision(r, "accept the risk", c))
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Blocked);
    assert_eq!(
        fx.record.audit_blocked_reason,
        Some(BlockedReason::AuditBudgetExhausted)
    );
    assert_eq!(fx.record.latest_verdict, Some(Verdict::NeedsHumanDecision));
    let r = fx.report(Verdict::Certified);
    assert_rule(fx.try_submit(&r), "budget-exhausted");
    fx.apply(|r, c| transition::override_budget(r, 4, "one more", c))
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
    fx.try_submit(&r).unwrap();
}

#[test]
fn certification_stops_the_count_until_the_candidate_moves() {
    let mut fx = Fx::new();
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::Certified);
    assert_eq!(fx.record.runs_used(), 3);
    let r = fx.report(Verdict::Certified);
    assert_rule(fx.try_submit(&r), "already-certified");
    assert_eq!(fx.record.runs_used(), 3);
    let ctx = fx.ctx();
    let input = BaselineInput {
        cause: BaselineCause::Push,
        pull_request: PR,
        head: sha(2),
        covered_tasks: None,
        evidence: None,
    };
    fx.keep(
        transition::baseline(&fx.record, input, &ctx)
            .unwrap()
            .unwrap(),
    );
    // Same budget, all three runs spent: the rebind blocks the record rather than leave it
    // open with nothing able to move it, and the views name the override.
    assert_eq!(fx.record.audit_state, AuditState::Blocked);
    assert_eq!(
        fx.record.audit_blocked_reason,
        Some(BlockedReason::AuditBudgetExhausted)
    );
    let r = fx.report(Verdict::Certified);
    assert_rule(fx.try_submit(&r), "budget-exhausted");
    let ctx = fx.ctx();
    fx.keep(transition::override_budget(&fx.record, 4, "one more run", &ctx).unwrap());
    assert_eq!(fx.record.audit_state, AuditState::Open);
    let r = fx.report(Verdict::Certified);
    assert!(fx.try_submit(&r).is_ok());
}

#[test]
fn a_rebind_with_runs_left_reopens_as_before() {
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    let ctx = fx.ctx();
    let input = BaselineInput {
        cause: BaselineCause::Push,
        pull_request: PR,
        head: sha(2),
        covered_tasks: None,
        evidence: None,
    };
    let applied = transition::baseline(&fx.record, input, &ctx)
        .unwrap()
        .unwrap();
    assert_eq!(applied.record.audit_state, AuditState::Open);
    let EventKind::Baseline(b) = &applied.event.kind else {
        panic!("a baseline event");
    };
    assert!(!b.budget_exhausted);
}

#[test]
fn invocation_failure_uses_no_budget_and_registers_the_ref() {
    let mut fx = Fx::new();
    let input = FailureInput {
        audit_id: fx.record.id.clone(),
        invocation_ref: "ci-run-err".into(),
        candidate_artifact: sha(1),
        reason: "auditor timed out".into(),
        author: None,
        commits: Vec::new(),
    };
    let ctx = fx.ctx_as("auditor-bot");
    let applied = transition::record_invocation_failure(
        &fx.record,
        &fx.index,
        input.clone(),
        &ctx,
        &fx.policy,
    )
    .unwrap();
    fx.keep(applied);
    assert_eq!(fx.record.runs_used(), 0);
    assert_eq!(fx.record.budget_left(), 3);
    assert_eq!(fx.index.invocations.get("ci-run-err"), Some(&fx.record.id));
    let ctx = fx.ctx_as("auditor-bot");
    let again = transition::record_invocation_failure(
        &fx.record,
        &fx.index,
        input.clone(),
        &ctx,
        &fx.policy,
    );
    assert_rule(again, "invocation-ref-reused");
    let stale = FailureInput {
        candidate_artifact: sha(7),
        invocation_ref: "other".into(),
        ..input.clone()
    };
    assert_rule(
        transition::record_invocation_failure(&fx.record, &fx.index, stale, &ctx, &fx.policy),
        "stale-candidate",
    );
    let wrong = FailureInput {
        audit_id: AuditId::new("AUD-2").unwrap(),
        invocation_ref: "other".into(),
        ..input.clone()
    };
    assert_rule(
        transition::record_invocation_failure(&fx.record, &fx.index, wrong, &ctx, &fx.policy),
        "audit-id-mismatch",
    );
    fx.policy.assurance = Assurance::Hardened;
    let hardened = FailureInput {
        invocation_ref: "other".into(),
        ..input
    };
    assert_rule(
        transition::record_invocation_failure(&fx.record, &fx.index, hardened, &ctx, &fx.policy),
        "handoff-under-hardened",
    );
}
