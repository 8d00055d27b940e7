//! Findings as review threads on the diff (reference: "Review threads"): one `COMMENT`
//! review per recorded run, one thread per blocking finding whose first evidence reference
//! lies in the diff, resolved when its key goes, unresolved when it comes back, never a
//! second one on the same line, and a thread a person resolved stays resolved.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::layouts::record_file;

const SHA3: &str = "3333333333333333333333333333333333333333";
const FILE: &str = "src/server/webhook.rs";
/// The `webhook-replay` finding's first reference, as the fixture cites it.
const MARKER: &str = "<!-- auditloop:finding:AUD-1:webhook-replay -->";

/// A hunk adding new lines `from..from + n`.
fn added(from: u64, n: u64) -> String {
    let lines = "\n+line".repeat(usize::try_from(n).unwrap());
    format!("@@ -{},0 +{from},{n} @@{lines}", from - 1)
}

/// PR 42 on SHA1 with `config`, changing lines 80–109 of the webhook, record AUD-1 open.
async fn opened(config: &str) -> Loop {
    let mut l = Loop::start(42).await;
    if !config.is_empty() {
        l.gh.set_file(".github/auditloop.yml", config);
    }
    l.gh.set_pull_files(42, &[(FILE, "modified", &added(80, 30))]);
    l.new_record(42).await;
    l
}

/// The fixture's findings that `keep` names, by id, on `sha`.
pub fn run_on(sha: &str, run: u32, keep: &[&str]) -> Value {
    let mut r = report(
        "AUD-1",
        42,
        sha,
        &format!("ci-run-{run}"),
        "needs_remediation",
    );
    r["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| keep.contains(&f["id"].as_str().unwrap()));
    r
}

/// Posts `r` as the auditor; it is accepted.
pub async fn post(l: &mut Loop, r: &Value) {
    l.comment(42, "auditor", &report_comment(r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
}

async fn push(l: &mut Loop, sha: &str) {
    l.gh.set_pull_head(42, sha);
    l.pull_event("synchronize", 42, sha).await;
}

fn threads(l: &Loop) -> Vec<Value> {
    l.gh.review_threads(42)
}

#[tokio::test]
async fn a_blocking_finding_on_a_changed_line_gets_its_thread_and_nothing_else_does() {
    let mut l = opened("").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01", "A-02"])).await;
    let reviews = l.gh.reviews(42);
    assert_eq!(reviews.len(), 1, "{reviews:#?}");
    assert_eq!(reviews[0]["event"], "COMMENT");
    assert_eq!(reviews[0]["commit_oid"], SHA1);
    let t = threads(&l);
    // A-02 (line 120, not blocking) is off the diff and below the setting: no thread.
    assert_eq!(t.len(), 1, "{t:#?}");
    assert_eq!(
        (t[0]["path"].as_str(), t[0]["line"].as_u64()),
        (Some(FILE), Some(97))
    );
    assert_eq!(t[0]["start_line"], 88);
    assert_eq!(t[0]["resolved"], false);
    let body = t[0]["body"].as_str().unwrap();
    for part in [
        "A-01",
        "high",
        "blocking",
        MARKER,
        record_file("AUD-1").as_str(),
    ] {
        assert!(body.contains(part), "{part} missing from {body}");
    }
    // The finding still shows in the body, as before.
    assert!(l.gh.pull_body(42).contains("A-01"));
}

#[tokio::test]
async fn a_finding_outside_the_diff_gets_no_thread_and_no_review() {
    let mut l = opened("").await;
    l.gh.set_pull_files(42, &[(FILE, "modified", &added(1, 10))]);
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    assert!(l.gh.reviews(42).is_empty(), "{:#?}", l.gh.reviews(42));
    assert!(l.gh.pull_body(42).contains("A-01"));
}

#[tokio::test]
async fn a_run_without_the_finding_resolves_its_thread_and_one_raising_it_again_unresolves_it() {
    let mut l = opened("").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    push(&mut l, SHA2).await;
    post(&mut l, &run_on(SHA2, 2, &["A-02"])).await;
    let t = threads(&l);
    assert_eq!(t.len(), 1, "{t:#?}");
    assert_eq!(t[0]["resolved"], true, "{t:#?}");
    push(&mut l, SHA3).await;
    post(&mut l, &run_on(SHA3, 3, &["A-01"])).await;
    let t = threads(&l);
    assert_eq!(t.len(), 1, "the same thread, not a second one: {t:#?}");
    assert_eq!(t[0]["resolved"], false, "{t:#?}");
    assert_eq!(t[0]["comments"], 1);
}

#[tokio::test]
async fn a_carried_finding_keeps_its_one_thread() {
    let mut l = opened("").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    push(&mut l, SHA2).await;
    post(&mut l, &run_on(SHA2, 2, &["A-01"])).await;
    let t = threads(&l);
    assert_eq!(t.len(), 1, "{t:#?}");
    assert_eq!(t[0]["resolved"], false);
    // The second run posts no review at all: it has nothing new to say on the diff.
    assert_eq!(l.gh.reviews(42).len(), 1);
}

#[tokio::test]
async fn a_moved_line_gets_a_new_thread_and_the_old_one_is_resolved() {
    let mut l = opened("").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    push(&mut l, SHA2).await;
    let mut moved = run_on(SHA2, 2, &["A-01"]);
    moved["findings"][0]["evidence_refs"][0] = json!(format!("{FILE}:100-102"));
    post(&mut l, &moved).await;
    let t = threads(&l);
    assert_eq!(t.len(), 2, "{t:#?}");
    assert_eq!(
        (t[0]["line"].as_u64(), &t[0]["resolved"]),
        (Some(97), &json!(true))
    );
    assert_eq!(
        (t[1]["line"].as_u64(), &t[1]["resolved"]),
        (Some(102), &json!(false))
    );
    assert!(t[1]["body"].as_str().unwrap().contains(MARKER));
}

#[tokio::test]
async fn review_threads_off_posts_no_review_and_reads_no_diff() {
    let mut l = opened("review_threads: off\n").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    assert!(l.gh.reviews(42).is_empty());
    let files = l.gh.requests();
    assert!(
        !files.iter().any(|r| r.path.ends_with("/pulls/42/files")),
        "the diff was read for nothing"
    );
}

#[tokio::test]
async fn review_threads_all_puts_a_thread_on_a_finding_that_does_not_block() {
    let mut l = opened("review_threads: all\n").await;
    l.gh.set_pull_files(42, &[(FILE, "modified", &added(80, 50))]);
    post(&mut l, &run_on(SHA1, 1, &["A-01", "A-02"])).await;
    let t = threads(&l);
    assert_eq!(t.len(), 2, "{t:#?}");
    assert_eq!(l.gh.reviews(42).len(), 1, "one review holds both");
}

#[tokio::test]
async fn a_thread_resolved_by_hand_stays_resolved_while_its_finding_is_raised() {
    let mut l = opened("").await;
    post(&mut l, &run_on(SHA1, 1, &["A-01"])).await;
    let id = threads(&l)[0]["id"].as_str().unwrap().to_owned();
    l.gh.resolve_thread_by_hand(&id);
    push(&mut l, SHA2).await;
    post(&mut l, &run_on(SHA2, 2, &["A-01"])).await;
    let t = threads(&l);
    assert_eq!(t.len(), 1, "no second thread: {t:#?}");
    assert_eq!(t[0]["resolved_by"], support::fake_reviews::HAND);
    // The gate never reads threads: the finding still blocks.
    assert_ne!(l.gate(SHA2)["conclusion"], "success");
}

#[tokio::test]
async fn a_waived_finding_has_its_thread_resolved() {
    let mut l = opened("").await;
    let mut run = run_on(SHA1, 1, &["A-01"]);
    run["findings"][0]["cross_remit"] = json!(true);
    post(&mut l, &run).await;
    let waive = "/audit waive A-01 --basis cross-remit --reason \"another team's remit\"";
    l.comment(42, "maint", waive).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let t = threads(&l);
    assert_eq!(t[0]["resolved"], true, "{t:#?}");
}
