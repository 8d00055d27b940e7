//! The test kit's own tests: the fake GitHub fails a test on a request it does not model and
//! on a reply the test never looked at, so neither can pass unnoticed.

use crate::support;

use support::fake::FakeGitHub;

#[tokio::test]
#[should_panic(expected = "requests no route of the fake GitHub models")]
async fn an_unmodelled_route_fails_the_test() {
    let gh = FakeGitHub::start().await;
    let status = reqwest::get(format!("{}/repos/o/r/no-such-route", gh.api_url()))
        .await
        .unwrap()
        .status();
    assert_eq!(status, 404);
}

#[tokio::test]
#[should_panic(expected = "replies the test did not expect")]
async fn a_reply_no_test_looked_at_fails_the_test() {
    let gh = FakeGitHub::start().await;
    let status = reqwest::Client::new()
        .post(format!("{}/repos/o/r/issues/1/comments", gh.api_url()))
        .json(&serde_json::json!({"body": "auditloop: refused: unexpected"}))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 201);
}

#[tokio::test]
async fn a_reply_the_test_read_passes() {
    let gh = FakeGitHub::start().await;
    reqwest::Client::new()
        .post(format!("{}/repos/o/r/issues/1/comments", gh.api_url()))
        .json(&serde_json::json!({"body": "auditloop: help"}))
        .send()
        .await
        .unwrap();
    assert_eq!(gh.last_comment_on(1).as_deref(), Some("auditloop: help"));
}
