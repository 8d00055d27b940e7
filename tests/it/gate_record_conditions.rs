//! Conditions 1–5 (docs/reference.md#gate-conditions): a table each, the passing case and each failure reason.

use crate::gate_support;

use auditloop::engine::gate::Outcome::{Fail, Pass};
use auditloop::engine::ids::{PrNumber, WorkUnit};
use auditloop::engine::record::{AuditState, Created, EventKind, Grade};
use auditloop::engine::report::Verdict;
use gate_support::*;

#[test]
fn condition_1_one_valid_record() {
    run_table(
        1,
        &[
            (
                "one intact record",
                |_| {},
                Pass,
                "AUD-7 is the one record of pr:42",
            ),
            (
                "records unreadable",
                |s| s.records = Err("the records branch is gone".into()),
                Fail,
                "cannot be read: the records branch is gone",
            ),
            (
                "no record",
                |s| s.records = Ok(vec![]),
                Fail,
                "no audit record for this PR; start one with /audit new",
            ),
            (
                "two records",
                |s| {
                    let mut other = certified_record();
                    other.id = "AUD-8".parse().unwrap_or_else(|e| panic!("{e}"));
                    s.records = Ok(vec![certified_record(), other]);
                },
                Fail,
                "2 records are current for this work unit (AUD-7, AUD-8)",
            ),
            (
                "an edited event",
                |s| s.record().history[0].actor = login("mallory"),
                Fail,
                "event 2 (report) does not chain to event 1",
            ),
            (
                "a missing prev",
                |s| s.record().history[1].prev = None,
                Fail,
                "does not chain",
            ),
            (
                "first event has a prev",
                |s| s.record().history[0].prev = Some("sha256:00".into()),
                Fail,
                "first event has a prev",
            ),
            (
                "history starts with a report",
                |s| {
                    let r = s.record();
                    r.history.remove(0);
                    rechain(r);
                },
                Fail,
                "starts with a report event",
            ),
            (
                "empty history",
                |s| s.record().history.clear(),
                Fail,
                "history is empty",
            ),
            (
                "old schema",
                |s| s.record().schema_version = 2,
                Fail,
                "schema_version is 2",
            ),
            (
                "second created",
                |s| {
                    let created = Created {
                        pull_request: PrNumber(42),
                        work_unit: WorkUnit::for_pull(PrNumber(42)),
                        goal: "again".into(),
                        completion_oracle: "again".into(),
                        evidence: None,
                        candidate_artifact: commit('a'),
                        covered_tasks: vec![],
                        audit_budget: 3,
                        candidate_pushed_by: None,
                    };
                    s.push(EventKind::Created(created));
                },
                Fail,
                "second created event",
            ),
            (
                "runs out of order",
                |s| {
                    s.push(EventKind::Report(report_run(
                        3,
                        Verdict::Certified,
                        commit('a'),
                    )));
                },
                Fail,
                "is run 3, expected run 2",
            ),
            (
                "runs in order",
                |s| {
                    s.push(EventKind::Report(report_run(
                        2,
                        Verdict::Certified,
                        commit('a'),
                    )));
                },
                Pass,
                "history of 3 events",
            ),
        ],
    );
}

#[test]
fn conditions_2_to_9_are_not_evaluated_without_a_record() {
    let s = Scenario {
        records: Ok(vec![]),
        ..Scenario::default()
    };
    let result = s.evaluate();
    assert_eq!(result.conditions.len(), 9);
    for number in 2..=9 {
        assert_condition("no record", &s, number, Fail, "not evaluated");
    }
}

#[test]
fn condition_2_candidate_is_head() {
    run_table(2, &[
        ("bound to head", |_| {}, Pass, "commit:aaaaaaa"),
        ("head moved", |s| s.head = sha('b'), Fail,
            "the record is bound to commit:aaaaaaa but the head is commit:bbbbbbb; run /audit baseline, or wait for the push to rebind it"),
        ("head moved, no push rebind", |s| {
            s.head = sha('b');
            s.config.baseline_on_push = false;
        }, Fail, "run /audit baseline (baseline_on_push is off)"),
    ]);
}

#[test]
fn condition_3_covered_tasks_exact() {
    run_table(3, &[
        ("exact", |_| {}, Pass, "(#12)"),
        ("closes nothing", |s| s.closing.clear(), Pass, "closes no other issue"),
        ("same set in another order", |s| {
            let r = s.record();
            r.covered_tasks = vec![task("#12"), task("T-1")];
            r.certified_covered_tasks = Some(vec![task("T-1"), task("#12")]);
        }, Pass, "#12, T-1"),
        ("nothing certified", |s| s.record().certified_covered_tasks = None, Fail, "no task set is certified yet"),
        ("certified set differs", |s| s.record().certified_covered_tasks = Some(vec![task("#12"), task("#13")]),
            Fail, "the certified tasks (#12, #13) differ from the covered tasks (#12)"),
        ("PR closes an uncovered issue", |s| s.closing = vec![task("#12"), task("#5")], Fail,
            "the PR body closes #5, not among the covered tasks; run /audit baseline --covered-tasks #12,#5"),
    ]);
}

#[test]
fn condition_4_verdict_and_state_certify() {
    run_table(
        4,
        &[
            (
                "certified",
                |_| {},
                Pass,
                "latest verdict certified, state certified",
            ),
            (
                "with accepted limitations",
                |s| s.record().latest_verdict = Some(Verdict::CertifiedWithAcceptedLimitations),
                Pass,
                "certified_with_accepted_limitations",
            ),
            (
                "awaiting human",
                |s| {
                    let r = s.record();
                    r.audit_state = AuditState::AwaitingHuman;
                    r.latest_verdict = Some(Verdict::NeedsHumanDecision);
                },
                Fail,
                "/audit resolve",
            ),
            (
                "blocked",
                |s| {
                    let r = s.record();
                    r.audit_state = AuditState::Blocked;
                    r.audit_budget = 1;
                    r.latest_verdict = Some(Verdict::NeedsRemediation);
                },
                Fail,
                "the audit budget is spent (1 of 1 runs used, latest verdict needs_remediation)",
            ),
            (
                "no report yet",
                |s| {
                    drop_runs(s);
                    let r = s.record();
                    r.audit_state = AuditState::Open;
                    r.latest_verdict = None;
                },
                Fail,
                "no report yet",
            ),
            (
                "stale after baseline",
                |s| s.record().audit_state = AuditState::Open,
                Fail,
                "stale",
            ),
            (
                "needs remediation",
                |s| {
                    let r = s.record();
                    r.audit_state = AuditState::Open;
                    r.latest_verdict = Some(Verdict::NeedsRemediation);
                },
                Fail,
                "latest verdict needs_remediation",
            ),
            (
                "state certified, verdict not",
                |s| s.record().latest_verdict = Some(Verdict::NeedsRemediation),
                Fail,
                "inconsistent",
            ),
        ],
    );
}

#[test]
fn condition_5_certification_matches_last_run() {
    run_table(
        5,
        &[
            (
                "matches",
                |_| {},
                Pass,
                "run 1 certified commit:aaaaaaa for #12",
            ),
            (
                "nothing certified",
                |s| s.record().certified_artifact = None,
                Fail,
                "nothing is certified yet",
            ),
            (
                "certified another commit",
                |s| s.record().certified_artifact = Some(commit('b')),
                Fail,
                "certification is for commit:bbbbbbb but the candidate is commit:aaaaaaa",
            ),
            ("no run backs it", drop_runs, Fail, "no run backs it"),
            (
                "run artifact differs",
                |s| s.set_last_run(report_run(1, Verdict::Certified, commit('b'))),
                Fail,
                "its artifact is commit:bbbbbbb",
            ),
            (
                "run tasks differ",
                |s| {
                    let mut run = s.last_run();
                    run.covered_tasks = vec![task("#13")];
                    s.set_last_run(run);
                },
                Fail,
                "its tasks are #13",
            ),
            (
                "run verdict differs",
                |s| {
                    s.set_last_run(report_run(
                        1,
                        Verdict::CertifiedWithAcceptedLimitations,
                        commit('a'),
                    ));
                },
                Fail,
                "its verdict is certified_with_accepted_limitations",
            ),
            (
                "run grade differs",
                |s| s.record().certification_grade = Some(Grade::Authenticated),
                Fail,
                "its grade is session_reported",
            ),
        ],
    );
}
