//! The gate (CONTRACT §8, seed 000 §12): nine conditions for the head commit H and the
//! check-run conclusion they lead to. One small function per condition.

use super::chain::structural_problem;
use super::condition::{fail, pass, title};
use super::evidence::evidence_for_head;
use super::input::GateInput;
use super::model::{Conclusion, Condition, GateResult, Outcome};
use super::record_conditions::{
    candidate_is_head, certification_matches_last_run, covered_tasks_exact, verdict_certifies,
};
use super::run_conditions::{
    grade_meets_assurance, limitations_have_authority, no_blocking_finding,
};
use crate::engine::record::{AuditState, Record};

#[must_use]
pub fn evaluate(input: &GateInput) -> GateResult {
    if !input.config.enabled() {
        return GateResult {
            conditions: Vec::new(),
            conclusion: Conclusion::Neutral,
            title: "Audit disabled (work_unit_audit: disabled)".into(),
        };
    }
    let (first, record) = single_record(input);
    let mut conditions = vec![first];
    match record {
        Some(record) => conditions.extend(record_conditions(input, record)),
        None => conditions.extend((2..=9).map(|n| {
            fail(
                n,
                "not evaluated: the gate needs exactly one valid audit record (condition 1)",
            )
        })),
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
                fail(1, format!("the audit records cannot be read: {reason}")),
                None,
            )
        }
        Ok(records) => records,
    };
    match records.as_slice() {
        [] => (
            fail(
                1,
                "no audit record for this PR; start one with /audit new --goal \"…\" \
                 --oracle \"…\"",
            ),
            None,
        ),
        [record] => match structural_problem(record) {
            Some(problem) => (
                fail(
                    1,
                    format!("{} fails structural validation: {problem}", record.id),
                ),
                Some(*record),
            ),
            None => (
                pass(
                    1,
                    format!(
                        "{} is the one record of {}; its history of {} events is intact",
                        record.id,
                        record.work_unit,
                        record.history.len()
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
                    format!(
                        "{} records are current for this work unit ({}); exactly one may be",
                        many.len(),
                        ids.join(", ")
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
        limitations_have_authority(record),
        evidence_for_head(record, input.head, input.config, input.checks),
        grade_meets_assurance(record, input.config, input.operator_min),
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

/// A few words for the check run's title: the verdict, or the main thing in the way.
fn headline(
    input: &GateInput,
    record: Option<&Record>,
    conditions: &[Condition],
    conclusion: Conclusion,
) -> String {
    let failing = |n: u8| {
        conditions
            .iter()
            .any(|c| c.number == n && c.outcome != Outcome::Pass)
    };
    match conclusion {
        Conclusion::ActionRequired => return "Awaiting a human decision".into(),
        Conclusion::InProgress => return "Waiting for evidence checks".into(),
        Conclusion::Neutral => return "Audit disabled".into(),
        Conclusion::Success | Conclusion::Failure => {}
    }
    let Some(record) = record.filter(|_| !failing(1)) else {
        return match &input.records {
            Err(_) => "Audit records unreadable".into(),
            Ok(list) if list.is_empty() => "No audit record".into(),
            Ok(list) if list.len() > 1 => "Several audit records".into(),
            Ok(_) => "Audit record history broken".into(),
        };
    };
    let grade = record
        .certification_grade
        .map_or("ungraded", super::super::record::model::Grade::as_str);
    if conclusion == Conclusion::Success {
        return match record.latest_verdict {
            Some(v) if v.as_str() == "certified_with_accepted_limitations" => {
                format!("Certified with accepted limitations ({grade})")
            }
            _ => format!("Certified ({grade})"),
        };
    }
    if record.audit_state == AuditState::Blocked {
        return "Audit budget exhausted".into();
    }
    let Some(run) = record.latest_run() else {
        return "Awaiting the first audit report".into();
    };
    let blocking = run.findings.iter().filter(|f| f.blocking).count();
    if failing(6) && blocking > 0 {
        let s = if blocking == 1 { "" } else { "s" };
        return format!("Needs remediation: {blocking} blocking finding{s}");
    }
    if failing(2) {
        return "Head moved: record not rebound".into();
    }
    if record.audit_state == AuditState::Open
        && record
            .latest_verdict
            .is_some_and(super::super::report::model::Verdict::certifies)
    {
        return "Certification stale: new report needed".into();
    }
    let numbers: Vec<String> = conditions
        .iter()
        .filter(|c| c.outcome != Outcome::Pass)
        .map(|c| format!("{} ({})", c.number, title(c.number).to_lowercase()))
        .collect();
    format!("Gate fails: {}", numbers.join(", "))
}
