//! `baseline` and `adopt`: rebinding keeps history and budget, clears stale certification,
//! and evidence counts only for the commit it was given for.

use crate::record_support;

use auditloop::engine::ids::PrNumber;
use auditloop::engine::record::{AuditState, BaselineCause, EventKind};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition::{self, AdoptInput, Applied, BaselineInput, Refusal};
use record_support::*;

fn input(cause: BaselineCause, head: u8) -> BaselineInput {
    rebind_input(cause, head)
}

fn rebase(fx: &mut Fx, input: BaselineInput) -> Result<Option<Applied>, Refusal> {
    let ctx = fx.ctx();
    let out = transition::baseline(&fx.record, input, &ctx)?;
    if let Some(applied) = out.clone() {
        fx.keep(applied);
    }
    Ok(out)
}

#[test]
fn state_after_baseline_table() {
    use AuditState::*;
    let cases: Vec<(&str, Vec<Verdict>, AuditState)> = vec![
        ("certified becomes open", vec![Verdict::Certified], Open),
        ("open stays open", vec![Verdict::NeedsRemediation], Open),
        (
            "awaiting stays",
            vec![Verdict::NeedsHumanDecision],
            AwaitingHuman,
        ),
        ("blocked stays", vec![Verdict::NeedsRemediation; 3], Blocked),
    ];
    for (name, verdicts, state) in cases {
        let mut fx = Fx::new();
        for v in &verdicts {
            fx.submit(*v);
        }
        let budget = fx.record.audit_budget;
        let runs = fx.record.runs_used();
        rebase(&mut fx, input(BaselineCause::Manual, 2))
            .unwrap()
            .unwrap();
        assert_eq!(fx.record.audit_state, state, "{name}");
        assert_eq!(fx.record.certified_artifact, None, "{name}");
        assert_eq!(fx.record.certification_grade, None, "{name}");
        assert_eq!(fx.record.candidate_artifact, sha(2), "{name}");
        assert_eq!(fx.record.audit_budget, budget, "{name}");
        assert_eq!(fx.record.runs_used(), runs, "{name}");
        assert_eq!(fx.record.latest_verdict, verdicts.last().copied(), "{name}");
    }
}

#[test]
fn evidence_counts_only_for_its_commit() {
    let mut fx = Fx::new();
    rebase(&mut fx, input(BaselineCause::Push, 2))
        .unwrap()
        .unwrap();
    assert_eq!(fx.record.evidence, None);
    let given = BaselineInput {
        evidence: Some("tests pass on 2".into()),
        ..input(BaselineCause::Manual, 2)
    };
    rebase(&mut fx, given).unwrap().unwrap();
    let ev = fx.record.evidence.clone().unwrap();
    assert_eq!(
        (ev.text.as_str(), ev.given_for),
        ("tests pass on 2", sha(2))
    );
    // Same head, new tasks: evidence for that head is kept.
    let tasks = BaselineInput {
        covered_tasks: Some(vec![task("T-7")]),
        ..input(BaselineCause::Manual, 2)
    };
    rebase(&mut fx, tasks).unwrap().unwrap();
    assert_eq!(fx.record.covered_tasks, vec![task("T-7")]);
    assert_eq!(
        fx.record.evidence.as_ref().map(|e| &e.given_for),
        Some(&sha(2))
    );
}

#[test]
fn no_op_baseline_is_none() {
    let mut fx = Fx::new();
    let before = fx.record.clone();
    assert_eq!(
        rebase(&mut fx, input(BaselineCause::Push, 1)).unwrap(),
        None
    );
    assert_eq!(
        rebase(&mut fx, input(BaselineCause::Manual, 1)).unwrap(),
        None
    );
    let reordered = BaselineInput {
        covered_tasks: Some(vec![task("T-041"), task("#12")]),
        ..input(BaselineCause::Push, 1)
    };
    assert_eq!(rebase(&mut fx, reordered).unwrap(), None);
    assert_eq!(fx.record, before);
}

#[test]
fn same_head_task_change_clears_certification() {
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    let tasks = BaselineInput {
        covered_tasks: Some(vec![task("#12")]),
        ..input(BaselineCause::Manual, 1)
    };
    rebase(&mut fx, tasks).unwrap().unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(fx.record.certified_covered_tasks, None);
}

/// docs/reference.md#baseline: a baseline that changes neither the candidate nor the covered tasks
/// (only the evidence text) keeps a current certification; changing either ends it.
#[test]
fn same_head_and_tasks_keep_a_current_certification_and_a_change_of_either_ends_it() {
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    let tasks = fx.record.covered_tasks.clone();
    let certified = fx.record.certified_artifact.clone();
    let evidence_only = BaselineInput {
        evidence: Some("CI run 2 green on the same head".into()),
        covered_tasks: Some(tasks.clone()),
        ..input(BaselineCause::Manual, 1)
    };
    rebase(&mut fx, evidence_only).unwrap().unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Certified);
    assert_eq!(fx.record.certified_artifact, certified);
    assert_eq!(fx.record.certified_covered_tasks, Some(tasks.clone()));
    assert_eq!(
        fx.record.evidence.as_ref().map(|e| e.text.as_str()),
        Some("CI run 2 green on the same head")
    );
    // The other half: a new head ends it.
    rebase(&mut fx, input(BaselineCause::Manual, 2))
        .unwrap()
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(fx.record.certified_artifact, None);
}

#[test]
fn base_change_clears_certification_on_the_same_head() {
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    assert_eq!(
        rebase(&mut fx, input(BaselineCause::Push, 1)).unwrap(),
        None,
        "a push of the same head changes nothing"
    );
    rebase(&mut fx, input(BaselineCause::BaseChange, 1))
        .unwrap()
        .unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Open);
    assert_eq!(fx.record.certified_artifact, None);
}

#[test]
fn baseline_refusals() {
    let mut fx = Fx::new();
    let other_pr = BaselineInput {
        pull_request: PrNumber(9),
        ..input(BaselineCause::Manual, 2)
    };
    assert_rule(rebase(&mut fx, other_pr), "wrong-pull-request");
    let empty = BaselineInput {
        covered_tasks: Some(vec![]),
        ..input(BaselineCause::Manual, 2)
    };
    assert_rule(rebase(&mut fx, empty), "no-covered-tasks");
}

fn adopt_input(closed: bool) -> AdoptInput {
    AdoptInput {
        pull_request: PrNumber(43),
        head: sha(5),
        source_closed_unmerged: closed,
        covered_tasks: None,
        evidence: None,
    }
}

#[test]
fn adopt_moves_the_record() {
    let mut fx = Fx::new();
    fx.submit(Verdict::NeedsRemediation);
    let ctx = fx.ctx();
    let applied = transition::adopt(&fx.record, &fx.index, adopt_input(true), &ctx).unwrap();
    let EventKind::Baseline(b) = &applied.event.kind else {
        panic!("a baseline event")
    };
    assert_eq!(b.cause, BaselineCause::Adopt);
    fx.keep(applied);
    assert_eq!(fx.record.pull_request, PrNumber(43));
    assert_eq!(fx.record.candidate_artifact, sha(5));
    assert_eq!(fx.record.runs_used(), 1);
    assert_eq!(fx.record.work_unit.as_str(), "pr:42");
    assert_eq!(fx.index.pulls.get("43"), Some(&fx.record.id));
    assert_eq!(fx.index.pulls.get("42"), None);
}

#[test]
fn adopt_refusals() {
    let mut fx = Fx::new();
    let ctx = fx.ctx();
    assert_rule(
        transition::adopt(&fx.record, &fx.index, adopt_input(false), &ctx),
        "adopt-source-active",
    );
    fx.index.pulls.insert(
        "43".into(),
        auditloop::engine::ids::AuditId::new("AUD-9").unwrap(),
    );
    assert_rule(
        transition::adopt(&fx.record, &fx.index, adopt_input(true), &ctx),
        "pull-has-record",
    );
}
