//! Claims that never stall a delivery: a holder whose reply did not land marks its claim
//! failed and the next handling takes it over at once; a claim whose create answer was lost
//! is known as the handling's own; a claim whose holder died is taken over after one pause,
//! at any depth, inside the window.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::Value;
use support::audit::{Loop, SHA1};
use support::deliveries::pr_comment;
use support::harness::TestApp;

/// A refusal: a reader may not veto.
const VETO: &str = "/audit veto webhook-replay --reason \"must be fixed\"";

/// GitHub counts an answer after this as a failed delivery.
const WINDOW: Duration = Duration::from_secs(10);

/// Delivers `payload` as delivery `id` to `app`: the status and how long the answer took.
async fn timed(app: &TestApp, id: &str, payload: &Value) -> (u16, Duration) {
    let started = Instant::now();
    let status = app.deliver("issue_comment", id, payload).await.status();
    (status.as_u16(), started.elapsed())
}

fn claims_of(l: &Loop, delivery: &str) -> Vec<String> {
    let mut names: Vec<String> = l.gh.state().git[support::deliveries::REPO]
        .refs
        .keys()
        .filter(|r| r.starts_with(&format!("auditloop/claims/{delivery}/")))
        .cloned()
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_refusal_whose_reply_fails_before_it_lands_is_posted_once_by_a_later_handling() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let reactions = l.reactions();
    let payload = pr_comment(42, "reader", VETO);
    // Three handlings, each on a process of its own, see the refusal's POST fail before
    // GitHub took it.
    for _ in 0..3 {
        l.gh.fail_next("POST", "/issues/42/comments", 502, &[]);
    }
    for n in 0..3 {
        let replica = TestApp::start(&l.gh).await;
        let (status, took) = timed(&replica, "refused-lost", &payload).await;
        assert!((500..600).contains(&status), "handling {n}: {status}");
        assert!(took < WINDOW, "handling {n} answered after {took:?}");
        assert_eq!(l.replies_for(42, "refused-lost"), 0);
    }
    // The next handling, on yet another process, answers within the window, once.
    let replica = TestApp::start(&l.gh).await;
    let before = l.gh.requests().len();
    let (status, took) = timed(&replica, "refused-lost", &payload).await;
    assert_eq!(status, 200);
    assert!(took < WINDOW, "answered after {took:?}");
    assert_eq!(l.replies_for(42, "refused-lost"), 1);
    assert!(l.refusals(42)[0].starts_with("auditloop: refused"));
    // A few calls, not a poll: its reads, the first claim and what it points at, one look
    // for the reply, the listing of the claims, the next generation and the reply.
    let calls = l.gh.requests().len() - before;
    assert!(calls <= 12, "{calls} calls");
    // Once answered, a redelivery elsewhere posts nothing more.
    let replica = TestApp::start(&l.gh).await;
    assert_eq!(timed(&replica, "refused-lost", &payload).await.0, 200);
    assert_eq!(l.replies_for(42, "refused-lost"), 1);
    assert_eq!(l.reactions(), reactions, "no +1 for a refused command");
}

#[tokio::test]
async fn a_claim_whose_create_answer_was_lost_is_the_handlings_own() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // The outcome claim is created, and its answer lost.
    l.gh.lose_next_answer("POST", "/git/refs");
    let (status, _) = timed(&l.app, "lost-claim", &waive()).await;
    assert_eq!(status, 200);
    assert_eq!(l.events_of("AUD-1", "lost-claim"), 1);
    assert_eq!(
        claims_of(&l, "lost-claim"),
        ["auditloop/claims/lost-claim/outcome-42-1"],
        "no generation taken over"
    );
}

/// Seeds claims of delivery `delivery` on PR 42's outcome, generations `1..=depth`, held by
/// handlings elsewhere that died before deciding.
fn dead_holders(l: &Loop, delivery: &str, depth: u32) {
    let mut state = l.gh.state();
    let git = state.git.get_mut(support::deliveries::REPO).unwrap();
    for generation in 1..=depth {
        git.refs.insert(
            format!("auditloop/claims/{delivery}/outcome-42-{generation}"),
            SHA1.to_owned(),
        );
    }
}

fn waive() -> Value {
    pr_comment(
        42,
        "maint",
        "/audit waive A-01 --basis triage-threshold --reason \"Below the bar\"",
    )
}

#[tokio::test]
async fn a_claim_its_holder_marked_failed_is_taken_over_without_a_pause() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    dead_holders(&l, "failed-once", 1);
    l.gh.state()
        .git
        .get_mut(support::deliveries::REPO)
        .unwrap()
        .refs
        .insert(
            "auditloop/claims/failed-once/outcome-42-1-failed".to_owned(),
            SHA1.to_owned(),
        );
    let (status, _) = timed(&l.app, "failed-once", &waive()).await;
    assert_eq!(status, 200);
    assert_eq!(l.events_of("AUD-1", "failed-once"), 1);
    assert!(claims_of(&l, "failed-once")
        .contains(&"auditloop/claims/failed-once/outcome-42-2".to_owned()));
    // Looked for the holder's outcome once: no pause, no second look.
    let looks = l
        .gh
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/issues/42/comments"))
        .filter(|r| r.headers.get("x-github-delivery").map(String::as_str) == Some("failed-once"))
        .count();
    assert_eq!(looks, 1);
}

#[tokio::test]
async fn a_claim_whose_holders_died_is_taken_over_at_any_depth() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // Four handlings elsewhere claimed the outcome in turn and died before deciding.
    dead_holders(&l, "deep", 4);
    let (status, took) = timed(&l.app, "deep", &waive()).await;
    assert_eq!(status, 200);
    assert!(took < WINDOW, "answered after {took:?}");
    assert_eq!(l.events_of("AUD-1", "deep"), 1);
    assert!(
        claims_of(&l, "deep").contains(&"auditloop/claims/deep/outcome-42-5".to_owned()),
        "{:?}",
        claims_of(&l, "deep")
    );
}
