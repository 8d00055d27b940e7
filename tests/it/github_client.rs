//! The GitHub client as deliveries use it: token caching, retries, Enterprise base URLs,
//! and the delivery id on every call.

use crate::support;

use std::time::Instant;

use support::deliveries::pull_request;
use support::fake::FakeGitHub;
use support::harness::TestApp;

const SHA: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

/// A head commit of its own for PR `n`: a check run belongs to a commit, not to a PR.
fn sha_of(n: u64) -> String {
    format!("{n:040x}")
}

#[tokio::test]
async fn one_installation_token_serves_many_deliveries() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    let mut answers = Vec::new();
    for n in 1..=3 {
        answers.push(
            app.deliver(
                "pull_request",
                &format!("d-tok-{n}"),
                &pull_request("opened", n, &sha_of(n)),
            )
            .await
            .status(),
        );
    }
    // Concurrent first use of the installation still mints once.
    let (pa, pb) = (
        pull_request("opened", 10, &sha_of(10)),
        pull_request("opened", 11, &sha_of(11)),
    );
    let (a, b) = tokio::join!(
        app.deliver("pull_request", "d-tok-a", &pa),
        app.deliver("pull_request", "d-tok-b", &pb)
    );
    answers.extend([a.status(), b.status()]);
    assert!(answers.iter().all(|s| *s == 200), "{answers:?}");
    assert_eq!(gh.state().tokens_minted, 1);
    assert_eq!(gh.state().check_runs.len(), 5);
}

#[tokio::test]
async fn a_502_on_a_read_is_retried_then_succeeds() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    gh.fail_next("GET", "/app", 502, &[]);
    // A PR opened by another bot makes the App read its own identity (GET /app) first.
    let mut payload = pull_request("opened", 1, SHA);
    payload["sender"] = serde_json::json!({"login": "dependabot[bot]", "type": "Bot"});
    let r = app.deliver("pull_request", "d-502", &payload).await;
    assert_eq!(r.status(), 200);
    let gets: Vec<_> = gh
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && r.path == "/app")
        .collect();
    assert_eq!(gets.len(), 2, "the failed read was repeated once");
    assert_eq!(gh.state().check_runs.len(), 1);
}

#[tokio::test]
async fn a_create_whose_answer_is_lost_is_not_retried_and_the_redelivery_creates_once() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    // GitHub created the run (in the views' one mutation), but its answer never arrived.
    gh.lose_next_answer("POST", "createCheckRun");
    let payload = pull_request("opened", 1, SHA);
    let r = app.deliver("pull_request", "d-post502", &payload).await;
    assert!(
        r.status().is_server_error(),
        "GitHub failed underneath: {}",
        r.status()
    );
    let posts = gh
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.contains("createCheckRun"))
        .count();
    assert_eq!(
        posts, 1,
        "a create that may have succeeded is never repeated"
    );
    // GitHub's redelivery keeps the id: the failed delivery is handled again.
    let r = app.deliver("pull_request", "d-post502", &payload).await;
    assert_eq!(r.status(), 200);
    assert_eq!(gh.state().check_runs.len(), 1);
}

#[tokio::test]
async fn a_secondary_rate_limit_waits_for_retry_after() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    gh.fail_next("POST", "createCheckRun", 403, &[("retry-after", "1")]);
    let started = Instant::now();
    let r = app
        .deliver("pull_request", "d-403", &pull_request("opened", 1, SHA))
        .await;
    assert_eq!(r.status(), 200);
    assert!(
        started.elapsed().as_millis() >= 1000,
        "waited for Retry-After"
    );
    // A rate-limited create was not carried out, so repeating it is safe and needed.
    assert_eq!(gh.state().check_runs.len(), 1);
}

#[tokio::test]
async fn a_rate_limit_longer_than_we_may_wait_queues_the_delivery() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    gh.fail_next("POST", "createCheckRun", 429, &[("retry-after", "120")]);
    let started = Instant::now();
    let r = app
        .deliver("pull_request", "d-429", &pull_request("opened", 1, SHA))
        .await;
    // Answered at once, and queued: carried out once GitHub's wait is over.
    assert_eq!(r.status(), 202);
    assert!(
        started.elapsed().as_secs() < 5,
        "does not hold the delivery for two minutes"
    );
    assert!(gh.state().check_runs.is_empty());
    assert!(app.state.deliveries().knows("d-429"), "held in its queue");
    app.kill();
}

/// Every request went under one of `prefixes`, with a token.
fn all_authenticated_under(requests: &[support::fake::Recorded], prefixes: &[&str]) {
    for req in requests {
        assert!(
            prefixes.iter().any(|p| req.path.starts_with(p)),
            "{} {}",
            req.method,
            req.path
        );
        assert!(
            req.headers
                .get("authorization")
                .is_some_and(|a| a.starts_with("Bearer ")),
            "authenticated: {}",
            req.path
        );
    }
}

#[tokio::test]
async fn github_enterprise_base_url_is_used_for_every_call() {
    let gh = FakeGitHub::start_with_prefix("/api/v3").await;
    let app = TestApp::start(&gh).await;
    let r = app
        .deliver("pull_request", "d-ghes", &pull_request("opened", 1, SHA))
        .await;
    assert_eq!(r.status(), 200);
    let requests = gh.requests();
    assert!(requests.len() >= 2, "{requests:?}");
    // REST under `/api/v3`, GraphQL at `/api/graphql`, as GHES serves them.
    all_authenticated_under(&requests, &["/api/v3/", "/api/graphql/"]);
    assert!(requests.iter().any(|r| r.path.starts_with("/api/graphql/")));
    assert_eq!(gh.state().check_runs.len(), 1);
}

/// GraphQL on GitHub Enterprise Server is at `/api/graphql`, beside the REST base, where
/// octocrab does not attach the token by itself: a records commit still goes there signed.
#[tokio::test]
async fn github_enterprise_records_commits_go_to_its_graphql_endpoint_authenticated() {
    let gh = FakeGitHub::start_with_prefix("/api/v3").await;
    gh.add_pull(1, SHA, "Adds replay protection.\n\nCloses #12\n", "alice");
    gh.set_permission("alice", "write");
    gh.set_permission("auditor", "write");
    let app = TestApp::start(&gh).await;
    let new = "/audit new --goal \"Refuse replays\" --oracle \"A replay has no effect\" --evidence \"CI green\"";
    let baseline = "/audit baseline --evidence \"CI run 2 green\"";
    for (id, body) in [("d-ghes-new", new), ("d-ghes-baseline", baseline)] {
        let payload = support::deliveries::pr_comment(1, "alice", body);
        let status = app.deliver("issue_comment", id, &payload).await.status();
        let seen: Vec<String> = gh
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        assert_eq!(status, 200, "{id}: {seen:#?}");
    }
    let requests = gh.requests();
    let commits: Vec<_> = requests
        .iter()
        .filter(|r| r.path == "/api/graphql/createCommitOnBranch")
        .collect();
    assert_eq!(commits.len(), 1, "the second commit through GraphQL");
    all_authenticated_under(&requests, &["/api/v3/", "/api/graphql/"]);
    assert_eq!(gh.state().reactions.len(), 2, "both commands carried out");
}

#[tokio::test]
async fn every_call_of_a_delivery_carries_its_id() {
    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    app.deliver(
        "pull_request",
        "d-header-1",
        &pull_request("opened", 1, SHA),
    )
    .await;
    for req in gh.requests() {
        if req.path.ends_with("/access_tokens") {
            continue; // minted by octocrab itself, shared across deliveries
        }
        assert_eq!(
            req.headers.get("x-github-delivery").map(String::as_str),
            Some("d-header-1"),
            "{}",
            req.path
        );
    }
}
