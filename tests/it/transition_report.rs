//! `accept_report`: every record-dependent rule, the effects of a run, and the budget rules (docs/reference.md#budget).

use crate::record_support;

use auditloop::engine::ids::{AuditId, WorkUnit};
use auditloop::engine::layout::report_path;
use auditloop::engine::record::{AuditState, EventKind, Grade, WaiverBasis};
use auditloop::engine::repo_config::Assurance;
use auditloop::engine::report::{Report, Verdict};
use auditloop::engine::transition::{self, VerifiedReceipt};
use record_support::*;

type Setup = fn(&mut Fx);
type Mutate = fn(&mut Report);

fn nothing(_: &mut Fx) {}
fn same(_: &mut Report) {}

fn three_remediations(fx: &mut Fx) {
    for _ in 0..3 {
        fx.submit(Verdict::NeedsRemediation);
    }
}

fn veto_key_now(fx: &mut Fx) {
    fx.apply(|r, c| transition::veto(r, &key("webhook-replay"), None, "must fix", c))
        .unwrap();
}

fn with_keyed_finding(r: &mut Report) {
    r.findings = vec![finding("A-01", Some("webhook-replay"), false)];
}

fn cwal(authority: Option<&'static str>) -> impl Fn(&mut Report) {
    move |r: &mut Report| {
        r.verdict = Verdict::CertifiedWithAcceptedLimitations;
        r.limitations = Some(vec![limitation("L-01", "no-ghes-e2e", authority)]);
    }
}

/// Runs a `needs_human_decision` report listing `no-ghes-e2e`, accepted by `who`.
fn accepted_by(fx: &mut Fx, who: &str, limitation_key: &str) {
    let mut r = fx.report(Verdict::NeedsHumanDecision);
    r.limitations = Some(vec![limitation("L-01", limitation_key, None)]);
    fx.try_submit(&r).unwrap();
    let ctx = fx.ctx_as(who);
    let applied = transition::accept_limitations(&fx.record, &[lid("L-01")], "ok", &ctx).unwrap();
    fx.keep(applied);
}

#[test]
fn refusal_table() {
    type Edit = Box<dyn Fn(&mut Report)>;
    let cases: Vec<(&str, Setup, Edit, &str)> = vec![
        (
            "audit id",
            nothing,
            Box::new(|r| r.audit_id = AuditId::new("AUD-99").unwrap()),
            "audit-id-mismatch",
        ),
        (
            "work unit",
            nothing,
            Box::new(|r| r.work_unit = WorkUnit::new("phase:4").unwrap()),
            "work-unit-mismatch",
        ),
        (
            "stale candidate",
            nothing,
            Box::new(|r| r.candidate_artifact = sha(9)),
            "stale-candidate",
        ),
        (
            "task set",
            nothing,
            Box::new(|r| r.covered_tasks = vec![task("#12")]),
            "covered-tasks-mismatch",
        ),
        (
            "extra task",
            nothing,
            Box::new(|r| r.covered_tasks.push(task("T-099"))),
            "covered-tasks-mismatch",
        ),
        (
            "ref used in index",
            |fx| {
                fx.index
                    .invocations
                    .insert("ci-run-1".into(), AuditId::new("AUD-5").unwrap());
            },
            Box::new(same as Mutate),
            "invocation-ref-reused",
        ),
        (
            "awaiting human",
            |fx| {
                fx.submit(Verdict::NeedsHumanDecision);
            },
            Box::new(same as Mutate),
            "awaiting-human",
        ),
        (
            "blocked",
            three_remediations,
            Box::new(same as Mutate),
            "budget-exhausted",
        ),
        (
            "already certified",
            |fx| {
                fx.submit(Verdict::Certified);
            },
            Box::new(same as Mutate),
            "already-certified",
        ),
        (
            "veto in force",
            veto_key_now,
            Box::new(with_keyed_finding),
            "vetoed-finding",
        ),
        (
            "cwal without authority",
            nothing,
            Box::new(cwal(None)),
            "limitation-without-authority",
        ),
        (
            "cwal prose authority",
            nothing,
            Box::new(cwal(Some("the team agreed"))),
            "limitation-authority-invalid",
        ),
        (
            "cwal human never accepted",
            nothing,
            Box::new(cwal(Some("human: octocat"))),
            "limitation-not-accepted",
        ),
        (
            "cwal accepted by someone else",
            |fx| accepted_by(fx, "hubot", "no-ghes-e2e"),
            Box::new(cwal(Some("human: octocat"))),
            "limitation-not-accepted",
        ),
        (
            "cwal accepted another key",
            |fx| accepted_by(fx, "octocat", "other-key"),
            Box::new(cwal(Some("human: octocat"))),
            "limitation-not-accepted",
        ),
        (
            "cwal missing decision",
            nothing,
            Box::new(cwal(Some("D-3"))),
            "decision-record-missing",
        ),
    ];
    for (name, setup, mutate, rule) in cases {
        let mut fx = Fx::new();
        setup(&mut fx);
        let mut report = fx.report(Verdict::Certified);
        // The first report of a fixture uses ci-run-1 unless setup already submitted.
        if name == "ref used in index" {
            report.invocation.reference = "ci-run-1".into();
        }
        mutate(&mut report);
        let before = fx.record.clone();
        let result = fx.try_submit(&report);
        assert!(result.is_err(), "{name}: expected refusal");
        assert_rule(result, rule);
        assert_eq!(fx.record, before, "{name}: nothing recorded");
    }
}

#[test]
fn stale_candidate_names_the_current_one() {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::Certified);
    r.candidate_artifact = sha(9);
    let err = fx.try_submit(&r).unwrap_err();
    assert!(err.to_string().contains("stale"));
    assert!(err.to_string().contains(&sha(1).to_string()));
    assert!(err.fix().contains(&format!("commit:{}", sha(1).short())));
}

#[test]
fn invocation_ref_and_receipt_are_single_use() {
    let mut fx = Fx::new();
    let receipt = VerifiedReceipt {
        receipt_id: "rcpt-1".into(),
        key_id: "ci-auditor-1".into(),
    };
    let first = fx.report(Verdict::NeedsRemediation);
    fx.try_submit_with(&first, Some(&receipt), false).unwrap();
    assert_rule(fx.try_submit(&first), "invocation-ref-reused");
    let fresh = fx.report(Verdict::NeedsRemediation);
    assert_rule(
        fx.try_submit_with(&fresh, Some(&receipt), false),
        "receipt-reused",
    );
    // The ref is also unique within the record even if the index lost it.
    fx.index.invocations.clear();
    assert_rule(fx.try_submit(&first), "invocation-ref-reused");
}

#[test]
fn hardened_assurance_needs_a_receipt_and_no_handoff() {
    let mut fx = Fx::new();
    fx.policy.assurance = Assurance::Hardened;
    let r = fx.report(Verdict::NeedsRemediation);
    assert_rule(fx.try_submit(&r), "receipt-required");
    let receipt = VerifiedReceipt {
        receipt_id: "rcpt-1".into(),
        key_id: "k".into(),
    };
    assert_rule(
        fx.try_submit_with(&r, Some(&receipt), true),
        "handoff-under-hardened",
    );
    let applied = fx.try_submit_with(&r, Some(&receipt), false).unwrap();
    let EventKind::Report(run) = applied.event.kind else {
        panic!()
    };
    assert_eq!(run.grade, Grade::Authenticated);
}

#[test]
fn veto_from_a_later_round_is_not_yet_in_force() {
    let mut fx = Fx::new();
    fx.apply(|r, c| transition::veto(r, &key("webhook-replay"), Some(2), "later", c))
        .unwrap();
    let mut r = fx.report(Verdict::Certified);
    with_keyed_finding(&mut r);
    fx.try_submit(&r).unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Certified);
}

#[test]
fn veto_only_blocks_certifying_verdicts() {
    let mut fx = Fx::new();
    veto_key_now(&mut fx);
    let mut r = fx.report(Verdict::NeedsRemediation);
    with_keyed_finding(&mut r);
    fx.try_submit(&r).unwrap();
}

#[test]
fn limitation_authorities_that_hold() {
    let mut fx = Fx::new();
    accepted_by(&mut fx, "OctoCat", "no-ghes-e2e");
    let mut r = fx.report(Verdict::Certified);
    cwal(Some("human: octocat"))(&mut r);
    fx.try_submit(&r).unwrap();
    assert_eq!(fx.record.audit_state, AuditState::Certified);

    let mut fx = Fx::new();
    fx.decisions.insert(3);
    let mut r = fx.report(Verdict::Certified);
    cwal(Some("D-3"))(&mut r);
    fx.try_submit(&r).unwrap();
    assert_eq!(
        fx.record.latest_verdict,
        Some(Verdict::CertifiedWithAcceptedLimitations)
    );
}

#[test]
fn effects_of_a_run() {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![finding("A-01", Some("k"), true)];
    let applied = fx.try_submit(&r).unwrap();
    assert_eq!(fx.record.history.last(), Some(&applied.event));
    let EventKind::Report(run) = &applied.event.kind else {
        panic!("a report event")
    };
    assert_eq!(run.run, 1);
    assert_eq!(run.report, report_path(&fx.record.id, 1));
    assert_eq!(run.grade, Grade::SessionReported);
    assert_eq!(run.covered_tasks, fx.record.covered_tasks);
    assert_eq!(run.findings.len(), 1);
    assert_eq!(run.elegance, Some(4));
    assert_eq!(fx.index.invocations.get("ci-run-1"), Some(&fx.record.id));
    assert_eq!(fx.record.latest_verdict, Some(Verdict::NeedsRemediation));
    assert_eq!(fx.record.audit_state, AuditState::Open);

    let receipt = VerifiedReceipt {
        receipt_id: "rcpt-9".into(),
        key_id: "k".into(),
    };
    let r = fx.report(Verdict::Certified);
    fx.try_submit_with(&r, Some(&receipt), false).unwrap();
    assert_eq!(fx.index.receipts.get("rcpt-9"), Some(&fx.record.id));
    assert_eq!(fx.record.certification_grade, Some(Grade::Authenticated));
    assert_eq!(fx.record.producer_authenticated, Some(true));
    assert_eq!(fx.record.certified_artifact, Some(sha(1)));
    assert_eq!(
        fx.record.certified_covered_tasks.as_ref(),
        Some(&fx.record.covered_tasks)
    );
    assert_eq!(fx.record.runs_used(), 2);
}

#[test]
fn waivers_and_dispositions_never_change_the_state() {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![finding("A-01", Some("k"), true)];
    fx.try_submit(&r).unwrap();
    let before = (fx.record.audit_state, fx.record.latest_verdict);
    fx.apply(|r, c| transition::waive(r, &[fid("A-01")], WaiverBasis::TriageThreshold, "later", c))
        .unwrap();
    assert_eq!((fx.record.audit_state, fx.record.latest_verdict), before);
}
