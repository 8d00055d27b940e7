//! `create`: the rules of `/audit new` and what a new record holds.

use crate::record_support;

use auditloop::engine::ids::{AuditId, PrNumber, WorkUnit};
use auditloop::engine::record::{load_record, to_json, AuditState, EventKind, Index};
use auditloop::engine::transition::AuditPolicy;
use auditloop::engine::transition::{self, CreateInput};
use record_support::*;

fn run(index: &Index, input: CreateInput) -> Result<transition::Applied, transition::Refusal> {
    transition::create(index, input, &ctx_at(0, "octocat"), &AuditPolicy::default())
}

#[test]
fn refusal_table() {
    let mut taken = Index {
        next: 4,
        ..Index::default()
    };
    taken
        .pulls
        .insert("42".into(), AuditId::new("AUD-2").unwrap());
    let mut unit_taken = Index::default();
    unit_taken
        .work_units
        .insert("phase:4".into(), AuditId::new("AUD-3").unwrap());
    unit_taken
        .pulls
        .insert("7".into(), AuditId::new("AUD-3").unwrap());

    let phase = || Some(WorkUnit::new("phase:4").unwrap());
    let cases: Vec<(&str, Index, CreateInput, &str)> = vec![
        ("PR has a record", taken, create_input(), "pull-has-record"),
        (
            "work unit has a record",
            unit_taken,
            CreateInput {
                work_unit: phase(),
                explicit_tasks: Some(vec![task("T-1")]),
                ..create_input()
            },
            "work-unit-has-record",
        ),
        (
            "non-pr unit without tasks",
            Index::default(),
            CreateInput {
                work_unit: phase(),
                ..create_input()
            },
            "covered-tasks-required",
        ),
        (
            "no closing issues",
            Index::default(),
            CreateInput {
                closing_issues: vec![],
                ..create_input()
            },
            "no-covered-tasks",
        ),
        (
            "explicit empty tasks",
            Index::default(),
            CreateInput {
                explicit_tasks: Some(vec![]),
                ..create_input()
            },
            "no-covered-tasks",
        ),
        (
            "no evidence, no required checks",
            Index::default(),
            CreateInput {
                evidence: None,
                ..create_input()
            },
            "evidence-required",
        ),
        (
            "zero budget",
            Index::default(),
            CreateInput {
                budget: Some(0),
                ..create_input()
            },
            "budget-zero",
        ),
    ];
    for (name, index, input, rule) in cases {
        let result = run(&index, input);
        assert!(result.is_err(), "{name}");
        assert_rule(result, rule);
    }
}

#[test]
fn refusals_say_what_to_do() {
    let mut index = Index::default();
    index
        .pulls
        .insert("42".into(), AuditId::new("AUD-2").unwrap());
    let err = run(&index, create_input()).unwrap_err();
    assert!(err.fix().contains("/audit baseline"));

    let mut index = Index::default();
    index
        .work_units
        .insert("phase:4".into(), AuditId::new("AUD-3").unwrap());
    index
        .pulls
        .insert("7".into(), AuditId::new("AUD-3").unwrap());
    let input = CreateInput {
        pull_request: PrNumber(8),
        work_unit: Some(WorkUnit::new("phase:4").unwrap()),
        explicit_tasks: Some(vec![task("T-1")]),
        ..create_input()
    };
    let err = run(&index, input).unwrap_err();
    assert!(err.to_string().contains("#7"), "names its PR: {err}");
}

#[test]
fn a_new_record() {
    let index = Index {
        next: 7,
        ..Index::default()
    };
    let input = CreateInput {
        closing_issues: vec![task("T-041"), task("#12"), task("T-041")],
        ..create_input()
    };
    let applied = run(&index, input).unwrap();
    let record = &applied.record;
    assert_eq!(record.id.as_str(), "AUD-7");
    assert_eq!(record.work_unit.as_str(), "pr:42");
    assert_eq!(record.covered_tasks, vec![task("#12"), task("T-041")]);
    assert_eq!(record.audit_budget, 3);
    assert_eq!(record.audit_state, AuditState::Open);
    let evidence = record.evidence.as_ref().unwrap();
    assert_eq!(evidence.given_for, sha(1));
    assert_eq!(record.history.len(), 1);
    assert!(matches!(record.history[0].kind, EventKind::Created(_)));
    assert_eq!(record.history[0].prev, None);
    let index = applied.index.unwrap();
    assert_eq!(index.next, 8);
    assert_eq!(index.work_units.get("pr:42"), Some(&record.id));
    assert_eq!(index.pulls.get("42"), Some(&record.id));
    // A new record passes structural validation.
    assert_eq!(load_record(&to_json(record)).unwrap(), *record);
}

#[test]
fn options() {
    let with_budget = run(
        &Index::default(),
        CreateInput {
            budget: Some(5),
            ..create_input()
        },
    )
    .unwrap();
    assert_eq!(with_budget.record.audit_budget, 5);

    let policy = AuditPolicy {
        default_budget: 2,
        ..AuditPolicy::default()
    };
    let defaulted =
        transition::create(&Index::default(), create_input(), &ctx_at(0, "a"), &policy).unwrap();
    assert_eq!(defaulted.record.audit_budget, 2);

    let checks = run(
        &Index::default(),
        CreateInput {
            evidence: None,
            required_checks_set: true,
            ..create_input()
        },
    )
    .unwrap();
    assert_eq!(checks.record.evidence, None);

    let explicit = run(
        &Index::default(),
        CreateInput {
            work_unit: Some(WorkUnit::new("milestone:M2").unwrap()),
            explicit_tasks: Some(vec![task("T-2"), task("T-1")]),
            ..create_input()
        },
    )
    .unwrap();
    assert_eq!(
        explicit.record.covered_tasks,
        vec![task("T-1"), task("T-2")]
    );

    let zero = Index {
        next: 0,
        ..Index::default()
    };
    assert_eq!(
        run(&zero, create_input()).unwrap().record.id.as_str(),
        "AUD-1"
    );
}
