//! Conditions 2–5 (CONTRACT §8): what the record is bound to and what it certifies.

use std::collections::BTreeSet;

use super::condition::{fail, from_problems, pass, task_list};
use super::model::Condition;
use crate::engine::record::{AuditState, Record};
use crate::engine::repo_config::RepoConfig;
use crate::ids::{Artifact, CommitSha, TaskId};

fn set(tasks: &[TaskId]) -> BTreeSet<&TaskId> {
    tasks.iter().collect()
}

/// Condition 2: `candidate_artifact` is `commit:H`.
pub(crate) fn candidate_is_head(
    record: &Record,
    head: &CommitSha,
    config: &RepoConfig,
) -> Condition {
    let head = Artifact::commit(head.clone());
    if record.candidate_artifact == head {
        return pass(2, format!("the record is bound to the head {head}"));
    }
    let how = if config.baseline_on_push {
        "run /audit baseline or wait for the push rebind"
    } else {
        "run /audit baseline (baseline_on_push is off)"
    };
    fail(
        2,
        format!(
            "the record is bound to commit:{} but the head is commit:{}; {how}",
            record.candidate_artifact.short(),
            head.short()
        ),
    )
}

/// Condition 3: `certified_covered_tasks` equals `covered_tasks`, and every issue the PR
/// body closes now is covered.
pub(crate) fn covered_tasks_exact(record: &Record, closing: &[TaskId]) -> Condition {
    let covered = set(&record.covered_tasks);
    let mut problems = Vec::new();
    match &record.certified_covered_tasks {
        None => problems.push(format!(
            "no task set is certified yet (covered tasks: {})",
            task_list(covered.iter().copied())
        )),
        Some(certified) if set(certified) != covered => problems.push(format!(
            "the certified tasks ({}) differ from the covered tasks ({}); submit a new report",
            task_list(certified),
            task_list(covered.iter().copied())
        )),
        Some(_) => {}
    }
    let uncovered: BTreeSet<&TaskId> = closing.iter().filter(|t| !covered.contains(t)).collect();
    if !uncovered.is_empty() {
        let all: BTreeSet<&TaskId> = covered.union(&uncovered).copied().collect();
        problems.push(format!(
            "the PR body closes {}, not among the covered tasks; run /audit baseline \
             --covered-tasks {} or stop closing it",
            task_list(uncovered.iter().copied()),
            all.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")
        ));
    }
    from_problems(
        3,
        &problems,
        format!(
            "the certified tasks equal the covered tasks ({}) and the PR closes no other issue",
            task_list(covered)
        ),
    )
}

/// Condition 4: `latest_verdict` certifies and `audit_state` is `certified`.
pub(crate) fn verdict_certifies(record: &Record, head: &CommitSha) -> Condition {
    let used = record.runs_used();
    let budget = record.audit_budget;
    let verdict = record
        .latest_verdict
        .map_or("none", super::super::report::model::Verdict::as_str);
    let certifies = record
        .latest_verdict
        .is_some_and(super::super::report::model::Verdict::certifies);
    let head = Artifact::commit(head.clone());
    let reason = match record.audit_state {
        AuditState::Certified if certifies => {
            return pass(4, format!("latest verdict {verdict}, state certified"));
        }
        AuditState::Certified => {
            format!(
                "the state is certified but the latest verdict is {verdict}: the record is \
                 inconsistent"
            )
        }
        AuditState::AwaitingHuman => "the last run asks for a human decision; a maintainer \
            answers with /audit resolve --note \"…\""
            .to_string(),
        AuditState::Blocked => format!(
            "audit budget exhausted ({used} of {budget} runs used, latest verdict {verdict}); \
             a maintainer may raise it with /audit override --budget N --note \"…\""
        ),
        AuditState::Open if used == 0 => {
            format!("no report yet; an auditor submits one with /audit report for {head}")
        }
        AuditState::Open if certifies => format!(
            "the certification is stale since the candidate moved; submit a new report for {head}"
        ),
        AuditState::Open => format!(
            "latest verdict {verdict}; address the findings and submit a new report ({used} of \
             {budget} runs used)"
        ),
    };
    fail(4, reason)
}

/// Condition 5: `certified_artifact` equals `candidate_artifact`, and the last run's
/// artifact, tasks, verdict and grade match the certification fields.
pub(crate) fn certification_matches_last_run(record: &Record) -> Condition {
    let Some(certified) = &record.certified_artifact else {
        return fail(5, "nothing is certified yet");
    };
    if certified != &record.candidate_artifact {
        return fail(
            5,
            format!(
                "the certification is for commit:{} but the candidate is commit:{}; it is stale",
                certified.short(),
                record.candidate_artifact.short()
            ),
        );
    }
    let Some(run) = record.latest_run() else {
        return fail(5, "a certification is recorded but no run backs it");
    };
    let mut problems = Vec::new();
    // A certification carried to an identical tree stands for the run's own commit.
    let backed = record
        .certification_carried_to()
        .unwrap_or(&run.candidate_artifact);
    if backed != certified {
        problems.push(format!(
            "its artifact is commit:{}, the certification's commit:{}",
            run.candidate_artifact.short(),
            certified.short()
        ));
    }
    let certified_tasks = record
        .certified_covered_tasks
        .as_deref()
        .unwrap_or_default();
    if set(&run.covered_tasks) != set(certified_tasks) {
        problems.push(format!(
            "its tasks are {}, the certification's {}",
            task_list(&run.covered_tasks),
            task_list(certified_tasks)
        ));
    }
    if Some(run.verdict) != record.latest_verdict {
        problems.push(format!(
            "its verdict is {}, the record's {}",
            run.verdict.as_str(),
            record
                .latest_verdict
                .map_or("none", super::super::report::model::Verdict::as_str)
        ));
    }
    if Some(run.grade) != record.certification_grade {
        problems.push(format!(
            "its grade is {}, the certification's {}",
            run.grade.as_str(),
            record
                .certification_grade
                .map_or("none", super::super::record::model::Grade::as_str)
        ));
    }
    if problems.is_empty() {
        return pass(
            5,
            format!(
                "run {} certified commit:{} for {}",
                run.run,
                certified.short(),
                task_list(certified_tasks)
            ),
        );
    }
    fail(
        5,
        format!(
            "run {} does not match the certification: {}",
            run.run,
            problems.join(", ")
        ),
    )
}
