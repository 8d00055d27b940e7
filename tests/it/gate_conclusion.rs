//! The check-run conclusion and title (docs/reference.md#gate-conditions), and combining PRs that share a head.

use crate::gate_support;

use auditloop::engine::gate::{combine, CheckStatus, Conclusion, GateResult, Outcome};
use auditloop::engine::ids::PrNumber;
use auditloop::engine::record::{AuditState, EventKind, Grade};
use auditloop::engine::repo_config::WorkUnitAudit;
use auditloop::engine::report::Verdict;
use gate_support::*;

fn needs_remediation(s: &mut Scenario, blocking: usize) {
    let mut run = s.last_run();
    run.verdict = Verdict::NeedsRemediation;
    run.findings = (1..=blocking)
        .map(|i| finding(&format!("A-0{i}"), None, true))
        .collect();
    s.set_last_run(run);
    let r = s.record();
    r.audit_state = AuditState::Open;
    r.latest_verdict = Some(Verdict::NeedsRemediation);
    r.certified_artifact = None;
    r.certified_covered_tasks = None;
    r.certification_grade = None;
}

fn pending_check(s: &mut Scenario) {
    s.config.evidence.required_checks = vec!["test".into()];
    s.checks = vec![check("test", CheckStatus::InProgress, None)];
}

type Change = fn(&mut Scenario);

#[test]
fn conclusion_and_title_follow_the_reference() {
    let cases: &[(&str, Change, Conclusion, &str)] = &[
        (
            "every condition holds",
            |_| {},
            Conclusion::Success,
            "Certified — grade session-reported at commit:",
        ),
        (
            "authenticated",
            |s| {
                let mut run = s.last_run();
                run.grade = Grade::Authenticated;
                s.set_last_run(run);
                s.record().certification_grade = Some(Grade::Authenticated);
            },
            Conclusion::Success,
            "Certified — grade authenticated at commit:",
        ),
        (
            "with accepted limitations",
            |s| {
                let mut run = s.last_run();
                run.verdict = Verdict::CertifiedWithAcceptedLimitations;
                run.limitations = vec![limitation("L-01", "k", Some("D-1"))];
                s.set_last_run(run);
                s.record().latest_verdict = Some(Verdict::CertifiedWithAcceptedLimitations);
            },
            Conclusion::Success,
            "Certified with accepted limitations (L-01) — grade session-reported at",
        ),
        (
            "disabled",
            |s| {
                s.config.work_unit_audit = WorkUnitAudit::Disabled;
                s.records = Ok(vec![]);
            },
            Conclusion::Neutral,
            "Audit disabled — work_unit_audit: disabled",
        ),
        (
            "awaiting a human",
            |s| {
                s.record().audit_state = AuditState::AwaitingHuman;
                s.record().latest_verdict = Some(Verdict::NeedsHumanDecision);
            },
            Conclusion::ActionRequired,
            "Awaiting a human decision — a maintainer answers with /audit resolve",
        ),
        (
            "awaiting a human, but the history is broken",
            |s| {
                s.record().audit_state = AuditState::AwaitingHuman;
                s.record().history[1].prev = None;
            },
            Conclusion::Failure,
            "Damaged records — AUD-",
        ),
        (
            "only an evidence check is running",
            pending_check,
            Conclusion::InProgress,
            "Evidence pending — required check test is still running",
        ),
        (
            "running check, but the head moved",
            |s| {
                pending_check(s);
                s.head = sha('b');
            },
            Conclusion::Failure,
            "Head moved — the record is bound to commit:",
        ),
        (
            "rebound after a push",
            |s| s.record().audit_state = AuditState::Open,
            Conclusion::Failure,
            "Open — the certification is stale: post a new report",
        ),
        (
            "no record",
            |s| s.records = Ok(vec![]),
            Conclusion::Failure,
            "No audit record yet — start one with /audit new",
        ),
        (
            "unreadable records",
            |s| s.records = Err("gone".into()),
            Conclusion::Failure,
            "Damaged records — the audit records cannot be read: gone",
        ),
        (
            "several records",
            |s| s.records = Ok(vec![certified_record(), certified_record()]),
            Conclusion::Failure,
            "Damaged records — 2 records are current",
        ),
        (
            "two blocking findings",
            |s| needs_remediation(s, 2),
            Conclusion::Failure,
            "Needs remediation — A-01 (high, blocking) and 1 more: fix them, then post a new report · run",
        ),
        (
            "one blocking finding",
            |s| needs_remediation(s, 1),
            Conclusion::Failure,
            "Needs remediation — A-01 (high, blocking): fix it, then post a new report · run",
        ),
        (
            "budget exhausted",
            |s| {
                needs_remediation(s, 1);
                s.record().audit_state = AuditState::Blocked;
            },
            Conclusion::Failure,
            "Blocked: the audit budget is spent — a maintainer raises it with /audit override --budget",
        ),
        (
            "no report yet",
            |s| {
                let r = s.record();
                r.history
                    .retain(|e| !matches!(e.kind, EventKind::Report(_)));
                rechain(r);
                r.audit_state = AuditState::Open;
            },
            Conclusion::Failure,
            "Open — waiting for the first report on commit:",
        ),
        (
            "evidence missing",
            |s| s.record().evidence = None,
            Conclusion::Failure,
            "Evidence missing — no evidence for commit:",
        ),
    ];
    for (name, change, conclusion, title) in cases {
        let mut s = Scenario::default();
        change(&mut s);
        let result = s.evaluate();
        assert_eq!(result.conclusion, *conclusion, "{name}: {result:#?}");
        assert!(
            result.title.plain().starts_with(*title),
            "{name}: {:?}",
            result.title.plain()
        );
    }
}

#[test]
fn disabled_says_so_and_evaluates_nothing() {
    let mut s = Scenario::default();
    s.config.work_unit_audit = WorkUnitAudit::Disabled;
    let result = s.evaluate();
    assert!(result.conditions.is_empty());
    assert!(result.title.contains("disabled"));
}

fn result(pr: u64, change: Change) -> (PrNumber, GateResult) {
    let mut s = Scenario::default();
    change(&mut s);
    (PrNumber(pr), s.evaluate())
}

#[test]
fn prs_sharing_a_head_pass_only_together() {
    let pass = result(42, |_| {});
    let fail = result(43, |s| s.records = Ok(vec![]));
    let running = result(44, pending_check);
    let waiting = result(45, |s| s.record().audit_state = AuditState::AwaitingHuman);

    let both = combine(&[pass.clone(), result(46, |_| {})]);
    assert_eq!(both.conclusion, Conclusion::Success);
    assert_eq!(both.conditions.len(), 18);
    assert!(
        both.title.plain().starts_with("Certified — "),
        "{:?}",
        both.title
    );

    let mixed = combine(&[pass.clone(), fail.clone()]);
    assert_eq!(mixed.conclusion, Conclusion::Failure);
    assert!(
        mixed
            .title
            .plain()
            .starts_with("PR #43: No audit record yet"),
        "{:?}",
        mixed.title
    );
    assert!(mixed.conditions[..9]
        .iter()
        .all(|c| c.reason.starts_with("PR #42: ")));
    assert!(mixed.conditions[9..]
        .iter()
        .all(|c| c.reason.starts_with("PR #43: ")));
    assert!(mixed.conditions.iter().any(|c| c.outcome == Outcome::Fail));

    let cases = [
        (vec![pass.clone(), running.clone()], Conclusion::InProgress),
        (
            vec![running.clone(), waiting.clone()],
            Conclusion::ActionRequired,
        ),
        (vec![waiting, fail.clone()], Conclusion::Failure),
        (vec![fail, running], Conclusion::Failure),
    ];
    for (results, conclusion) in cases {
        assert_eq!(combine(&results).conclusion, conclusion, "{results:#?}");
    }

    assert_eq!(combine(std::slice::from_ref(&pass)), pass.1);
    assert_eq!(combine(&[]).conclusion, Conclusion::Failure);
}
