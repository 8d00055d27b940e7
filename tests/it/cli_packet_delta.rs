//! The packet's `changed_since` (one compare call from the last audited candidate to the
//! current one, cut at GitHub's 300 files and saying so) and `patterns` (docs/reference.md#the-audit-packet).

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::REPO;
use support::steps::new_command;

use crate::cli_remote::auditloop;

const SHA3: &str = "3333333333333333333333333333333333333333";

async fn packet(l: &Loop) -> (Value, usize) {
    packet_counting(l, |r| r.path.contains("/compare/")).await
}

/// PR 42's packet as `auditloop packet` prints it (checked against its schema), and how
/// many of the requests it sent `counted` picks.
pub async fn packet_counting(
    l: &Loop,
    counted: impl Fn(&support::fake::Recorded) -> bool,
) -> (Value, usize) {
    let dir = tempfile::tempdir().unwrap();
    let before = l.gh.requests().len();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["packet", "--repo", REPO, "--pr", "42"],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let picked = l.gh.requests()[before..]
        .iter()
        .filter(|r| counted(r))
        .count();
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    support::schemas::assert_packet(&printed);
    (printed, picked)
}

/// PR 43's record certified after its blocking `webhook-replay` finding (a pattern); PR 42
/// audited once on SHA1, then pushed to SHA2.
async fn audited_then_pushed() -> Loop {
    let mut l = Loop::start(42).await;
    l.gh.add_pull(43, SHA3, "Hardens intake.\n\nCloses #12\n", "alice");
    l.pull_event("opened", 43, SHA3).await;
    l.comment(43, "alice", &new_command("")).await;
    let raised = report("AUD-1", 43, SHA3, "ci-run-43-1", "needs_remediation");
    l.comment(43, "auditor", &report_comment(&raised)).await;
    let mut fixed = report("AUD-1", 43, SHA3, "ci-run-43-2", "certified");
    fixed["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f.get("key").is_none());
    l.comment(43, "auditor", &report_comment(&fixed)).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    // Merged: its task #12 is finished, so PR 42 may open a record of it.
    l.gh.close_pull(43, true);

    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let first = report("AUD-2", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    assert_eq!(
        l.record("AUD-2")["candidate_artifact"],
        format!("commit:{SHA2}")
    );
    assert!(l.refusals(42).is_empty() && l.refusals(43).is_empty());
    l
}

#[tokio::test]
async fn the_packet_lists_what_changed_since_the_last_audited_candidate() {
    let l = audited_then_pushed().await;
    l.gh.set_comparison(
        SHA1,
        SHA2,
        vec!["src/server/webhook.rs".into(), "tests/it/replay.rs".into()],
    );
    let (p, compares) = packet(&l).await;
    assert_eq!(compares, 1, "one compare call");
    let c = &p["changed_since"];
    assert_eq!(c["candidate_artifact"], format!("commit:{SHA1}"));
    assert_eq!(c["run"], 1);
    assert_eq!(c["to"], format!("commit:{SHA2}"));
    assert_eq!(c["status"], "ahead");
    assert_eq!(c["files_truncated"], false);
    assert_eq!(c["files_total"], 2);
    assert_eq!(
        c["files"],
        json!([
            {"path": "src/server/webhook.rs", "status": "modified", "previous_path": null},
            {"path": "tests/it/replay.rs", "status": "modified", "previous_path": null},
        ])
    );
    // The repository's recurring findings, the most seen first.
    assert_eq!(p["patterns"][0]["key"], "webhook-replay");
    assert_eq!(p["patterns"][0]["seen"], 1);
    assert_eq!(p["patterns"][0]["records"], json!(["AUD-1"]));
}

#[tokio::test]
async fn a_push_of_thousands_of_files_is_cut_at_githubs_limit_and_says_so() {
    let l = audited_then_pushed().await;
    let paths = (0..3_000)
        .map(|i| format!("src/gen/file_{i:04}.rs"))
        .collect();
    l.gh.set_comparison(SHA1, SHA2, paths);
    let (p, compares) = packet(&l).await;
    assert_eq!(compares, 1, "one compare call, never a page per 300 files");
    let c = &p["changed_since"];
    assert_eq!(c["files"].as_array().unwrap().len(), 300);
    assert_eq!(c["files_listed"], 300);
    assert_eq!(c["files_truncated"], true);
    assert_eq!(
        c["files_total"],
        Value::Null,
        "GitHub does not say how many"
    );
    assert!(
        c["note"].as_str().unwrap().contains("at most 300 files"),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_candidate_audited_as_it_is_needs_no_compare() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    let (p, compares) = packet(&l).await;
    assert_eq!(compares, 0);
    assert_eq!(p["changed_since"]["status"], "identical");
    assert_eq!(p["changed_since"]["files"], json!([]));
    assert_eq!(p["patterns"], json!([]), "no pattern library yet");
}
