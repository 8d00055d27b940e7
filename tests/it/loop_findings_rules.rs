//! The findings loop's stricter rules (docs/reference.md#commands,
//! docs/reference.md#the-plan-audit-handoff): a vetoed key takes `fix` only; a handoff must
//! agree with itself; invocation failures on one candidate are bounded.

use crate::support;

use support::audit::{Loop, SHA1};
use support::steps::handoff_comment;

/// A handoff comment whose lines are `lines` (after the `AUDIT:` line of `word`).
fn handoff_with(word: &str, invocation: &str, output: &str, findings: &str) -> String {
    format!(
        "/audit report --audit-id AUD-1 --invocation {invocation} --candidate commit:{SHA1}\n\n```text\nAUDIT: {word}\nOutput: {output}\nSections covered: 9\nFindings: {findings}\nOpen questions: 0\nReason: The auditor gave up on the plan.\n```\n"
    )
}

#[tokio::test]
async fn a_vetoed_key_takes_fix_only() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit veto webhook-replay --reason \"Replay must be fixed\"",
        true,
    )
    .await;
    for kind in ["file", "reject", "follow-up"] {
        let commits = l.log_len();
        l.comment(
            42,
            "maint",
            &format!("/audit dispose A-01 {kind} --note \"later\""),
        )
        .await;
        let reply = l.last_reply(42);
        assert!(reply.starts_with("auditloop: refused"), "{kind}: {reply}");
        assert!(reply.contains("`dispose-vetoed`"), "{kind}: {reply}");
        assert!(
            reply.contains("webhook-replay"),
            "{kind} names the veto: {reply}"
        );
        assert_eq!(l.log_len(), commits, "{kind}: nothing recorded");
        assert!(l.gh.state().issues.is_empty(), "{kind}: no issue filed");
    }
    l.ok(
        "maint",
        "/audit dispose A-01 fix --note \"fixing now\"",
        true,
    )
    .await;
}

#[tokio::test]
async fn a_fail_handoff_without_a_critical_finding_is_refused() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let commits = l.log_len();
    let body = handoff_with(
        "FAIL",
        "plan-audit-1",
        "docs/audits/plan-audit.md",
        "critical=0, warning=2, info=1",
    );
    l.comment(42, "auditor", &body).await;
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    assert!(reply.contains("handoff-inconsistent"), "{reply}");
    assert_eq!(l.log_len(), commits, "nothing recorded, no run spent");
    // With a critical finding it is a run.
    l.ok(
        "auditor",
        &handoff_comment("FAIL", "plan-audit-2", SHA1),
        true,
    )
    .await;
    let record = l.record("AUD-1");
    assert_eq!(record["latest_verdict"], "needs_remediation");
    // The run keeps the counts, and the views show them, critical as blocking.
    let run = l.last_event();
    assert_eq!(
        run["handoff"],
        serde_json::json!({"findings": {"critical": 1, "warning": 2, "info": 0}})
    );
    let body = l.gh.pull_body(42);
    assert!(body.contains("| 1 / 3 |"), "{body}");
    assert!(
        body.contains("critical=1, warning=2, info=0 (1 blocking)"),
        "{body}"
    );
}

#[tokio::test]
async fn a_handoff_whose_report_was_not_written_is_an_invocation_failure() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let body = handoff_with(
        "FAIL",
        "plan-audit-1",
        "not written",
        "critical=2, warning=0, info=0",
    );
    l.ok("auditor", &body, true).await;
    let record = l.record("AUD-1");
    let last = l.last_event();
    assert_eq!(last["type"], "invocation_failure", "{last:#}");
    assert_eq!(record["audit_budget"], 3);
    assert!(
        record["history"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["type"] != "report"),
        "no run spent"
    );
}

#[tokio::test]
async fn the_fourth_error_on_one_candidate_is_refused_until_an_override() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    for n in 1..=3 {
        let body = handoff_with(
            "ERROR",
            &format!("plan-audit-{n}"),
            "not written",
            "critical=0, warning=0, info=0",
        );
        l.ok("auditor", &body, true).await;
    }
    let commits = l.log_len();
    let fourth = handoff_with(
        "ERROR",
        "plan-audit-4",
        "not written",
        "critical=0, warning=0, info=0",
    );
    l.comment(42, "auditor", &fourth).await;
    let reply = l.last_reply(42);
    assert!(reply.contains("`invocation-failures-spent`"), "{reply}");
    assert!(reply.contains("/audit override"), "{reply}");
    assert_eq!(l.log_len(), commits, "nothing recorded");
    l.ok(
        "maint",
        "/audit override --budget 4 --note \"The runner was down\"",
        true,
    )
    .await;
    let fifth = handoff_with(
        "ERROR",
        "plan-audit-5",
        "not written",
        "critical=0, warning=0, info=0",
    );
    l.ok("auditor", &fifth, true).await;
}

#[tokio::test]
async fn a_filed_issue_carries_the_claim_the_evidence_and_what_done_means() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit dispose A-01 file --note \"After the release\"",
        true,
    )
    .await;
    let issues = l.gh.state().issues.clone();
    assert_eq!(issues.len(), 1);
    let body = issues[0]["body"].as_str().unwrap_or_default().to_owned();
    insta::assert_snapshot!("filed_issue_body", body);
    assert!(body.contains("**Required outcome**"), "{body}");
    assert!(body.contains("**Verification required**"), "{body}");
    assert!(
        body.contains("blob/auditloop-records/records/000/AUD-1.json"),
        "{body}"
    );
}
