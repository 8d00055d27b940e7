//! Pull requests from forks, and re-runs asked of another App's `audit-gate`. GitHub
//! leaves fork PRs out of a check run's `pull_requests` and of a commit's pull-request
//! listing, so an evidence check completing on a fork's head is matched by the head; and a
//! re-run of a run named like ours but owned by another App is that App's to answer.

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1};
use support::checks::{check_run, check_suite_rerequested};
use support::harness::TestApp;

/// Fork PR 42 with `evidence.required_checks: [test]`, certified on SHA1 once `test`
/// passed there; then CI runs `test` again and it fails, no event reaching the app yet.
async fn certified_fork_then_test_fails() -> Loop {
    let mut l = Loop::start(42).await;
    l.gh.make_fork(42);
    l.gh.set_file(
        ".github/auditloop.yml",
        "evidence:\n  required_checks: [test]\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"").await;
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    let certified = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&certified)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    l.gh.add_ci_check(SHA1, "test", "completed", Some("failure"));
    l
}

#[tokio::test]
async fn an_evidence_check_on_a_fork_head_regates_the_pr() {
    let mut l = certified_fork_then_test_fails().await;
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA1, Some("failure")),
    )
    .await;
    assert_eq!(l.gate(SHA1)["conclusion"], "failure", "{:#}", l.gate(SHA1));
}

#[tokio::test]
async fn a_process_that_never_saw_the_fork_finds_it_by_its_head() {
    let l = certified_fork_then_test_fails().await;
    // A restarted replica: nothing remembered, and the commit's PR listing is empty.
    let fresh = TestApp::start(&l.gh).await;
    let r = fresh
        .deliver(
            "check_run",
            "fork-check",
            &check_run("completed", "test", SHA1, Some("failure")),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(
        r.text().await.unwrap().contains("handled"),
        "handled, not ignored"
    );
    assert_eq!(l.gate(SHA1)["conclusion"], "failure", "{:#}", l.gate(SHA1));
    let listed =
        l.gh.requests()
            .iter()
            .filter(|r| r.method == "GET" && r.path.ends_with("/hello/pulls"))
            .count();
    assert_eq!(listed, 1, "the open PRs were listed once");
}

#[tokio::test]
async fn a_rerun_of_another_apps_audit_gate_is_ignored_without_a_call() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let runs = l.gh.gate_runs(SHA1).len();
    let before = l.gh.requests().len();

    let mut foreign = check_run("rerequested", "audit-gate", SHA1, Some("failure"));
    foreign["check_run"]["app"]["id"] = json!(777);
    foreign["check_run"]["app"]["slug"] = json!("another-gate");
    let r = l.app.deliver("check_run", "foreign-rerun", &foreign).await;
    assert_eq!(r.status(), 200);
    let mut suite = check_suite_rerequested(SHA1);
    suite["check_suite"]["app"]["id"] = json!(777);
    let r = l.app.deliver("check_suite", "foreign-suite", &suite).await;
    assert_eq!(r.status(), 200);

    let during: Vec<String> = l.gh.requests()[before..]
        .iter()
        .filter(|r| !r.path.contains("/access_tokens") && r.path != "/app")
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(during.is_empty(), "{during:#?}");
    assert_eq!(l.gh.gate_runs(SHA1).len(), runs, "no run republished");

    // Our own run's re-run still republishes it.
    let before = l.gh.requests().len();
    l.deliver(
        "check_run",
        &check_run("rerequested", "audit-gate", SHA1, Some("failure")),
    )
    .await;
    let republished = l.gh.requests()[before..]
        .iter()
        .filter(|r| r.method != "GET" && r.path.contains("/check-runs"))
        .count();
    assert_eq!(republished, 1);
}
