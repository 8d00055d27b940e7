//! Conditions 6–9 (docs/reference.md#gate-conditions): a table each, the passing case and each failure reason.

use crate::gate_support;

use auditloop::engine::gate::CheckStatus::{Completed, InProgress, Queued};
use auditloop::engine::gate::Outcome::{Fail, Pass, Pending};
use auditloop::engine::ids::FindingId;
use auditloop::engine::receipt::{signing_bytes, TrustStore};
use auditloop::engine::record::{
    EventKind, FindingRef, FindingSummary, Grade, Waiver, WaiverBasis,
};
use auditloop::engine::repo_config::{Archetype, Assurance, CompletionGate};
use auditloop::engine::report::{parse_report, Receipt};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::Signer as _;
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

/// A report whose normalized digest the last run records, as the branch stores it.
fn stored_report(s: &mut Scenario) -> String {
    let text = serde_json::to_string_pretty(&crate::support::audit::report(
        "AUD-7",
        42,
        &"1".repeat(40),
        "ci-run-1",
        "certified",
    ))
    .unwrap();
    let digest = parse_report(&text).unwrap().digest.to_string();
    let mut run = s.last_run();
    run.report_digest = digest;
    s.set_last_run(run);
    text
}

/// The last run authenticated by a receipt that binds it as recorded, then `tamper`ed
/// before signing: what a forged or misfiled receipt would bind.
fn signed_by_pinned_key(s: &mut Scenario, tamper: fn(&mut Receipt)) {
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let (id, unit) = (s.record().id.to_string(), s.record().work_unit.to_string());
    let mut run = s.last_run();
    let mut receipt = Receipt {
        version: 1,
        key_id: "ci-auditor-1".into(),
        receipt_id: "b1946ac9-0000-4000-8000-000000000009".into(),
        role: "auditor".into(),
        repository: "octo-org/hello".into(),
        audit_id: id,
        work_unit: unit,
        invocation_ref: run.invocation_ref.clone(),
        candidate_artifact: run.candidate_artifact.to_string(),
        covered_tasks: run.covered_tasks.iter().map(ToString::to_string).collect(),
        report_digest: run.report_digest.clone(),
        issued_at: "2026-11-29T10:00:00Z".into(),
        expires_at: "2026-11-29T11:00:00Z".into(),
        signature: String::new(),
    };
    tamper(&mut receipt);
    let signature = key.sign(&signing_bytes(&receipt));
    receipt.signature = STANDARD.encode(signature.to_bytes());
    run.receipt = Some(Box::new(receipt));
    s.set_last_run(run);
    authenticate(s);
    s.trust = Some(TrustStore::with_keys([(
        "ci-auditor-1".to_owned(),
        key.verifying_key(),
    )]));
}

#[test]
fn condition_9_verifies_every_binding_a_receipt_signs_and_every_stored_report() {
    run_table(9, &[
        ("a receipt that binds the run as recorded", |s| {
            s.config.assurance = Assurance::Hardened;
            signed_by_pinned_key(s, |_| {});
        }, Pass, "grade authenticated meets hardened assurance"),
        ("a receipt of another record", |s| {
            s.config.assurance = Assurance::Hardened;
            signed_by_pinned_key(s, |r| r.audit_id = "AUD-8".into());
        }, Fail, "its receipt names audit_id"),
        ("a receipt of another work unit", |s| {
            s.config.assurance = Assurance::Hardened;
            signed_by_pinned_key(s, |r| r.work_unit = "pr:43".into());
        }, Fail, "its receipt names work_unit"),
        ("a receipt of other tasks", |s| {
            s.config.assurance = Assurance::Hardened;
            signed_by_pinned_key(s, |r| r.covered_tasks = vec!["#12".into(), "#13".into()]);
        }, Fail, "its receipt names covered_tasks"),
        ("a misbound receipt under standard counts as session_reported", |s| {
            signed_by_pinned_key(s, |r| r.work_unit = "pr:43".into());
        }, Pass, "grade session_reported (recorded authenticated, but it counts as session_reported now"),
        ("a session_reported run's stored report as recorded", |s| {
            let text = stored_report(s);
            s.certified_report = Some(text);
        }, Pass, "grade session_reported meets standard assurance"),
        ("a session_reported run's stored report changed", |s| {
            let text = stored_report(s);
            s.certified_report = Some(text.replace("certified", "certified ").replacen("assessment\": \"", "assessment\": \"Trust me. ", 1));
        }, Fail, "certified at grade session_reported, but its stored report reports/AUD-7/run-1.json no longer has the digest the run recorded"),
        ("an authenticated run's stored report changed", |s| {
            let text = stored_report(s);
            signed_by_pinned_key(s, |_| {});
            s.certified_report = Some(text.replacen("assessment\": \"", "assessment\": \"Trust me. ", 1));
        }, Fail, "certified at grade authenticated, but its stored report reports/AUD-7/run-1.json no longer has the digest its receipt signed"),
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
