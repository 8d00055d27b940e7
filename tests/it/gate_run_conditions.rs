//! Conditions 6–9 (docs/reference.md#gate-conditions): a table each, the passing case and each failure reason.

use crate::gate_support;

use auditloop::engine::gate::CheckStatus::{Completed, InProgress, Queued};
use auditloop::engine::gate::Outcome::{Fail, Pass, Pending};
use auditloop::engine::ids::FindingId;
use auditloop::engine::record::{
    EventKind, FindingRef, FindingSummary, Grade, Waiver, WaiverBasis,
};
use auditloop::engine::repo_config::{Archetype, Assurance, CompletionGate};
use gate_support::*;

fn with_findings(s: &mut Scenario, findings: Vec<FindingSummary>) {
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
                    );
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
                "A-02 (webhook-replay) is under a veto since round 1",
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
            "L-01 (no-ghes-e2e) has no authority; a maintainer accepts it with /audit resolve L-01"),
        ("untyped authority", |s| with_limitation(s, Some("the team")), Fail, "neither `human: LOGIN` nor `D-<n>`"),
        ("bad decision number", |s| with_limitation(s, Some("D-0")), Fail, "neither"),
        ("human never accepted", |s| with_limitation(s, Some("human: maintainer")), Fail,
            "no acceptance of no-ghes-e2e by maintainer"),
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

#[test]
fn condition_6_a_later_veto_does_not_lift_an_earlier_one() {
    run_table(
        6,
        &[(
            "vetoed from round 1, then again from round 3",
            |s| {
                with_findings(s, vec![finding("A-02", Some("webhook-replay"), false)]);
                s.push(veto("webhook-replay", 1));
                s.push(veto("webhook-replay", 3));
            },
            Fail,
            "A-02 (webhook-replay) is under a veto since round 1",
        )],
    );
}
