//! Every delivery is answered inside GitHub's 10-second window: a handling whose calls
//! would run past it answers 5xx in time, with nothing half-written, and the redelivery
//! completes it; a heavy first read is not repeated past the window but replaced by the
//! light one at its first failure.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::audit::Loop;
use support::deliveries::pr_comment;
use support::harness::TestApp;

/// GitHub counts an answer after this as a failed delivery.
const WINDOW: Duration = Duration::from_secs(10);

async fn timed(app: &TestApp, id: &str, payload: &Value) -> (u16, Duration) {
    let started = Instant::now();
    let status = app.deliver("issue_comment", id, payload).await.status();
    (status.as_u16(), started.elapsed())
}

fn waive() -> Value {
    pr_comment(
        42,
        "maint",
        "/audit waive A-01 --basis triage-threshold --reason \"Below the bar\"",
    )
}

#[tokio::test]
async fn a_delivery_github_keeps_past_its_window_is_answered_5xx_in_time_and_completed_later() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let (commits, reactions) = (l.log_len(), l.reactions());
    // GitHub answers every call after 3 s: a command's calls take longer than the window.
    l.gh.set_delay(Duration::from_secs(3));
    let payload = waive();
    let (status, took) = timed(&l.app, "slow", &payload).await;
    assert!((500..600).contains(&status), "{status}");
    assert!(took < WINDOW, "answered after {took:?}");
    // GitHub is fast again: the redelivery carries the command out, once.
    l.gh.set_delay(Duration::ZERO);
    let (status, _) = timed(&l.app, "slow", &payload).await;
    assert_eq!(status, 200);
    assert_eq!(l.events_of("AUD-1", "slow"), 1);
    assert!(l.log_len() <= commits + 1, "{:#?}", l.log());
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.reactions(), reactions + 1, "its +1");
}

#[tokio::test]
async fn a_cold_first_read_of_many_records_that_github_answers_slowly_falls_back_at_once() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // 2,000 records of other pull requests beside AUD-1.
    let mut files: Vec<(String, String)> = Vec::new();
    for n in 100..2100 {
        files.push((format!("records/AUD-{n}.md"), format!("# AUD-{n}")));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    l.gh.written_by_the_test("other records, only listed");
    l.gh.commit_files(
        support::deliveries::REPO,
        support::audit::BRANCH,
        &files,
        "more records [skip ci]",
    );
    // GitHub takes 6 s over every query that lists the records files.
    for _ in 0..3 {
        l.gh.on_next_when(
            "POST",
            "/graphql/repository",
            |body| body["variables"]["files"] == json!(true),
            |_| {
                Some(
                    support::fake::reply(502, json!({"message": "timed out"}))
                        .set_delay(Duration::from_secs(6)),
                )
            },
        );
    }
    // A process that never read the branch asks for its listing.
    let cold = TestApp::start(&l.gh).await;
    let (status, took) = timed(&cold, "cold", &waive()).await;
    assert_eq!(status, 200);
    assert!(took < WINDOW, "answered after {took:?}");
    assert_eq!(l.events_of("AUD-1", "cold"), 1);
    let asked: Vec<bool> =
        l.gh.requests()
            .iter()
            .filter(|r| r.path.ends_with("/graphql/repository"))
            .filter(|r| {
                r.body["query"]
                    .as_str()
                    .is_some_and(|q| q.starts_with("query FirstReads"))
            })
            .filter(|r| r.headers.get("x-github-delivery").map(String::as_str) == Some("cold"))
            .map(|r| r.body["variables"]["files"] == true)
            .collect();
    assert_eq!(
        asked,
        [true, false],
        "the heavy query once, then the light one"
    );
}
