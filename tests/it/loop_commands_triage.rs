//! The maintainer commands (docs/reference.md#commands) carried out once each through the real server:
//! resolve (decision, limitation, contested finding), override, waive, veto and dispose.

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1};
use support::steps::asks_human;

#[tokio::test]
async fn resolve_answers_a_human_decision() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.ok("auditor", &report_comment(&asks_human("ci-run-1")), true)
        .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "awaiting_human");
    l.ok(
        "maint",
        "/audit resolve --note \"Scope confirmed with the team\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "open");
    let event = l.last_event();
    assert_eq!(event["type"], "resolution");
    assert_eq!(event["authority"], "human: maint");
}

#[tokio::test]
async fn resolve_limitation_grants_an_authority_a_later_report_cites() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.ok("auditor", &report_comment(&asks_human("ci-run-1")), true)
        .await;
    l.ok(
        "maint",
        "/audit resolve L-01 --note \"GHES is out of scope for this release\"",
        true,
    )
    .await;
    let event = l.last_event();
    assert_eq!(event["type"], "limitation_acceptance");
    assert_eq!(event["authority"], "human: maint");
    assert_eq!(event["limitations"][0]["key"], "no-ghes-e2e");
    assert_eq!(l.record("AUD-1")["audit_state"], "open");

    let mut r = report(
        "AUD-1",
        42,
        SHA1,
        "ci-run-2",
        "certified_with_accepted_limitations",
    );
    r["limitations"] = asks_human("x")["limitations"].clone();
    r["limitations"][0]["authority"] = json!("human: maint");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
}

#[tokio::test]
async fn resolve_finding_settles_a_rejected_finding() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit dispose A-01 reject --note \"The dedup window test covers it\"",
        true,
    )
    .await;
    l.ok(
        "maint",
        "/audit resolve A-01 --note \"Agreed: covered by the dedup test\"",
        true,
    )
    .await;
    let event = l.last_event();
    assert_eq!(event["type"], "resolution");
    assert_eq!(event["finding"]["id"], "A-01");
}

#[tokio::test]
async fn override_raises_the_budget() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit override --budget 5 --note \"Two more rounds for the refactor\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_budget"], 5);
    let event = l.last_event();
    assert_eq!(event["type"], "override");
    assert_eq!(event["previous_budget"], 3);
}

#[tokio::test]
async fn waive_records_a_waiver_shown_in_the_body() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit waive A-02 --basis triage-threshold --reason \"Cosmetic, below the triage bar\"",
        true,
    )
    .await;
    let event = l.last_event();
    assert_eq!(event["type"], "waiver");
    assert_eq!(event["findings"][0]["id"], "A-02");
    assert_eq!(event["authority"], "human: maint");
    assert!(l
        .gh
        .pull_body(42)
        .contains("Cosmetic, below the triage bar"));
}

#[tokio::test]
async fn veto_records_the_key_from_the_next_round() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit veto webhook-replay --reason \"Replay must be fixed, not waived\"",
        true,
    )
    .await;
    let event = l.last_event();
    assert_eq!(event["type"], "veto");
    assert_eq!(event["key"], "webhook-replay");
    assert_eq!(event["effective_from_round"], 2);
}

#[tokio::test]
async fn dispose_each_kind() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit dispose A-02 follow-up --note \"Next sprint\"",
        true,
    )
    .await;
    assert_eq!(l.last_event()["disposition"], "follow-up");
    l.ok(
        "maint",
        "/audit dispose A-01 fix --note \"Fixing in this PR\"",
        true,
    )
    .await;
    assert_eq!(l.last_event()["disposition"], "fix");
    assert!(l.gh.state().issues.is_empty(), "only `file` opens an issue");

    // `file` and `reject` on a second run's findings.
    let r = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    l.ok("auditor", &report_comment(&r), true).await;
    l.ok(
        "maint",
        "/audit dispose A-02 file --note \"Tracked separately\"",
        true,
    )
    .await;
    let event = l.last_event();
    assert_eq!(event["disposition"], "file");
    let issues = l.gh.state().issues.clone();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0]["labels"], json!(["tech-debt"]));
    assert_eq!(event["issue"], issues[0]["number"]);
    l.ok(
        "maint",
        "/audit dispose A-01 reject --note \"The window is closed by the dedup table\"",
        true,
    )
    .await;
    assert_eq!(l.last_event()["disposition"], "reject");
    let body = l.gh.pull_body(42);
    let residual = body
        .split("auditloop:residual:start")
        .nth(1)
        .unwrap_or_default();
    assert!(residual.contains("A-01"), "contested in residual: {body}");
}

#[tokio::test]
async fn a_decision_record_is_an_authority() {
    let mut l = Loop::start(42).await;
    l.gh.set_file("docs/decisions/D-3-ghes-out-of-scope.md", "# D-3\n");
    l.with_record().await;
    let mut r = report(
        "AUD-1",
        42,
        SHA1,
        "ci-run-1",
        "certified_with_accepted_limitations",
    );
    r["limitations"] = asks_human("x")["limitations"].clone();
    r["limitations"][0]["authority"] = json!("D-3");
    l.ok("auditor", &report_comment(&r), true).await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "certified");
    assert_eq!(l.gate(SHA1)["conclusion"], "success");

    // Condition 7 holds when the gate is evaluated, not only when the report came: with
    // the decision record deleted from the default branch, the next gate fails naming it.
    l.gh.remove_file("docs/decisions/D-3-ghes-out-of-scope.md");
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("D-3") && summary.contains("decisions_path"),
        "{summary}"
    );
}

#[tokio::test]
async fn resolve_on_a_spent_budget_blocks_and_override_reopens() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.ok("alice", &support::steps::new_command("--budget 1"), true)
        .await;
    l.ok("auditor", &report_comment(&asks_human("ci-run-1")), true)
        .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "awaiting_human");
    l.ok("maint", "/audit resolve --note \"Keep the scope\"", true)
        .await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "blocked");
    assert_eq!(record["audit_blocked_reason"], "audit_budget_exhausted");
    l.ok(
        "maint",
        "/audit override --budget 2 --note \"One more round\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "open");
    let r = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.last_event()["run"], 2);
}

#[tokio::test]
async fn a_redelivered_file_disposition_opens_its_issue_once() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // The issue is opened, then writing the records commit fails: the delivery is a 5xx.
    l.gh.fail_next("POST", "/graphql/createCommitOnBranch", 403, &[]);
    let body = "/audit dispose A-01 file --note \"Tracked separately\"";
    let payload = support::deliveries::pr_comment(42, "maint", body);
    let r = l.app.deliver("issue_comment", "file-1", &payload).await;
    assert!(r.status().is_server_error(), "{}", r.status());
    assert_eq!(l.gh.state().issues.len(), 1);
    // GitHub's redelivery of the same delivery finds the issue instead of opening another.
    let r = l.app.deliver("issue_comment", "file-1", &payload).await;
    assert_eq!(r.status(), 200);
    assert_eq!(l.gh.state().issues.len(), 1, "one issue per disposition");
    let event = l.last_event();
    assert_eq!(event["disposition"], "file");
    assert_eq!(event["issue"], l.gh.state().issues[0]["number"]);
}

#[tokio::test]
async fn a_file_disposition_redelivered_after_its_commit_completes_its_views() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // The records commit lands, then updating the PR body (with the +1) fails: the
    // delivery is a 5xx.
    l.gh.fail_next("POST", "/graphql/updatePullRequest", 500, &[]);
    let body = "/audit dispose A-01 file --note \"Tracked separately\"";
    let payload = support::deliveries::pr_comment(42, "maint", body);
    let r = l.app.deliver("issue_comment", "file-2", &payload).await;
    assert!(r.status().is_server_error(), "{}", r.status());
    let mark = l.mark();
    let r = l.app.deliver("issue_comment", "file-2", &payload).await;
    assert_eq!(r.status(), 200);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.mark().commits, mark.commits, "not recorded twice");
    // The +1 (given alongside the failed views, or now) is there once: GitHub keeps one
    // reaction per user and content.
    let comment = payload["comment"]["id"].as_u64().unwrap();
    let on_comment = |l: &Loop| {
        l.gh.state()
            .reactions
            .iter()
            .filter(|(c, r)| *c == comment && r == "+1")
            .count()
    };
    assert_eq!(on_comment(&l), 1, "a +1 at last, once");
    assert!(l.mark().reactions <= mark.reactions + 1);
    assert_eq!(l.gh.state().issues.len(), 1);
    assert!(l.gh.pull_body(42).contains("auditloop:residual:start"));
}
