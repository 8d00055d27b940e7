//! The webhook's front door: signatures, size, headers, duplicates, unknown events.

use crate::support;

use auditloop::server::signature;
use auditloop::server::signature::WebhookSecrets;
use serde_json::json;
use support::deliveries::{pull_request, sign};
use support::fake::FakeGitHub;
use support::harness::{TestApp, SECRET};

const SHA: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

#[test]
fn githubs_documented_test_vector_verifies() {
    let secrets = WebhookSecrets::parse("It's a Secret to Everybody").unwrap();
    let expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    assert_eq!(
        signature::sign(b"It's a Secret to Everybody", b"Hello, World!"),
        expected
    );
    assert!(signature::verify(&secrets, expected, b"Hello, World!"));
    assert!(!signature::verify(&secrets, expected, b"Hello, World?"));
    assert!(!signature::verify(
        &secrets,
        "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59",
        b"Hello, World!"
    ));
    assert!(!signature::verify(&secrets, "sha256=zz", b"Hello, World!"));
}

#[tokio::test]
async fn missing_wrong_and_sha1_signatures_get_401_and_reach_nothing() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let body = serde_json::to_vec(&pull_request("opened", 1, SHA)).unwrap();
    let wrong = sign("not-the-secret", &body);
    for sig in [
        None,
        Some(wrong.as_str()),
        Some("sha1=0123456789abcdef0123456789abcdef01234567"),
        Some("garbage"),
    ] {
        let r = app
            .post_raw("pull_request", "d-sig", body.clone(), sig)
            .await;
        assert_eq!(r.status(), 401, "signature {sig:?}");
    }
    // An unsigned body that is not even JSON is refused for its signature, not parsed.
    let r = app
        .post_raw("pull_request", "d-sig2", b"{not json".to_vec(), None)
        .await;
    assert_eq!(r.status(), 401);
    assert!(gh.requests().is_empty(), "nothing reaches GitHub");
}

#[tokio::test]
async fn rotated_secrets_are_all_accepted() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start_with(&gh, "old-secret, new-secret").await;
    for (i, secret) in ["old-secret", "new-secret"].iter().enumerate() {
        let body = serde_json::to_vec(&json!({"zen": "Keep it logically awesome."})).unwrap();
        let sig = sign(secret, &body);
        let r = app
            .post_raw("ping", &format!("d-rot-{i}"), body, Some(&sig))
            .await;
        assert_eq!(r.status(), 200);
    }
    let body = b"{}".to_vec();
    let r = app
        .post_raw("ping", "d-rot-x", body.clone(), Some(&sign(SECRET, &body)))
        .await;
    assert_eq!(r.status(), 401, "a secret not configured is refused");
}

#[tokio::test]
async fn oversize_bodies_get_413_whether_declared_or_streamed() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let big = vec![b' '; 25 * 1024 * 1024 + 1];
    let r = app
        .post_raw("pull_request", "d-big", big, Some("sha256=00"))
        .await;
    assert_eq!(r.status(), 413);

    // Streamed with no Content-Length: refused once the limit is crossed.
    let chunks = (0..27).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1024 * 1024]));
    let stream = futures::stream::iter(chunks);
    let r = app
        .http
        .post(app.url("/webhook"))
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", "d-stream")
        .header("x-hub-signature-256", "sha256=00")
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
}

#[tokio::test]
async fn malformed_json_and_missing_headers_get_400() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let bad = b"{\"action\": ".to_vec();
    let r = app
        .post_raw(
            "pull_request",
            "d-bad",
            bad.clone(),
            Some(&sign(SECRET, &bad)),
        )
        .await;
    assert_eq!(r.status(), 400);

    // Valid JSON, but not a pull_request payload: the path of the problem is named.
    let odd = serde_json::to_vec(&json!({"action": "opened", "number": "one"})).unwrap();
    let r = app
        .post_raw(
            "pull_request",
            "d-odd",
            odd.clone(),
            Some(&sign(SECRET, &odd)),
        )
        .await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("number"));

    let body = serde_json::to_vec(&json!({})).unwrap();
    let r = app
        .http
        .post(app.url("/webhook"))
        .header("x-github-delivery", "d-noevent")
        .header("x-hub-signature-256", sign(SECRET, &body))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = app
        .http
        .post(app.url("/webhook"))
        .header("x-github-event", "ping")
        .header("x-hub-signature-256", sign(SECRET, &body))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "no delivery id");
    assert!(gh.requests().is_empty());
}

#[tokio::test]
async fn unknown_events_and_actions_get_200_and_do_nothing() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let r = app
        .deliver(
            "star",
            "d-star",
            &json!({"action": "created", "starred_at": null}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // An action GitHub may add later parses and is ignored.
    let r = app
        .deliver(
            "pull_request",
            "d-stacked",
            &pull_request("stacked", 1, SHA),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .deliver(
            "pull_request",
            "d-labeled",
            &pull_request("labeled", 1, SHA),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(gh.state().check_runs.is_empty());
    assert!(
        gh.requests().iter().all(|r| r.method == "GET"),
        "only reads at most"
    );
}

#[tokio::test]
async fn the_same_delivery_twice_has_its_effects_once() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let payload = pull_request("opened", 7, SHA);
    let first = app.deliver("pull_request", "d-dup", &payload).await;
    assert_eq!(first.status(), 200);
    let second = app.deliver("pull_request", "d-dup", &payload).await;
    assert_eq!(second.status(), 200);
    assert_eq!(second.text().await.unwrap(), "already handled");
    assert_eq!(gh.state().check_runs.len(), 1);

    // Concurrent copies of one delivery also run once.
    // Another PR on a head of its own: a check run belongs to a commit, not to a PR.
    let payload = pull_request("opened", 8, &"8".repeat(40));
    let (a, b) = tokio::join!(
        app.deliver("pull_request", "d-race", &payload),
        app.deliver("pull_request", "d-race", &payload)
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    assert_eq!(gh.state().check_runs.len(), 2);
}

#[tokio::test]
async fn health_and_metrics_answer() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    assert_eq!(app.get_text("/healthz").await, (200, "ok".to_owned()));
    app.deliver("pull_request", "d-m1", &pull_request("opened", 3, SHA))
        .await;
    let r = app
        .deliver("pull_request", "d-m1", &pull_request("opened", 3, SHA))
        .await;
    assert_eq!(r.status(), 200);
    let (status, text) = app.get_text("/metrics").await;
    assert_eq!(status, 200);
    for series in [
        "auditloop_deliveries_total{event=\"pull_request\",outcome=\"handled\"} 1",
        "auditloop_deliveries_total{event=\"pull_request\",outcome=\"duplicate\"} 1",
        "auditloop_github_api_calls_total{route=\"POST /graphql Views\",status=\"200\"} 1",
        "auditloop_delivery_handling_seconds_count 1",
        "auditloop_github_rate_limit_remaining 4999",
    ] {
        assert!(text.contains(series), "missing {series} in\n{text}");
    }
}

#[tokio::test]
async fn the_alias_route_serves_deliveries() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let body = serde_json::to_vec(&pull_request("opened", 9, SHA)).unwrap();
    let r = app
        .http
        .post(app.url("/api/github/webhooks"))
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", "d-alias")
        .header("x-hub-signature-256", sign(SECRET, &body))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(gh.state().check_runs.len(), 1);
}
