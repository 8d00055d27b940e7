//! Human answers: resolve, limitation acceptance, finding resolution, budget override;
//! and delivery idempotence.

use crate::record_support;

use auditloop::engine::record::{has_delivery, AuditState, DispositionKind, EventKind};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition;
use record_support::*;

fn nhd_with_limitation(fx: &mut Fx) {
    let mut r = fx.report(Verdict::NeedsHumanDecision);
    r.limitations = Some(vec![
        limitation("L-01", "no-ghes-e2e", None),
        limitation("L-02", "no-arm", None),
    ]);
    fx.try_submit(&r).unwrap();
}

fn rejected_finding(fx: &mut Fx) {
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![
        finding("A-01", Some("k1"), true),
        finding("A-02", None, true),
    ];
    fx.try_submit(&r).unwrap();
    fx.apply(|r, c| {
        transition::dispose(r, &fid("A-01"), DispositionKind::Reject, "not so", None, c)
    })
    .unwrap();
}

#[test]
fn resolve_decision_rules() {
    let mut fx = Fx::new();
    assert_rule(
        fx.apply(|r, c| transition::resolve_decision(r, "n", c)),
        "not-awaiting-human",
    );
    fx.submit(Verdict::NeedsHumanDecision);
    let applied = fx
        .apply(|r, c| transition::resolve_decision(r, "do X", c))
        .unwrap();
    let EventKind::Resolution(res) = &applied.event.kind else {
        panic!()
    };
    assert_eq!(res.authority, "human: maintainer");
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(fx.record.latest_verdict, Some(Verdict::NeedsHumanDecision));
    assert_rule(
        fx.apply(|r, c| transition::resolve_decision(r, "again", c)),
        "not-awaiting-human",
    );
}

#[test]
fn accept_limitations_rules() {
    let mut fx = Fx::new();
    assert_rule(
        fx.apply(|r, c| transition::accept_limitations(r, &[lid("L-01")], "ok", c)),
        "no-run",
    );
    nhd_with_limitation(&mut fx);
    assert_rule(
        fx.apply(|r, c| transition::accept_limitations(r, &[], "ok", c)),
        "nothing-named",
    );
    assert_rule(
        fx.apply(|r, c| transition::accept_limitations(r, &[lid("L-09")], "ok", c)),
        "unknown-limitation",
    );
    let applied = fx
        .apply(|r, c| transition::accept_limitations(r, &[lid("L-01"), lid("L-01")], "ok", c))
        .unwrap();
    let EventKind::LimitationAcceptance(acc) = &applied.event.kind else {
        panic!()
    };
    assert_eq!(acc.limitations.len(), 1);
    assert_eq!(acc.limitations[0].key, key("no-ghes-e2e"));
    // One command both accepts and answers the decision.
    assert_eq!(fx.record.audit_state, AuditState::Open);
    let accepted = fx.record.accepted_limitations();
    assert_eq!(accepted.len(), 1);
    assert_eq!(accepted[0].authority, "human: maintainer");
    // Accepting while open does not change the state.
    fx.apply(|r, c| transition::accept_limitations(r, &[lid("L-02")], "ok", c))
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
}

#[test]
fn resolve_finding_rules() {
    let mut fx = Fx::new();
    rejected_finding(&mut fx);
    assert_rule(
        fx.apply(|r, c| transition::resolve_finding(r, &fid("A-09"), "n", c)),
        "unknown-finding",
    );
    assert_rule(
        fx.apply(|r, c| transition::resolve_finding(r, &fid("A-02"), "n", c)),
        "finding-not-rejected",
    );
    assert_eq!(fx.record.contested().len(), 1);
    fx.apply(|r, c| transition::resolve_finding(r, &fid("A-01"), "agreed", c))
        .unwrap();
    assert!(fx.record.contested().is_empty());
    assert_rule(
        fx.apply(|r, c| transition::resolve_finding(r, &fid("A-01"), "n", c)),
        "finding-already-resolved",
    );
}

#[test]
fn contested_follows_the_key_into_later_runs() {
    let mut fx = Fx::new();
    rejected_finding(&mut fx);
    // Run 2 still reports k1 (as A-03): the run-1 rejection stays contested.
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![finding("A-03", Some("k1"), true)];
    fx.try_submit(&r).unwrap();
    assert_eq!(fx.record.contested().len(), 1);
    assert!(fx.record.is_contested(&fid("A-03")));
    // A resolution of the run-2 finding settles it by key.
    fx.apply(|r, c| transition::resolve_finding(r, &fid("A-03"), "agreed", c))
        .unwrap();
    assert!(fx.record.contested().is_empty());

    // A later run that no longer reports the key drops the contest.
    let mut fx = Fx::new();
    rejected_finding(&mut fx);
    fx.submit(Verdict::NeedsRemediation);
    assert!(fx.record.contested().is_empty());
}

#[test]
fn override_rules() {
    let mut fx = Fx::new();
    for _ in 0..3 {
        fx.submit(Verdict::NeedsRemediation);
    }
    assert_eq!(fx.record.audit_state, AuditState::Blocked);
    let err = fx
        .apply(|r, c| transition::override_budget(r, 3, "n", c))
        .unwrap_err();
    assert_eq!(err.rule(), "override-too-low");
    assert!(err.to_string().contains('3'));
    assert!(err.fix().contains("--budget 4"));
    let applied = fx
        .apply(|r, c| transition::override_budget(r, 5, "two more", c))
        .unwrap();
    let EventKind::Override(o) = &applied.event.kind else {
        panic!()
    };
    assert_eq!((o.budget, o.previous_budget), (5, 3));
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(fx.record.audit_blocked_reason, None);
    assert_eq!(fx.record.budget_left(), 2);
}

#[test]
fn override_while_awaiting_human_keeps_waiting() {
    let mut fx = Fx::new();
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::NeedsRemediation);
    fx.submit(Verdict::NeedsHumanDecision);
    fx.apply(|r, c| transition::override_budget(r, 4, "n", c))
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::AwaitingHuman);
    fx.apply(|r, c| transition::resolve_decision(r, "go", c))
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
}

#[test]
fn a_delivery_applies_once() {
    let mut fx = Fx::new();
    fx.submit(Verdict::NeedsHumanDecision);
    let ctx = fx.ctx();
    assert!(!has_delivery(&fx.record, &ctx.delivery));
    let applied = transition::resolve_decision(&fx.record, "go", &ctx).unwrap();
    fx.keep(applied);
    assert!(has_delivery(&fx.record, &ctx.delivery));
    assert_rule(
        transition::veto(&fx.record, &key("k"), None, "r", &ctx),
        "delivery-already-applied",
    );
}
