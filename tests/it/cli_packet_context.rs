//! The packet's `tasks`, `checks` and `decisions` (docs/reference.md#the-audit-packet): what
//! an auditor judges outcome and completeness against, read in one GraphQL query by the
//! packet alone.

use crate::support;

use serde_json::Value;
use support::audit::{Loop, SHA1};

/// The packet of PR 42, and the GraphQL queries named `PacketReads` it sent.
async fn packet(l: &Loop) -> (Value, usize) {
    crate::cli_packet_delta::packet_counting(l, reads_context).await
}

fn reads_context(r: &support::fake::Recorded) -> bool {
    r.body["query"]
        .as_str()
        .is_some_and(|q| q.contains("query PacketReads"))
}

/// PR 42 covering issue #12 (long body), closed issue #13, PR #42 itself and task T-041,
/// with `test` required and two decision records.
async fn covering_issues() -> Loop {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "evidence:\n  required_checks: [test, lint]\n",
    );
    l.gh.set_file(
        "docs/decisions/D-2-queue.md",
        "Intro line\n\n## Merge through the queue\n",
    );
    l.gh.set_file("docs/decisions/D-1.md", "# Keep records on a branch\n");
    l.gh.set_file("docs/decisions/README.md", "# Decisions\n");
    let long = "x".repeat(4_100);
    l.gh.add_issue(
        12,
        "Refuse replayed deliveries",
        &long,
        &["security", "intake"],
        true,
    );
    l.gh.add_issue(13, "Log delivery ids", "Short.", &[], false);
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    l.gh.set_pull_body(42, "Closes #12, fixes #13, refs #42 and T-041\n");
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --covered-tasks \"#12,#13,#42,T-041\"").await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

#[tokio::test]
async fn the_packet_carries_the_covered_issues_the_required_checks_and_the_decisions() {
    let l = covering_issues().await;
    let (p, graphql) = packet(&l).await;
    assert_eq!(graphql, 1, "one query reads all three");

    let tasks = p["tasks"].as_array().expect("tasks");
    let by_id = |id: &str| {
        tasks
            .iter()
            .find(|t| t["id"] == id)
            .cloned()
            .unwrap_or_default()
    };
    let open = by_id("#12");
    assert_eq!(open["title"], "Refuse replayed deliveries", "{p:#}");
    assert_eq!(open["state"], "open");
    assert_eq!(open["labels"], serde_json::json!(["security", "intake"]));
    assert_eq!(open["body_truncated"], true);
    assert_eq!(open["body"].as_str().unwrap().chars().count(), 4_000);
    let closed = by_id("#13");
    assert_eq!(closed["state"], "closed");
    assert_eq!(closed["body_truncated"], false);
    assert_eq!(
        by_id("#42"),
        serde_json::json!({"id": "#42"}),
        "a pull request: the id alone"
    );
    assert_eq!(by_id("T-041"), serde_json::json!({"id": "T-041"}));

    let checks = &p["checks"];
    assert_eq!(checks[0]["name"], "test");
    assert_eq!(checks[0]["status"], "completed");
    assert_eq!(checks[0]["conclusion"], "success");
    assert!(
        checks[0]["url"]
            .as_str()
            .is_some_and(|u| u.contains("/runs/")),
        "{checks:#}"
    );
    assert_eq!(checks[1]["name"], "lint");
    assert_eq!(checks[1]["status"], "missing");

    let decisions = &p["decisions"];
    assert_eq!(
        decisions,
        &serde_json::json!([
            {"id": "D-1", "file": "docs/decisions/D-1.md", "title": "Keep records on a branch"},
            {"id": "D-2", "file": "docs/decisions/D-2-queue.md", "title": "Merge through the queue"},
        ])
    );
}

#[tokio::test]
async fn the_webhook_path_never_reads_the_packets_context() {
    let l = covering_issues().await;
    assert!(l.gh.requests().iter().all(|r| !reads_context(r)));
    assert!(l
        .gh
        .requests()
        .iter()
        .all(|r| !r.path.contains("/issues/12") && !r.path.contains("/issues/13")));
}

#[tokio::test]
async fn a_packet_whose_tasks_are_no_issues_still_carries_its_checks_and_decisions() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "evidence:\n  required_checks: [test]\n",
    );
    l.gh.set_file("docs/decisions/D-1.md", "# Keep records on a branch\n");
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    l.gh.set_pull_body(42, "Works on T-041\n");
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --covered-tasks T-041").await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    // The document asks no issue: it declares no fragment for one (GitHub refuses an
    // unused fragment, and the fake with it).
    let (p, graphql) = packet(&l).await;
    assert_eq!(graphql, 1);
    let sent = l.gh.requests();
    let query = sent
        .iter()
        .rev()
        .find(|r| reads_context(r))
        .and_then(|r| r.body["query"].as_str())
        .unwrap()
        .to_owned();
    assert!(!query.contains("fragment"), "{query}");
    assert_eq!(p["tasks"], serde_json::json!([{"id": "T-041"}]), "{p:#}");
    assert_eq!(p["checks"][0]["conclusion"], "success", "{p:#}");
    assert_eq!(p["decisions"][0]["id"], "D-1", "{p:#}");
}
