//! One table per gate condition (CONTRACT §8): the passing case and each failure reason.

mod gate_support;

use auditloop::engine::config::{Archetype, Assurance, CompletionGate};
use auditloop::engine::gate::CheckStatus::{Completed, InProgress, Queued};
use auditloop::engine::gate::Outcome::{self, Fail, Pass, Pending};
use auditloop::engine::record::{
    AuditState, Created, EventKind, FindingRef, Grade, Waiver, WaiverBasis,
};
use auditloop::engine::report::Verdict;
use auditloop::ids::{FindingId, PrNumber, WorkUnit};
use gate_support::*;

type Change = fn(&mut Scenario);
type Case = (&'static str, Change, Outcome, &'static str);

fn run_table(number: u8, cases: &[Case]) {
    for (name, change, outcome, needle) in cases {
        let mut s = Scenario::default();
        change(&mut s);
        assert_condition(name, &s, number, *outcome, needle);
    }
}

fn drop_runs(s: &mut Scenario) {
    let r = s.record();
    r.history
        .retain(|e| !matches!(e.kind, EventKind::Report(_)));
    rechain(r);
}

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
                    )))
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
                    )))
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
        ("bound to head", |_| {}, Pass, "commit:aaaaaaaaaa"),
        ("head moved", |s| s.head = sha('b'), Fail,
            "the record is bound to commit:aaaaaaa but the head is commit:bbbbbbb; run /audit baseline or wait for the push rebind"),
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
                "audit budget exhausted (1 of 1 runs used, latest verdict needs_remediation)",
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

fn with_findings(s: &mut Scenario, findings: Vec<auditloop::engine::record::FindingSummary>) {
    let mut run = s.last_run();
    run.findings = findings;
    s.set_last_run(run);
}

#[test]
fn condition_6_no_unresolved_blocking_finding() {
    run_table(
        6,
        &[
            (
                "clean run",
                |_| {},
                Pass,
                "run 1 reports no blocking finding",
            ),
            (
                "only non-blocking",
                |s| with_findings(s, vec![finding("A-01", Some("nit"), false)]),
                Pass,
                "no blocking",
            ),
            ("no run", drop_runs, Fail, "no report yet"),
            (
                "blocking findings",
                |s| {
                    with_findings(
                        s,
                        vec![
                            finding("A-01", None, true),
                            finding("A-02", None, false),
                            finding("A-03", Some("x"), true),
                        ],
                    )
                },
                Fail,
                "run 1 reports 2 blocking findings (A-01, A-03)",
            ),
            (
                "vetoed key in force",
                |s| {
                    with_findings(s, vec![finding("A-02", Some("webhook-replay"), false)]);
                    s.push(veto("webhook-replay", 1));
                },
                Fail,
                "A-02 (key webhook-replay) is under a veto since round 1",
            ),
            (
                "veto not yet in force",
                |s| {
                    with_findings(s, vec![finding("A-02", Some("webhook-replay"), false)]);
                    s.push(veto("webhook-replay", 2));
                },
                Pass,
                "none under a veto",
            ),
            (
                "veto of another key",
                |s| {
                    with_findings(s, vec![finding("A-02", Some("webhook-replay"), false)]);
                    s.push(veto("other", 1));
                },
                Pass,
                "none under a veto",
            ),
            (
                "a waiver does not clear a blocking finding",
                |s| {
                    with_findings(s, vec![finding("A-01", Some("k"), true)]);
                    s.push(EventKind::Waiver(Waiver {
                        findings: vec![FindingRef {
                            id: FindingId::new("A-01").unwrap_or_else(|e| panic!("{e}")),
                            key: Some(key("k")),
                            run: 1,
                        }],
                        basis: WaiverBasis::TriageThreshold,
                        reason: "out of scope".into(),
                        authority: "human: maintainer".into(),
                    }));
                },
                Fail,
                "1 blocking finding (A-01)",
            ),
        ],
    );
}

fn with_limitation(s: &mut Scenario, authority: Option<&str>) {
    let mut run = s.last_run();
    run.limitations = vec![limitation("L-01", "no-ghes-e2e", authority)];
    s.set_last_run(run);
}

#[test]
fn condition_7_limitations_have_an_authority() {
    run_table(7, &[
        ("no limitation", |_| {}, Pass, "run 1 records no limitation"),
        ("no run", drop_runs, Fail, "no report yet"),
        ("decision record", |s| with_limitation(s, Some("D-3")), Pass, "(L-01) has an authority"),
        ("accepted by that human", |s| {
            s.push(acceptance("no-ghes-e2e"));
            with_limitation(s, Some("human: maintainer"));
        }, Pass, "has an authority"),
        ("login compared case-insensitively", |s| {
            s.push(acceptance("no-ghes-e2e"));
            with_limitation(s, Some("human: Maintainer"));
        }, Pass, "has an authority"),
        ("no authority", |s| with_limitation(s, None), Fail,
            "L-01 (key no-ghes-e2e) has no authority; a maintainer accepts it with /audit resolve L-01"),
        ("untyped authority", |s| with_limitation(s, Some("the team")), Fail, "neither `human: LOGIN` nor `D-<n>`"),
        ("bad decision number", |s| with_limitation(s, Some("D-0")), Fail, "neither"),
        ("human never accepted", |s| with_limitation(s, Some("human: maintainer")), Fail,
            "no acceptance of key no-ghes-e2e by maintainer"),
        ("someone else accepted", |s| {
            s.push(acceptance("no-ghes-e2e"));
            with_limitation(s, Some("human: octocat"));
        }, Fail, "by octocat"),
        ("another key accepted", |s| {
            s.push(acceptance("other-key"));
            with_limitation(s, Some("human: maintainer"));
        }, Fail, "no acceptance"),
    ]);
}

#[test]
fn condition_8_evidence_for_the_head() {
    use auditloop::engine::record::Evidence;
    run_table(8, &[
        ("evidence text for head", |_| {}, Pass, "evidence text was given for commit:aaaa"),
        ("evidence text for an old commit", |s| {
            s.record().evidence = Some(Evidence { text: "old".into(), given_for: commit('b') });
        }, Fail, "given for commit:bbbbbbb, not the head commit:aaaaaaa"),
        ("no evidence text", |s| s.record().evidence = None, Fail, "no evidence for commit:aaaa"),
        ("required check succeeded, text informational", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.record().evidence = None;
            s.checks = vec![success("test")];
        }, Pass, "required check `test` succeeded"),
        ("required check has no run", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![success("lint")];
        }, Fail, "required check `test` has no run on commit:aaaa"),
        ("required check failed", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![check("test", Completed, Some("failure"))];
        }, Fail, "required check `test` concluded failure"),
        ("completed without conclusion", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![check("test", Completed, None)];
        }, Fail, "without a conclusion"),
        ("required check queued", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![check("test", Queued, None)];
        }, Pending, "still running"),
        ("required check in progress", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![check("test", InProgress, None)];
        }, Pending, "still running"),
        ("failure outweighs pending", |s| {
            s.config.evidence.required_checks = vec!["test".into(), "clippy".into()];
            s.checks = vec![check("test", InProgress, None), check("clippy", Completed, Some("failure"))];
        }, Fail, "`clippy` concluded failure"),
        ("latest observation counts", |s| {
            s.config.evidence.required_checks = vec!["test".into()];
            s.checks = vec![check("test", Completed, Some("failure")), success("test")];
        }, Pass, "succeeded"),
        ("our own check is no evidence", |s| {
            s.config.evidence.required_checks = vec!["audit-gate".into()];
            s.checks = vec![success("audit-gate")];
        }, Fail, "`audit-gate` has no run"),
        ("research asks no gate", |s| s.config.evidence.archetype = Some(Archetype::Research), Pass, "evidence text"),
        ("unmapped gate", |s| s.config.evidence.archetype = Some(Archetype::Audit), Fail,
            "completion gate `integration` of archetype audit maps to no check; add evidence.gates.integration"),
        ("mapped gates proven", |s| {
            s.config.evidence.archetype = Some(Archetype::Audit);
            s.config.evidence.gates.insert(CompletionGate::Integration, vec!["it".into()]);
            s.config.evidence.gates.insert(CompletionGate::Security, vec!["deny".into(), "audit".into()]);
            s.checks = vec![success("it"), check("deny", Completed, Some("failure")), success("audit")];
        }, Pass, "completion gate `security` proven by `audit`"),
        ("mapped gate failed", |s| {
            s.config.evidence.archetype = Some(Archetype::Audit);
            s.config.evidence.gates.insert(CompletionGate::Integration, vec!["it".into()]);
            s.config.evidence.gates.insert(CompletionGate::Security, vec!["deny".into()]);
            s.checks = vec![success("it"), check("deny", Completed, Some("cancelled"))];
        }, Fail, "completion gate `security`: none of `deny` succeeded"),
        ("mapped gate running", |s| {
            s.config.evidence.archetype = Some(Archetype::Audit);
            s.config.evidence.gates.insert(CompletionGate::Integration, vec!["it".into()]);
            s.config.evidence.gates.insert(CompletionGate::Security, vec!["deny".into()]);
            s.checks = vec![success("it"), check("deny", Queued, None)];
        }, Pending, "completion gate `security` waits for `deny`"),
        ("implementation needs docs too", |s| {
            s.config.evidence.archetype = Some(Archetype::Implementation);
            for gate in [CompletionGate::Build, CompletionGate::Lint, CompletionGate::Integration, CompletionGate::Security] {
                s.config.evidence.gates.insert(gate, vec!["ci".into()]);
            }
            s.checks = vec![success("ci")];
        }, Fail, "completion gate `docs` of archetype implementation maps to no check"),
        ("hybrid needs build", |s| {
            s.config.evidence.archetype = Some(Archetype::Hybrid);
            s.checks = vec![success("ci")];
        }, Fail, "completion gate `build`"),
    ]);
}

fn authenticate(s: &mut Scenario) {
    let mut run = s.last_run();
    run.grade = Grade::Authenticated;
    s.set_last_run(run);
    s.record().certification_grade = Some(Grade::Authenticated);
}

#[test]
fn condition_9_grade_meets_assurance() {
    run_table(9, &[
        ("standard accepts session_reported", |_| {}, Pass, "grade session_reported meets standard assurance"),
        ("repository hardened", |s| s.config.assurance = Assurance::Hardened, Fail,
            "certified at grade session_reported, but assurance is hardened, which needs authenticated"),
        ("operator hardened", |s| s.operator_min = Assurance::Hardened, Fail, "hardened (operator minimum)"),
        ("hardened and authenticated", |s| {
            s.config.assurance = Assurance::Hardened;
            authenticate(s);
        }, Pass, "grade authenticated meets hardened assurance"),
        ("no grade", |s| s.record().certification_grade = None, Fail, "no certified grade yet"),
    ]);
}
