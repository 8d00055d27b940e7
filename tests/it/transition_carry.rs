//! `carry`: a rebind onto an identical tree keeps the certification, spends no run, and
//! the gate's condition 5 follows the carry back to the run that certified. Everything that
//! does not qualify is an ordinary baseline.

use crate::record_support;

use auditloop::engine::gate::{evaluate, Conclusion, GateInput};
use auditloop::engine::record::{load_record, to_json, AuditState, BaselineCause, EventKind};
use auditloop::engine::repo_config::{Assurance, RepoConfig};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition::{self, BaselineInput};
use record_support::*;

fn input(cause: BaselineCause, head: u8) -> BaselineInput {
    rebind_input(cause, head)
}

fn certified() -> Fx {
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    assert_eq!(fx.record.audit_state, AuditState::Certified);
    fx
}

fn carry(fx: &mut Fx, input: BaselineInput) {
    let ctx = fx.ctx();
    let applied = transition::carry(&fx.record, input, &[], &ctx)
        .unwrap()
        .unwrap();
    fx.keep(applied);
}

/// The gate's conclusion on commit `head` (no required checks).
fn gate(fx: &Fx, head: u8) -> Conclusion {
    let config = RepoConfig::default();
    let head = sha(head);
    evaluate(&GateInput {
        config: &config,
        operator_min: Assurance::Standard,
        head: head.sha(),
        records: Ok(vec![&fx.record]),
        closing_issues: &[],
        checks: &[],
        trust: None,
        certified_report: None,
        decisions: None,
    })
    .conclusion
}

#[test]
fn a_push_onto_an_identical_tree_carries_the_certification() {
    let mut fx = certified();
    assert_eq!(gate(&fx, 1), Conclusion::Success);
    carry(&mut fx, input(BaselineCause::Push, 2));
    let r = &fx.record;
    assert_eq!(r.audit_state, AuditState::Certified);
    assert_eq!(r.candidate_artifact, sha(2));
    assert_eq!(r.certified_artifact, Some(sha(2)));
    assert_eq!(r.runs_used(), 1, "no run spent");
    // Evidence text carries: the content is the same.
    assert_eq!(r.evidence.as_ref().map(|e| &e.given_for), Some(&sha(2)));
    let EventKind::Baseline(b) = &r.history.last().unwrap().kind else {
        panic!("{:?}", r.history.last());
    };
    assert_eq!(b.carried_from, Some(sha(1)));
    assert_eq!(r.certification_carried_to(), Some(&sha(2)));
    assert_eq!(gate(&fx, 2), Conclusion::Success);

    // The record reads back whole: chain, replayed fields and the new event fields.
    let again = load_record(&to_json(&fx.record)).unwrap();
    assert_eq!(again, fx.record);

    // A second carry (reopen) still rests on the one run.
    carry(&mut fx, input(BaselineCause::Reopen, 3));
    assert_eq!(fx.record.certified_artifact, Some(sha(3)));
    assert_eq!(gate(&fx, 3), Conclusion::Success);
}

#[test]
fn what_does_not_qualify_is_an_ordinary_rebind() {
    let cases: Vec<(&str, Fx, BaselineInput)> = vec![
        (
            "a manual baseline",
            certified(),
            input(BaselineCause::Manual, 2),
        ),
        (
            "a base change",
            certified(),
            input(BaselineCause::BaseChange, 2),
        ),
        (
            "other tasks",
            certified(),
            BaselineInput {
                covered_tasks: Some(vec![task("#99")]),
                ..input(BaselineCause::Push, 2)
            },
        ),
        (
            "evidence given anew",
            certified(),
            BaselineInput {
                evidence: Some("CI run 2 green".into()),
                ..input(BaselineCause::Push, 2)
            },
        ),
        (
            "an uncertified record",
            {
                let mut fx = Fx::new();
                fx.submit(Verdict::NeedsRemediation);
                fx
            },
            input(BaselineCause::Push, 2),
        ),
    ];
    for (name, mut fx, input) in cases {
        carry(&mut fx, input);
        let EventKind::Baseline(b) = &fx.record.history.last().unwrap().kind else {
            panic!("{name}");
        };
        assert_eq!(b.carried_from, None, "{name}");
        assert_ne!(fx.record.audit_state, AuditState::Certified, "{name}");
        assert_eq!(fx.record.certified_artifact, None, "{name}");
        assert_eq!(gate(&fx, 2), Conclusion::Failure, "{name}");
    }
}

#[test]
fn a_body_that_now_closes_a_task_outside_the_record_rebinds() {
    let mut fx = certified();
    let ctx = fx.ctx();
    let applied = transition::carry(
        &fx.record,
        input(BaselineCause::Push, 2),
        &[task("#41")],
        &ctx,
    )
    .unwrap()
    .unwrap();
    fx.keep(applied);
    let EventKind::Baseline(b) = &fx.record.history.last().unwrap().kind else {
        panic!("{:?}", fx.record.history.last());
    };
    assert_eq!(b.carried_from, None);
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(gate(&fx, 2), Conclusion::Failure);
}

#[test]
fn a_hand_written_carry_that_does_not_follow_the_certification_is_refused_on_load() {
    let mut fx = certified();
    carry(&mut fx, input(BaselineCause::Push, 2));
    // Edit the carry to claim another origin: the chain no longer holds, so the record is
    // structurally invalid (condition 1), whatever the derived fields say.
    let json = to_json(&fx.record).replace(&sha(1).to_string(), &sha(7).to_string());
    assert!(load_record(&json).is_err());
}
