//! Conditions 2–5 (docs/reference.md#gate-conditions): what the record is bound to and what it certifies.

use std::collections::BTreeSet;

use super::condition::{fail, from_problems, pass, task_list};
use super::result::Condition;
use crate::ids::{Artifact, CommitSha, TaskId};
use crate::md;
use crate::md::Md;
use crate::record::{AuditState, Record};
use crate::repo_config::RepoConfig;

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
        return pass(2, md!("the record is bound to the head {}", head));
    }
    let how = if config.baseline_on_push {
        "run `/audit baseline`, or wait for the push to rebind it"
    } else {
        "run `/audit baseline` (`baseline_on_push` is off)"
    };
    fail(
        2,
        md!(
            "the record is bound to {} but the head is {}; {}",
            record.candidate_artifact,
            head,
            how
        ),
    )
}

/// Condition 3: `certified_covered_tasks` equals `covered_tasks`, every issue the PR body
/// closes now is covered, and no covered task was reopened since the certification.
pub(crate) fn covered_tasks_exact(record: &Record, closing: &[TaskId]) -> Condition {
    let covered = set(&record.covered_tasks);
    let mut problems = Vec::new();
    match &record.certified_covered_tasks {
        None => problems.push(md!(
            "no task set is certified yet (covered tasks: {})",
            task_list(covered.iter().copied())
        )),
        Some(certified) if set(certified) != covered => problems.push(md!(
            "the certified tasks ({}) differ from the covered tasks ({}); post a new report with `/audit report`",
            task_list(certified),
            task_list(covered.iter().copied())
        )),
        Some(_) => {}
    }
    // Any reopened covered task invalidates certification (docs/reference.md#gate-conditions).
    if let Some(task) = record.reopened_task() {
        problems.push(md!(
            "the covered task {} was reopened after the certification, which is stale; run {} and audit again",
            task_list([task]),
            Md::code("/audit baseline")
        ));
    }
    let uncovered: BTreeSet<&TaskId> = closing.iter().filter(|t| !covered.contains(t)).collect();
    if !uncovered.is_empty() {
        let all: BTreeSet<&TaskId> = covered.union(&uncovered).copied().collect();
        let list = all.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
        problems.push(md!(
            "the PR body closes {}, not among the covered tasks; run {} or stop closing it",
            task_list(uncovered.iter().copied()),
            Md::code(&format!("/audit baseline --covered-tasks {list}"))
        ));
    }
    from_problems(
        3,
        &problems,
        md!(
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
        .map_or("none", super::super::report::document::Verdict::as_str);
    let certifies = record
        .latest_verdict
        .is_some_and(super::super::report::document::Verdict::certifies);
    let head = Artifact::commit(head.clone());
    let verdict_md = Md::code(verdict);
    let reason = match record.audit_state {
        AuditState::Certified if certifies => {
            return pass(4, md!("latest verdict {}, state certified", verdict_md));
        }
        AuditState::Certified => md!(
            "the state is certified but the latest verdict is {}: the record is inconsistent",
            verdict_md
        ),
        AuditState::AwaitingHuman => md!(
            "the last run asks for a human decision; a maintainer answers with {}",
            super::verdict::resolve_command(record)
        ),
        AuditState::Blocked => md!(
            "the audit budget is spent ({} of {} runs used, latest verdict {}); a maintainer raises it with {}",
            used,
            budget,
            verdict_md,
            Md::code(&format!(
                "/audit override --budget {} --note \"…\"",
                used.saturating_add(1)
            ))
        ),
        AuditState::Open if used == 0 => md!(
            "no report yet; an auditor posts one for {} with `/audit report`",
            head
        ),
        AuditState::Open if certifies => md!(
            "the certification is stale since the candidate moved; post a new report for {} with `/audit report`",
            head
        ),
        AuditState::Open => md!(
            "latest verdict {}; fix the findings, then post a new report ({} of {} runs used)",
            verdict_md,
            used,
            budget
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
            md!(
                "the certification is for {} but the candidate is {}; it is stale",
                certified,
                record.candidate_artifact
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
        problems.push(md!(
            "its artifact is {}, the certification's {}",
            run.candidate_artifact,
            certified
        ));
    }
    let certified_tasks = record
        .certified_covered_tasks
        .as_deref()
        .unwrap_or_default();
    if set(&run.covered_tasks) != set(certified_tasks) {
        problems.push(md!(
            "its tasks are {}, the certification's {}",
            task_list(&run.covered_tasks),
            task_list(certified_tasks)
        ));
    }
    if Some(run.verdict) != record.latest_verdict {
        problems.push(md!(
            "its verdict is {}, the record's {}",
            Md::code(run.verdict.as_str()),
            Md::code(
                record
                    .latest_verdict
                    .map_or("none", super::super::report::document::Verdict::as_str)
            )
        ));
    }
    if Some(run.grade) != record.certification_grade {
        problems.push(md!(
            "its grade is {}, the certification's {}",
            Md::code(run.grade.as_str()),
            Md::code(
                record
                    .certification_grade
                    .map_or("none", super::super::record::model::Grade::as_str)
            )
        ));
    }
    if problems.is_empty() {
        return pass(
            5,
            md!(
                "run {} certified {} for {}",
                run.run,
                certified,
                task_list(certified_tasks)
            ),
        );
    }
    fail(
        5,
        md!(
            "run {} does not match the certification: {}",
            run.run,
            Md::join(&problems, ", ")
        ),
    )
}
