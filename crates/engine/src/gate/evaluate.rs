//! The gate (docs/reference.md#gate-conditions): nine conditions for the head commit H and the
//! check-run conclusion they lead to. One small function per condition.

use super::condition::{fail, pass};
use super::evidence::evidence_for_head;
use super::input::GateInput;
use super::record_conditions::{
    candidate_is_head, certification_matches_last_run, covered_tasks_exact, verdict_certifies,
};
use super::result::{Conclusion, Condition, GateResult, Outcome};
use super::run_conditions::{
    grade_meets_assurance, limitations_have_authority, no_blocking_finding,
};
use super::structure::structural_problem;
use super::verdict;
use crate::md;
use crate::md::Md;
use crate::record::{AuditState, Record};

#[must_use]
pub fn evaluate(input: &GateInput) -> GateResult {
    if !input.config.enabled() {
        return GateResult {
            conditions: Vec::new(),
            conclusion: Conclusion::Neutral,
            title: verdict::disabled(),
        };
    }
    let (first, record) = single_record(input);
    let mut conditions = vec![first];
    match record {
        Some(record) => conditions.extend(record_conditions(input, record)),
        None => conditions.extend((2..=9).map(|n| {
            let mut c = fail(n, "not evaluated without exactly one valid audit record");
            c.waits_on = Some(1);
            c
        })),
    }
    if let Some(record) = record {
        mark_waiting(&mut conditions, record, input);
    }
    let conclusion = conclusion(&conditions, record);
    let title = headline(input, record, &conditions, conclusion);
    GateResult {
        conditions,
        conclusion,
        title,
    }
}

/// Condition 1, and the record the other conditions read. A record whose history is
/// broken is still read, so the summary says what else is wrong; it can never pass.
fn single_record<'a>(input: &GateInput<'a>) -> (Condition, Option<&'a Record>) {
    let records = match &input.records {
        Err(reason) => {
            return (
                fail(
                    1,
                    md!("the audit records cannot be read: {}", Md::text(reason)),
                ),
                None,
            )
        }
        Ok(records) => records,
    };
    match records.as_slice() {
        [] => (
            fail(
                1,
                "no audit record for this PR; start one with `/audit new --goal \"…\" --oracle \"…\"`",
            ),
            None,
        ),
        [record] => match structural_problem(record) {
            Some(problem) => (
                fail(
                    1,
                    md!(
                        "{} fails structural validation: {}",
                        record.id,
                        Md::text(&problem)
                    ),
                ),
                Some(*record),
            ),
            None => (
                pass(
                    1,
                    md!(
                        "{} is the one record of {}; its history of {} event{} is intact",
                        record.id,
                        record.work_unit,
                        record.history.len(),
                        if record.history.len() == 1 { "" } else { "s" }
                    ),
                ),
                Some(*record),
            ),
        },
        many => {
            let ids: Vec<String> = many.iter().map(|r| r.id.to_string()).collect();
            (
                fail(
                    1,
                    md!(
                        "{} records are current for this work unit ({}); exactly one may be",
                        many.len(),
                        Md::text(&ids.join(", "))
                    ),
                ),
                None,
            )
        }
    }
}

fn record_conditions(input: &GateInput, record: &Record) -> [Condition; 8] {
    [
        candidate_is_head(record, input.head, input.config),
        covered_tasks_exact(record, input.closing_issues),
        verdict_certifies(record, input.head),
        certification_matches_last_run(record),
        no_blocking_finding(record),
        limitations_have_authority(record, input.decisions),
        evidence_for_head(record, input.head, input.config, input.checks),
        grade_meets_assurance(
            record,
            input.config,
            input.operator_min,
            (input.trust, input.certified_report),
        ),
    ]
}

fn conclusion(conditions: &[Condition], record: Option<&Record>) -> Conclusion {
    let holds = |c: &Condition| c.outcome == Outcome::Pass;
    let first_holds = conditions.first().is_some_and(holds);
    if first_holds && record.is_some_and(|r| r.audit_state == AuditState::AwaitingHuman) {
        return Conclusion::ActionRequired;
    }
    if conditions.iter().all(holds) {
        return Conclusion::Success;
    }
    let only_evidence_pending = conditions
        .iter()
        .filter(|c| !holds(c))
        .all(|c| c.number == 8 && c.outcome == Outcome::Pending);
    if only_evidence_pending {
        Conclusion::InProgress
    } else {
        Conclusion::Failure
    }
}

/// The verdict line (see [`verdict`]): what the check run's title and summary lead with.
fn headline(
    input: &GateInput,
    record: Option<&Record>,
    conditions: &[Condition],
    conclusion: Conclusion,
) -> Md {
    match (record, &input.records) {
        (Some(record), _) => verdict::of_record(record, Some((conditions, conclusion))),
        (None, Ok(list)) if list.is_empty() => verdict::no_record(),
        (None, _) => verdict::damaged(&conditions[0].reason),
    }
}

/// Marks the conditions that fail only because another does (docs/reference.md#gate-conditions): the
/// certification's conditions (3, 5, 9) wait on a certifying verdict (4) while nothing
/// current is certified; a run's conditions (6, 7) wait on 4 while there is no run; 4 waits
/// on 6 while blocking findings are what keep the verdict from certifying, and on 2 while
/// the head moved away from a certification. Chains are followed to their root.
fn mark_waiting(conditions: &mut [Condition], record: &Record, input: &GateInput) {
    let fails = |cs: &[Condition], n: u8| {
        cs.iter()
            .any(|c| c.number == n && c.outcome != Outcome::Pass)
    };
    let certified_now = record.audit_state == AuditState::Certified
        && record.certified_artifact.as_ref() == Some(&record.candidate_artifact);
    let no_run = record.latest_run().is_none();
    let closes_uncovered = input
        .closing_issues
        .iter()
        .any(|t| !record.covered_tasks.contains(t));
    let stale = record.audit_state == AuditState::Open
        && record
            .latest_verdict
            .is_some_and(super::super::report::document::Verdict::certifies);
    let blocking = record
        .latest_run()
        .is_some_and(|r| r.findings.iter().any(|f| f.blocking));
    let mut waits: Vec<(u8, u8)> = Vec::new();
    if fails(conditions, 4) && !certified_now {
        if !closes_uncovered {
            waits.push((3, 4));
        }
        waits.push((5, 4));
        if record.certification_grade.is_none() || stale {
            waits.push((9, 4));
        }
    }
    if no_run {
        waits.extend([(6, 4), (7, 4)]);
    }
    let awaiting = matches!(
        record.audit_state,
        AuditState::AwaitingHuman | AuditState::Blocked
    );
    if !awaiting && blocking && fails(conditions, 6) {
        waits.push((4, 6));
    } else if !awaiting && stale && fails(conditions, 2) {
        waits.push((4, 2));
    }
    let root = |mut n: u8| {
        for _ in 0..9 {
            match waits.iter().find(|(from, _)| *from == n) {
                Some((_, to)) if fails(conditions, *to) => n = *to,
                _ => break,
            }
        }
        n
    };
    let marks: Vec<(u8, u8)> = waits
        .iter()
        .filter(|(from, to)| fails(conditions, *from) && fails(conditions, *to))
        .map(|(from, _)| (*from, root(*from)))
        .collect();
    for (from, to) in marks {
        if let Some(c) = conditions.iter_mut().find(|c| c.number == from) {
            c.waits_on = Some(to);
        }
    }
}
