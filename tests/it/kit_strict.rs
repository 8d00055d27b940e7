//! The test kit's own tests: the fake GitHub fails a test on a request it does not model, on
//! a reply the test never looked at, and on an answer GitHub's REST description does not
//! allow for its route, so none of them can pass unnoticed.

use crate::support;

use serde_json::json;
use support::fake::{reply, FakeGitHub};
use support::openapi;

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

/// GitHub's own answer for `GET /repos/{owner}/{repo}/pulls/{n}` as the kit builds it.
fn pull_answer() -> serde_json::Value {
    auditloop_fake_github::objects::pull_request("o/r", 7, &"a".repeat(40), "body", "alice")
}

#[test]
fn an_answer_as_github_sends_it_passes_the_description_check() {
    let pr = pull_answer();
    assert_eq!(
        openapi::check_answer("GET", "/repos/o/r/pulls/7", 200, Some(&pr)),
        Ok(())
    );
    assert_eq!(
        openapi::check_answer("PATCH", "/repos/o/r/pulls/7?x=1", 200, Some(&pr)),
        Ok(()),
        "a query string does not hide the route"
    );
}

#[test]
fn an_answer_missing_a_field_github_always_sends_fails_the_check() {
    let mut pr = pull_answer();
    pr.as_object_mut().unwrap().remove("html_url");
    let err = openapi::check_answer("GET", "/repos/o/r/pulls/7", 200, Some(&pr)).unwrap_err();
    assert!(err.contains("html_url"), "{err}");
    let mut pr = pull_answer();
    pr["user"].as_object_mut().unwrap().remove("login");
    let err = openapi::check_answer("GET", "/repos/o/r/pulls/7", 200, Some(&pr)).unwrap_err();
    assert!(err.contains("login") && err.contains("/user"), "{err}");
}

#[test]
fn an_answer_with_a_wrong_type_or_value_fails_the_check() {
    for (field, bad) in [
        ("number", json!("7")),
        ("locked", json!(null)),
        ("created_at", json!("yesterday")),
        ("state", json!(7)),
    ] {
        let mut pr = pull_answer();
        pr[field] = bad.clone();
        let err = openapi::check_answer("GET", "/repos/o/r/pulls/7", 200, Some(&pr))
            .expect_err(&format!("{field}: {bad}"));
        assert!(err.contains(&format!("/{field}")), "{err}");
    }
}

#[test]
fn an_answer_of_an_undocumented_route_or_status_fails_the_check() {
    let body = json!({"id": 1});
    assert!(openapi::check_answer("GET", "/repos/o/r/no-such-route", 200, Some(&body)).is_err());
    // `POST .../dispatches` documents 204 without a body.
    assert!(openapi::check_answer("POST", "/repos/o/r/dispatches", 200, Some(&body)).is_err());
    assert_eq!(
        openapi::check_answer("POST", "/repos/o/r/dispatches", 204, None),
        Ok(())
    );
    // A documented body must be sent.
    assert!(openapi::check_answer("GET", "/repos/o/r/pulls/7", 200, None).is_err());
}

#[test]
fn a_route_template_matches_the_paths_github_serves() {
    let of = |m: &str, p: &str| openapi::route_of(m, p).map(|r| r.path.as_str());
    assert_eq!(of("GET", "/repos/o/r"), Some("/repos/{owner}/{repo}"));
    assert_eq!(
        of("GET", "/repos/o/r/git/ref/heads/audit/records"),
        Some("/repos/{owner}/{repo}/git/ref/{ref}")
    );
    assert_eq!(
        of("GET", "/repos/o/r/contents/.github/auditloop.yml"),
        Some("/repos/{owner}/{repo}/contents/{path}")
    );
    assert_eq!(
        of("POST", "/repos/o/r/issues/comments/5/reactions"),
        Some("/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions")
    );
    assert_eq!(
        of("GET", "/repos/o/r/commits/abc/check-runs"),
        Some("/repos/{owner}/{repo}/commits/{ref}/check-runs")
    );
    assert_eq!(
        of("GET", "/repos/o/r/pulls/7/files"),
        Some("/repos/{owner}/{repo}/pulls/{pull_number}/files")
    );
    assert_eq!(of("GET", "/repos/o/r/pulls/7/reviews"), None);
    assert!(openapi::response_schema_count() >= 30);
}

#[tokio::test]
#[should_panic(
    expected = "answers of the fake GitHub that GitHub's REST description does not allow"
)]
async fn a_fake_answer_github_would_not_send_fails_the_test() {
    let gh = FakeGitHub::start().await;
    gh.add_pull(7, &"a".repeat(40), "body", "alice");
    gh.state().pulls.get_mut(&7).unwrap()["user"] = json!({"login": "alice"});
    let status = reqwest::get(format!("{}/repos/o/r/pulls/7", gh.api_url()))
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_malformed_answer_a_test_asks_for_is_sent_unchecked() {
    let gh = FakeGitHub::start().await;
    gh.on_next("GET", "/pulls/7", |_| {
        Some(reply(200, json!({"number": "seven"})).malformed("the kit's own test of the opt-out"))
    });
    let body: serde_json::Value = reqwest::get(format!("{}/repos/o/r/pulls/7", gh.api_url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["number"], "seven");
}

/// Writes `content` as `index.json` in a tree, as the records layer does.
async fn post_tree(gh: &FakeGitHub, content: &str) {
    let body = json!({"tree": [{"path": "index.json", "mode": "100644", "type": "blob", "content": content}]});
    let status = reqwest::Client::new()
        .post(format!("{}/repos/o/r/git/trees", gh.api_url()))
        .json(&body)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 201);
}

#[tokio::test]
#[should_panic(expected = "files the app wrote to the records branch that break their schema")]
async fn a_records_file_that_breaks_its_schema_fails_the_test() {
    let gh = FakeGitHub::start().await;
    post_tree(&gh, "{}").await;
}

#[tokio::test]
async fn the_fake_names_the_path_and_the_error_of_a_file_that_breaks_its_schema() {
    let gh = FakeGitHub::start().await;
    post_tree(&gh, "{}").await;
    let found = std::mem::take(&mut gh.state().schema_violations);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("index.json (index_v1):")
            && found[0].contains("\"next\" is a required property"),
        "{found:?}"
    );
}

#[tokio::test]
async fn content_a_test_writes_itself_is_not_checked() {
    let gh = FakeGitHub::start().await;
    gh.written_by_the_test("the test's own bytes");
    post_tree(&gh, "{}").await;
    assert!(gh.state().schema_violations.is_empty());
}
