//! Properties of the conclusion over arbitrary records, histories, checks and settings:
//! never `Success` while a condition fails, `InProgress` only when the sole non-pass is a
//! pending condition 8, and no input makes the gate panic.

// The generated inputs are overrides of optional fields (`Some(None)`: clear the field) and
// on/off switches for events, which is what these types say.
#![allow(clippy::option_option, clippy::struct_excessive_bools)]

use crate::gate_support;

use proptest::prelude::*;

use auditloop::engine::gate::{CheckObservation, CheckStatus, Conclusion, GateResult, Outcome};
use auditloop::engine::record::{AuditState, EventKind, Evidence, Grade, Record};
use auditloop::engine::repo_config::{Archetype, Assurance, CompletionGate, WorkUnitAudit};
use auditloop::engine::report::Verdict;
use gate_support::*;

const CHECKS: [&str; 4] = ["test", "clippy", "deny", "audit-gate"];

fn commit_of(pick: u8) -> auditloop::engine::ids::Artifact {
    commit(if pick.is_multiple_of(2) { 'a' } else { 'b' })
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        Just(Verdict::Certified),
        Just(Verdict::CertifiedWithAcceptedLimitations),
        Just(Verdict::NeedsRemediation),
        Just(Verdict::NeedsHumanDecision),
    ]
}

fn state() -> impl Strategy<Value = AuditState> {
    prop_oneof![
        Just(AuditState::Open),
        Just(AuditState::AwaitingHuman),
        Just(AuditState::Certified),
        Just(AuditState::Blocked),
    ]
}

fn grade() -> impl Strategy<Value = Grade> {
    prop_oneof![Just(Grade::SessionReported), Just(Grade::Authenticated)]
}

fn assurance() -> impl Strategy<Value = Assurance> {
    prop_oneof![Just(Assurance::Standard), Just(Assurance::Hardened)]
}

fn archetype() -> impl Strategy<Value = Option<Archetype>> {
    prop_oneof![
        Just(None),
        Just(Some(Archetype::Implementation)),
        Just(Some(Archetype::Research)),
        Just(Some(Archetype::Audit)),
        Just(Some(Archetype::Planning)),
        Just(Some(Archetype::Hybrid)),
    ]
}

fn observation() -> impl Strategy<Value = CheckObservation> {
    let status = prop_oneof![
        1 => Just(CheckStatus::Queued),
        1 => Just(CheckStatus::InProgress),
        4 => Just(CheckStatus::Completed),
    ];
    let conclusion =
        prop_oneof![1 => Just(None), 4 => Just(Some("success")), 1 => Just(Some("failure"))];
    (0..CHECKS.len(), status, conclusion)
        .prop_map(|(i, status, conclusion)| check(CHECKS[i], status, conclusion))
}

/// Mostly `None`: keep the certified fixture's value, so that the generator reaches every
/// conclusion instead of failing almost always.
fn sometimes<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    proptest::option::weighted(0.15, s)
}

/// Overrides of the record's stored fields, each free to disagree with the history.
#[derive(Debug, Clone)]
struct Fields {
    state: Option<AuditState>,
    latest: Option<Option<Verdict>>,
    candidate: Option<u8>,
    certified: Option<Option<u8>>,
    certified_tasks: Option<Option<bool>>,
    grade: Option<Option<Grade>>,
    evidence: Option<Option<u8>>,
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        sometimes(state()),
        sometimes(proptest::option::of(verdict())),
        sometimes(any::<u8>()),
        sometimes(proptest::option::of(any::<u8>())),
        sometimes(proptest::option::of(any::<bool>())),
        sometimes(proptest::option::of(grade())),
        sometimes(proptest::option::of(any::<u8>())),
    )
        .prop_map(
            |(state, latest, candidate, certified, certified_tasks, grade, evidence)| Fields {
                state,
                latest,
                candidate,
                certified,
                certified_tasks,
                grade,
                evidence,
            },
        )
}

/// The last run (an override of the fixture's run 1) and the events around it.
#[derive(Debug, Clone)]
struct History {
    run: Option<Option<(Verdict, u8, Grade, bool)>>,
    blocking: bool,
    keyed_finding: bool,
    veto_from: Option<u32>,
    limitation: Option<Option<&'static str>>,
    accepted: bool,
    broken_chain: bool,
}

fn history() -> impl Strategy<Value = History> {
    let authority = prop_oneof![
        Just(None),
        Just(Some("D-2")),
        Just(Some("human: maintainer")),
        Just(Some("whoever")),
    ];
    (
        sometimes(proptest::option::of((
            verdict(),
            any::<u8>(),
            grade(),
            any::<bool>(),
        ))),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.3),
        sometimes(0u32..3),
        sometimes(authority),
        any::<bool>(),
        prop::bool::weighted(0.05),
    )
        .prop_map(
            |(run, blocking, keyed_finding, veto_from, limitation, accepted, broken_chain)| {
                History {
                    run,
                    blocking,
                    keyed_finding,
                    veto_from,
                    limitation,
                    accepted,
                    broken_chain,
                }
            },
        )
}

fn build_record(f: &Fields, h: &History) -> Record {
    let mut record = certified_record();
    let fixture_run = Some((Verdict::Certified, 0u8, Grade::SessionReported, true));
    record
        .history
        .retain(|e| !matches!(e.kind, EventKind::Report(_)));
    if let Some((verdict, artifact, grade, same_tasks)) = h.run.unwrap_or(fixture_run) {
        let mut run = report_run(1, verdict, commit_of(artifact));
        run.grade = grade;
        if !same_tasks {
            run.covered_tasks = vec![task("#13")];
        }
        if h.blocking || h.keyed_finding {
            let key_name = h.keyed_finding.then_some("webhook-replay");
            run.findings = vec![finding("A-01", key_name, h.blocking)];
        }
        if let Some(authority) = h.limitation {
            run.limitations = vec![limitation("L-01", "no-ghes-e2e", authority)];
        }
        record.history.push(event(EventKind::Report(run)));
    }
    if let Some(from) = h.veto_from {
        record.history.push(event(veto("webhook-replay", from)));
    }
    if h.accepted {
        record.history.push(event(acceptance("no-ghes-e2e")));
    }
    rechain(&mut record);
    if h.broken_chain {
        record.history[0].actor = login("mallory");
    }
    if let Some(state) = f.state {
        record.audit_state = state;
    }
    if let Some(latest) = f.latest {
        record.latest_verdict = latest;
    }
    if let Some(pick) = f.candidate {
        record.candidate_artifact = commit_of(pick);
    }
    if let Some(certified) = f.certified {
        record.certified_artifact = certified.map(commit_of);
    }
    if let Some(tasks) = f.certified_tasks {
        record.certified_covered_tasks = tasks.map(|same| {
            if same {
                vec![task("#12")]
            } else {
                vec![task("#12"), task("#13")]
            }
        });
    }
    if let Some(grade) = f.grade {
        record.certification_grade = grade;
    }
    if let Some(evidence) = f.evidence {
        record.evidence = evidence.map(|pick| Evidence {
            text: "green".into(),
            given_for: commit_of(pick),
        });
    }
    record
}

#[derive(Debug, Clone)]
struct Settings {
    enabled: bool,
    assurance: Assurance,
    operator_min: Assurance,
    required: Vec<bool>,
    archetype: Option<Archetype>,
    gates: Vec<Option<usize>>,
    records: u8,
    closes_other: bool,
    head: u8,
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        prop::bool::weighted(0.95),
        prop_oneof![4 => Just(Assurance::Standard), 1 => assurance()],
        prop_oneof![4 => Just(Assurance::Standard), 1 => assurance()],
        prop::collection::vec(prop::bool::weighted(0.3), CHECKS.len()),
        prop_oneof![3 => Just(None), 1 => archetype()],
        prop::collection::vec(proptest::option::weighted(0.8, 0..CHECKS.len()), 5),
        prop_oneof![1 => Just(0u8), 12 => Just(1), 1 => Just(2), 1 => Just(3)],
        prop::bool::weighted(0.1),
        prop_oneof![9 => Just(0u8), 1 => Just(1)],
    )
        .prop_map(
            |(
                enabled,
                assurance,
                operator_min,
                required,
                archetype,
                gates,
                records,
                closes_other,
                head,
            )| {
                Settings {
                    enabled,
                    assurance,
                    operator_min,
                    required,
                    archetype,
                    gates,
                    records,
                    closes_other,
                    head,
                }
            },
        )
}

fn scenario(s: &Settings, f: &Fields, h: &History, checks: Vec<CheckObservation>) -> Scenario {
    let mut sc = Scenario::default();
    let c = &mut sc.config;
    c.work_unit_audit = if s.enabled {
        WorkUnitAudit::Enabled
    } else {
        WorkUnitAudit::Disabled
    };
    c.assurance = s.assurance;
    c.evidence.required_checks = CHECKS
        .iter()
        .zip(&s.required)
        .filter(|(_, on)| **on)
        .map(|(name, _)| name.to_string())
        .collect();
    c.evidence.archetype = s.archetype;
    let all = [
        CompletionGate::Build,
        CompletionGate::Lint,
        CompletionGate::Integration,
        CompletionGate::Security,
        CompletionGate::Docs,
    ];
    for (gate, pick) in all.into_iter().zip(&s.gates) {
        if let Some(i) = pick {
            c.evidence.gates.insert(gate, vec![CHECKS[*i].to_string()]);
        }
    }
    sc.operator_min = s.operator_min;
    sc.head = if s.head.is_multiple_of(2) {
        sha('a')
    } else {
        sha('b')
    };
    let record = build_record(f, h);
    sc.records = match s.records {
        0 => Ok(vec![]),
        1 => Ok(vec![record]),
        2 => Ok(vec![record.clone(), record]),
        _ => Err("the records branch is missing".into()),
    };
    if s.closes_other {
        sc.closing.push(task("#99"));
    }
    sc.checks = checks;
    sc
}

fn holds(result: &GateResult) -> bool {
    result.conditions.iter().all(|c| c.outcome == Outcome::Pass)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn conclusion_never_overstates(
        s in settings(),
        f in fields(),
        h in history(),
        checks in prop::collection::vec(observation(), 0..6),
    ) {
        let sc = scenario(&s, &f, &h, checks);
        let result = sc.evaluate();
        if !s.enabled {
            prop_assert_eq!(result.conclusion, Conclusion::Neutral);
            prop_assert!(result.conditions.is_empty());
            return Ok(());
        }
        let numbers: Vec<u8> = result.conditions.iter().map(|c| c.number).collect();
        prop_assert_eq!(numbers, (1..=9).collect::<Vec<u8>>());
        let any_fail = result.conditions.iter().any(|c| c.outcome == Outcome::Fail);
        match result.conclusion {
            Conclusion::Success => prop_assert!(holds(&result), "{:#?}", result),
            Conclusion::InProgress => {
                let non_pass: Vec<_> =
                    result.conditions.iter().filter(|c| c.outcome != Outcome::Pass).collect();
                prop_assert!(!non_pass.is_empty());
                prop_assert!(
                    non_pass.iter().all(|c| c.number == 8 && c.outcome == Outcome::Pending),
                    "{:#?}", result
                );
            }
            Conclusion::ActionRequired => {
                prop_assert_eq!(result.conditions[0].outcome, Outcome::Pass);
                prop_assert_eq!(f.state, Some(AuditState::AwaitingHuman));
            }
            Conclusion::Failure => prop_assert!(!holds(&result)),
            Conclusion::Neutral => prop_assert!(false, "neutral while enabled"),
        }
        if any_fail {
            prop_assert_ne!(result.conclusion, Conclusion::Success);
        }
        if holds(&result) && f.state != Some(AuditState::AwaitingHuman) {
            prop_assert_eq!(result.conclusion, Conclusion::Success);
        }
    }

    /// What the app tells before the gate (whether the PRs sharing the head are worth
    /// reading) never misses a gate that does not fail.
    #[test]
    fn may_pass_is_told_by_every_gate_that_does_not_fail(
        s in settings(),
        f in fields(),
        h in history(),
        checks in prop::collection::vec(observation(), 0..6),
    ) {
        let sc = scenario(&s, &f, &h, checks);
        let result = sc.evaluate();
        let record = sc.records.as_ref().ok().and_then(|r| r.first());
        if result.conclusion != Conclusion::Failure {
            prop_assert!(
                auditloop::engine::gate::may_pass(record, &sc.config),
                "{:#?}", result
            );
        }
    }
}

/// The property above says nothing if the generator never reaches a conclusion: make sure
/// it reaches each of them.
#[test]
fn the_generator_reaches_every_conclusion() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::HashSet;

    let strategy = (
        settings(),
        fields(),
        history(),
        prop::collection::vec(observation(), 0..6),
    );
    let mut runner = TestRunner::deterministic();
    let mut seen = HashSet::new();
    for _ in 0..20_000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (s, f, h, checks) = tree.current();
        seen.insert(scenario(&s, &f, &h, checks).evaluate().conclusion.as_str());
        if seen.len() == 5 {
            return;
        }
    }
    panic!("only reached {seen:?}");
}
