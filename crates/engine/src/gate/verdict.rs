//! The verdict line: what state a PR's audit is in and the next step, in one line, the
//! same on the check run's title, the first line of the PR body's audit section and the
//! `/audit status` reply. One wording per state. It is the gate's own title, so it lives
//! with the gate; the views show it.

use super::result::{Conclusion, Condition, Outcome};
use crate::md;
use crate::record::{AuditState, Record};
use crate::report::Verdict;

use crate::md::Md;

/// No record yet.
#[must_use]
pub(crate) fn no_record() -> Md {
    Md::lit("No audit record yet — start one with `/audit new --goal \"…\" --oracle \"…\"`")
}

/// The records cannot be read, or the record's history is broken.
#[must_use]
pub(crate) fn damaged(what: &Md) -> Md {
    md!("Damaged records — {}", what)
}

/// `work_unit_audit: disabled`.
#[must_use]
pub(crate) fn disabled() -> Md {
    Md::lit(
        "Audit disabled — `work_unit_audit: disabled` in `.github/auditloop.yml`; nothing to do",
    )
}

/// The repository configuration does not parse.
#[must_use]
pub(crate) fn config_invalid(line: Option<u64>) -> Md {
    match line {
        Some(line) => md!(
            "Config invalid — fix `.github/auditloop.yml` on the default branch (line {})",
            line
        ),
        None => Md::lit("Config invalid — fix `.github/auditloop.yml` on the default branch"),
    }
}

/// The line for a record: from the record alone (the PR body, rebuilt when the record
/// changes), or with the gate's conditions and conclusion (the check run, `status`).
#[must_use]
pub(crate) fn of_record(record: &Record, gate: Option<(&[Condition], Conclusion)>) -> Md {
    let mut line = headline(record, gate);
    line.push(&md!(
        " · run {} of {}",
        record.runs_used(),
        record.audit_budget
    ));
    line
}

fn headline(record: &Record, gate: Option<(&[Condition], Conclusion)>) -> Md {
    let conditions = gate.map(|(c, _)| c).unwrap_or_default();
    let conclusion = gate.map(|(_, c)| c);
    let failing = |n: u8| {
        conditions
            .iter()
            .find(|c| c.number == n && c.outcome != Outcome::Pass)
    };
    if let Some(first) = failing(1) {
        return damaged(&first.reason);
    }
    match record.audit_state {
        AuditState::AwaitingHuman => {
            return md!(
                "Awaiting a human decision — a maintainer answers with {}",
                resolve_command(record)
            )
        }
        AuditState::Blocked => {
            return md!(
                "Blocked: the audit budget is spent — a maintainer raises it with {}",
                Md::code(&format!(
                    "/audit override --budget {} --note \"…\"",
                    record.runs_used().saturating_add(1)
                ))
            )
        }
        AuditState::Open | AuditState::Certified => {}
    }
    match conclusion {
        Some(Conclusion::Success) => return certified(record),
        Some(Conclusion::InProgress) => {
            if let Some(c) = failing(8) {
                return md!("Evidence pending — {}", c.reason);
            }
        }
        None if record.audit_state == AuditState::Certified => return certified(record),
        _ => {}
    }
    // The first cause of its own, remediation before the rest: it is what the next round
    // must change.
    let root = conditions
        .iter()
        .filter(|c| c.is_root_cause())
        .min_by_key(|c| (c.number != 6, c.number));
    match root.map(|c| c.number) {
        Some(6) | None if has_blocking(record) => remediation(record),
        Some(4) | None => open(record),
        Some(n) => {
            let reason = &root.map(|c| c.reason.clone()).unwrap_or_default();
            let label = match n {
                2 => "Head moved",
                3 => "Covered tasks differ",
                5 => "Certification mismatch",
                6 => "Needs remediation",
                7 => "Limitation without authority",
                8 => "Evidence missing",
                _ => "Grade too low",
            };
            md!("{} — {}", label, reason)
        }
    }
}

fn has_blocking(record: &Record) -> bool {
    record
        .latest_run()
        .is_some_and(|r| r.findings.iter().any(|f| f.blocking))
}

fn certified(record: &Record) -> Md {
    let grade = record
        .certification_grade
        .map_or_else(|| Md::lit("ungraded"), crate::legend::grade);
    let at = record
        .certified_artifact
        .as_ref()
        .unwrap_or(&record.candidate_artifact);
    if record.latest_verdict == Some(Verdict::CertifiedWithAcceptedLimitations) {
        let ids: Vec<Md> = record
            .latest_run()
            .map(|r| r.limitations.iter().map(|l| md!("{}", l.id)).collect())
            .unwrap_or_default();
        return md!(
            "Certified with accepted limitations ({}) — grade {} at {}; ready to merge",
            Md::join(&ids, ", "),
            grade,
            at
        );
    }
    md!("Certified — grade {} at {}; ready to merge", grade, at)
}

fn remediation(record: &Record) -> Md {
    let Some(run) = record.latest_run() else {
        return open(record);
    };
    let blocking: Vec<_> = run.findings.iter().filter(|f| f.blocking).collect();
    let Some(first) = blocking.first() else {
        return open(record);
    };
    let key = first
        .key
        .as_ref()
        .map(|k| md!(" {}", Md::code(k.as_str())))
        .unwrap_or_default();
    let more = match blocking.len() {
        1 => Md::default(),
        n => md!(" and {} more", n - 1),
    };
    let them = if blocking.len() == 1 { "it" } else { "them" };
    md!(
        "Needs remediation — {}{} ({}, blocking){}: fix {}, then post a new report",
        first.id,
        key,
        first.severity.as_str(),
        more,
        them
    )
}

fn open(record: &Record) -> Md {
    let head = &record.candidate_artifact;
    match record.latest_run() {
        None => md!(
            "Open — waiting for the first report on {}: an auditor posts `/audit report`",
            head
        ),
        Some(run) if run.verdict.certifies() => md!(
            "Open — the certification is stale: post a new report for {} with `/audit report`",
            head
        ),
        Some(run) => md!(
            "Open — latest verdict {}: fix the findings, then post a new report for {}",
            crate::legend::verdict(run.verdict),
            head
        ),
    }
}

/// The `/audit resolve` that answers the record's pending question: naming the latest
/// run's limitations that still lack an authority, when there are some.
#[must_use]
pub(crate) fn resolve_command(record: &Record) -> Md {
    let pending: Vec<&str> = record
        .latest_run()
        .map(|run| {
            run.limitations
                .iter()
                .filter(|l| l.authority.is_none())
                .map(|l| l.id.as_str())
                .collect()
        })
        .unwrap_or_default();
    if pending.is_empty() {
        Md::lit("`/audit resolve --note \"…\"`")
    } else {
        Md::code(&format!(
            "/audit resolve {} --note \"…\"",
            pending.join(",")
        ))
    }
}
