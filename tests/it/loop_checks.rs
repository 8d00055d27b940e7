//! Check events on GitHub (docs/reference.md#events-handled): required evidence checks, re-requested runs, the
//! "Re-run gate" button, re-requested suites and the merge queue.

use crate::support;

use serde_json::Value;
use support::audit::{report, report_comment, Loop, SHA1};
use support::checks::{check_run, check_suite_rerequested, merge_group, requested_action};

const GROUP: &str = "9999999999999999999999999999999999999999";

/// PR 42 with `evidence.required_checks: [test]`, a record opened without evidence text,
/// `test` green on SHA1, and a certified report on SHA1 (a report waits for the evidence).
/// Then CI runs `test` again on SHA1 (`rerun`: its status), so its latest run is what the
/// gate reads, with no event reaching the app yet.
async fn certified_needing_test(rerun: (&str, Option<&str>)) -> Loop {
    let mut l = Loop::start(42).await;
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
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    l.gh.add_ci_check(SHA1, "test", rerun.0, rerun.1);
    l
}

fn condition_8(gate: &Value) -> String {
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    summary
        .lines()
        .find(|l| l.contains("**8. "))
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_required_check_gates_until_it_succeeds_on_the_head() {
    // CI runs `test` again and it fails: the gate names it.
    let mut l = certified_needing_test(("completed", Some("failure"))).await;
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let row = condition_8(&gate);
    assert!(
        row.contains('❌') && row.contains("test"),
        "names test: {row}"
    );

    l.gh.add_ci_check(SHA1, "test", "queued", None);
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["status"], "in_progress", "{gate:#}");

    // CI finishes; a fork PR's payload names no pull request, so the head SHA finds it.
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA1, Some("success")),
    )
    .await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["status"], "completed", "{gate:#}");
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
}

#[tokio::test]
async fn a_failed_required_check_fails_the_gate() {
    let mut l = certified_needing_test(("completed", Some("failure"))).await;
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA1, Some("failure")),
    )
    .await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    assert!(condition_8(&gate).contains("test"));
}

#[tokio::test]
async fn re_requests_re_evaluate_the_gate() {
    let cases: [(&str, &str, Value, bool); 5] = [
        (
            "check_run.rerequested",
            "check_run",
            check_run("rerequested", "audit-gate", SHA1, Some("failure")),
            true,
        ),
        (
            "the Re-run gate button",
            "check_run",
            requested_action("audit-gate", SHA1, "rerun"),
            true,
        ),
        (
            "check_suite.rerequested",
            "check_suite",
            check_suite_rerequested(SHA1),
            true,
        ),
        (
            "another action's button",
            "check_run",
            requested_action("audit-gate", SHA1, "lgtm"),
            false,
        ),
        (
            "another check re-requested",
            "check_run",
            check_run("rerequested", "lint", SHA1, Some("failure")),
            false,
        ),
    ];
    for (name, event, payload, acts) in cases {
        // CI fails `test` on a second run without any event reaching the app.
        let mut l = certified_needing_test(("completed", Some("failure"))).await;
        assert_eq!(l.gate(SHA1)["conclusion"], "success", "{name}");
        l.deliver(event, &payload).await;
        let want = if acts { "failure" } else { "success" };
        assert_eq!(l.gate(SHA1)["conclusion"], want, "{name}");
    }
}

#[tokio::test]
async fn a_merge_group_head_gets_the_queued_prs_gate() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    l.deliver("merge_group", &merge_group(42, SHA1, GROUP))
        .await;
    let runs = l.gh.gate_runs(GROUP);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["conclusion"], "failure");
    assert_eq!(runs[0]["name"], "audit-gate");

    let certified = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&certified)).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    l.deliver("merge_group", &merge_group(42, SHA1, GROUP))
        .await;
    let run = l.gate(GROUP);
    assert_eq!(run["conclusion"], "success", "{run:#}");
    assert!(
        run["output"]["title"]
            .as_str()
            .unwrap_or_default()
            .starts_with("#42"),
        "{run:#}"
    );
    assert!(
        run["output"]["annotations"].is_null(),
        "no annotations on the group head"
    );
}

/// `check_run.completed` of `name` on the merge-group commit GROUP, which queued PR 42.
fn on_group(name: &str, conclusion: &str) -> Value {
    let mut v = check_run("completed", name, GROUP, Some(conclusion));
    v["check_run"]["check_suite"]["head_branch"] =
        serde_json::json!(format!("gh-readonly-queue/main/pr-42-{SHA1}"));
    v
}

#[tokio::test]
async fn a_merge_group_waits_for_the_required_checks_on_its_own_commit() {
    let mut l = certified_needing_test(("completed", Some("success"))).await;
    l.comment(42, "reader", "/audit gate").await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");

    let history = l.record("AUD-1")["history"].clone();
    // The PR passes; the group commit has not run `test` yet.
    l.deliver("merge_group", &merge_group(42, SHA1, GROUP))
        .await;
    let run = l.gate(GROUP);
    assert_eq!(run["status"], "in_progress", "{run:#}");
    let summary = run["output"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("Integrated candidate") && summary.contains("`test`"),
        "{summary}"
    );

    // CI succeeds on the group commit: the same run passes.
    l.gh.add_ci_check(GROUP, "test", "completed", Some("success"));
    l.deliver("check_run", &on_group("test", "success")).await;
    let runs = l.gh.gate_runs(GROUP);
    assert_eq!(runs.len(), 1, "updated, not created again: {runs:#?}");
    assert_eq!(runs[0]["status"], "completed", "{:#}", runs[0]);
    assert_eq!(runs[0]["conclusion"], "success", "{:#}", runs[0]);
    // Nothing is recorded for the group: no audit is spent on it.
    assert_eq!(l.record("AUD-1")["history"], history);
}

#[tokio::test]
async fn a_required_check_failing_on_the_merge_group_fails_its_run_by_name() {
    let mut l = certified_needing_test(("completed", Some("success"))).await;
    l.comment(42, "reader", "/audit gate").await;
    l.deliver("merge_group", &merge_group(42, SHA1, GROUP))
        .await;
    assert_eq!(l.gate(GROUP)["status"], "in_progress");

    l.gh.add_ci_check(GROUP, "test", "completed", Some("failure"));
    l.deliver("check_run", &on_group("test", "failure")).await;
    let run = l.gate(GROUP);
    assert_eq!(run["conclusion"], "failure", "{run:#}");
    let title = run["output"]["title"].as_str().unwrap_or_default();
    assert!(
        title.starts_with("#42") && title.contains("test") && title.contains("failure"),
        "{title}"
    );
    // The PR's own certification stands.
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
}
