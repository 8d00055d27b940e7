//! The redelivery sweep against the fake GitHub through the real octocrab client: the
//! listing it pages through with the App JWT, and exactly which redeliveries it asks for.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use auditloop::github::{Api, GitHubApp, GitHubSettings, RetryPolicy};
use auditloop::redeliver::{spawn, sweep, SweepState, MAX_PAGES};
use chrono::{DateTime, TimeDelta, Utc};
use support::fake::FakeGitHub;

fn now() -> DateTime<Utc> {
    "2025-06-01T12:00:00Z".parse().unwrap()
}

fn ago(minutes: i64) -> DateTime<Utc> {
    now() - TimeDelta::minutes(minutes)
}

const DAYS4: i64 = 4 * 24 * 60;

fn github_app(fake: &FakeGitHub) -> Arc<GitHubApp> {
    let app = GitHubApp::new(
        GitHubSettings {
            app_id: 1,
            private_key: auditloop::github::PrivateKey(secrecy::SecretString::from(
                support::harness::app_key(),
            )),
            api_url: fake.api_url(),
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                max_attempts: 3,
                max_wait: Duration::from_secs(3),
                backoff: Duration::from_millis(10),
            },
            write_gap: Duration::ZERO,
        },
        auditloop::metrics::Metrics::new(),
    )
    .expect("client");
    Arc::new(app)
}

fn app_api(fake: &FakeGitHub) -> Api {
    github_app(fake).app_api(None)
}

fn attempt_posts(fake: &FakeGitHub) -> Vec<String> {
    fake.requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.path)
        .collect()
}

#[tokio::test]
async fn asks_exactly_for_the_failed_deliveries_and_remembers_what_it_asked() {
    let fake = FakeGitHub::start().await;
    let a1 = fake.add_delivery("a", ago(50), 503);
    for code in [503, 500, 502] {
        fake.add_delivery("b", ago(40), code);
    }
    fake.add_delivery("c", ago(30), 500);
    fake.add_delivery("c", ago(20), 200);
    fake.add_delivery("d", ago(45), 500);
    let d2 = fake.add_delivery("d", ago(15), 0);
    fake.add_delivery("e", ago(DAYS4), 500);
    fake.add_delivery("f", ago(5), 200);

    let api = app_api(&fake);
    let mut state = SweepState::default();
    let report = sweep(&api, &mut state, now()).await.unwrap();
    assert_eq!(report.asked, vec![a1, d2]);
    assert!(report.refused.is_empty());
    assert_eq!(fake.redeliveries(), vec![a1, d2]);
    assert_eq!(
        attempt_posts(&fake),
        vec![
            format!("/app/hook/deliveries/{a1}/attempts"),
            format!("/app/hook/deliveries/{d2}/attempts"),
        ]
    );
    // Every call carries the App JWT, not an installation token.
    for r in fake.requests() {
        let auth = r.headers.get("authorization").cloned().unwrap_or_default();
        assert!(auth.starts_with("Bearer eyJ"), "{} {auth}", r.path);
    }

    // GitHub has not recorded the new attempts yet: nothing is asked twice.
    let again = sweep(&api, &mut state, now() + TimeDelta::minutes(5))
        .await
        .unwrap();
    assert!(again.asked.is_empty(), "{again:?}");
    assert_eq!(fake.redeliveries().len(), 2);

    // The redelivery of `a` failed too: asked once more, its third and last attempt.
    let a2 = fake.add_delivery("a", ago(-6), 503);
    let third = sweep(&api, &mut state, now() + TimeDelta::minutes(10))
        .await
        .unwrap();
    assert_eq!(third.asked, vec![a2]);
    fake.add_delivery("a", ago(-11), 503);
    let fourth = sweep(&api, &mut state, now() + TimeDelta::minutes(15))
        .await
        .unwrap();
    assert!(fourth.asked.is_empty(), "{fourth:?}");
    assert_eq!(fake.redeliveries(), vec![a1, d2, a2]);
}

#[tokio::test]
async fn follows_the_link_cursor_past_the_first_page() {
    let fake = FakeGitHub::start().await;
    let failed = fake.add_delivery("late", ago(500), 504);
    for i in 0..120 {
        fake.add_delivery(&format!("ok-{i}"), ago(i), 200);
    }
    let report = sweep(&app_api(&fake), &mut SweepState::default(), now())
        .await
        .unwrap();
    assert_eq!(report.pages, 2);
    assert_eq!(report.listed, 121);
    assert_eq!(report.asked, vec![failed]);
    let listings = fake.delivery_listings();
    assert_eq!(listings[0], "per_page=100");
    assert_eq!(listings[1], "per_page=100&cursor=v1_100");
}

#[tokio::test]
async fn pages_through_an_enterprise_path_prefix() {
    let fake = FakeGitHub::start_with_prefix("/api/v3").await;
    let failed = fake.add_delivery("late", ago(500), 504);
    for i in 0..100 {
        fake.add_delivery(&format!("ok-{i}"), ago(i), 200);
    }
    let report = sweep(&app_api(&fake), &mut SweepState::default(), now())
        .await
        .unwrap();
    assert_eq!((report.pages, report.asked), (2, vec![failed]));
    assert!(fake
        .requests()
        .iter()
        .all(|r| r.path.starts_with("/api/v3/app/hook/deliveries")));
}

#[tokio::test]
async fn stops_paging_at_deliveries_older_than_three_days() {
    let fake = FakeGitHub::start().await;
    for i in 0..100 {
        fake.add_delivery(&format!("ok-{i}"), ago(i), 200);
    }
    for i in 0..101 {
        fake.add_delivery(&format!("old-{i}"), ago(DAYS4 + i), 500);
    }
    let report = sweep(&app_api(&fake), &mut SweepState::default(), now())
        .await
        .unwrap();
    assert_eq!(
        report.pages, 2,
        "a third page exists but is past the window"
    );
    assert_eq!(fake.delivery_listings().len(), 2);
    assert!(report.asked.is_empty());
    assert!(fake.redeliveries().is_empty());
}

#[tokio::test]
async fn a_refused_redelivery_is_reported_and_the_sweep_goes_on() {
    let fake = FakeGitHub::start().await;
    let a = fake.add_delivery("a", ago(20), 500);
    let b = fake.add_delivery("b", ago(10), 500);
    fake.fail_next("POST", &format!("/{a}/attempts"), 422, &[]);
    let api = app_api(&fake);
    let mut state = SweepState::default();
    let report = sweep(&api, &mut state, now()).await.unwrap();
    assert_eq!(report.asked, vec![b]);
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].0, a);
    assert!(report.refused[0].1.contains("422"), "{:?}", report.refused);
    // A refusal is an answer: it is not asked again every few minutes.
    let again = sweep(&api, &mut state, now()).await.unwrap();
    assert!(
        again.asked.is_empty() && again.refused.is_empty(),
        "{again:?}"
    );
}

#[tokio::test]
async fn a_failed_listing_is_an_error_and_asks_nothing() {
    let fake = FakeGitHub::start().await;
    fake.add_delivery("a", ago(20), 500);
    fake.fail_next("GET", "/app/hook/deliveries", 403, &[]);
    let err = sweep(&app_api(&fake), &mut SweepState::default(), now())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert!(fake.redeliveries().is_empty());
}

#[tokio::test]
async fn the_spawned_sweep_runs_at_once_and_stops_on_shutdown() {
    let fake = FakeGitHub::start().await;
    let id = fake.add_delivery("a", Utc::now() - TimeDelta::minutes(1), 500);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let task = spawn(github_app(&fake), Duration::from_secs(3600), stopped, None);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while fake.redeliveries().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "no sweep ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fake.redeliveries(), vec![id]);
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped on shutdown")
        .expect("did not panic");
}

#[tokio::test]
async fn the_spawned_sweep_stops_when_its_sender_is_gone() {
    let fake = FakeGitHub::start().await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let task = spawn(github_app(&fake), Duration::from_secs(3600), stopped, None);
    drop(stop);
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped")
        .expect("did not panic");
}

#[tokio::test]
async fn pages_are_bounded_per_sweep() {
    let fake = FakeGitHub::start().await;
    for i in 0..=(100 * MAX_PAGES) {
        fake.add_delivery(&format!("ok-{i}"), ago(1), 200);
    }
    let report = sweep(&app_api(&fake), &mut SweepState::default(), now())
        .await
        .unwrap();
    assert_eq!(report.pages, MAX_PAGES);
    assert_eq!(fake.delivery_listings().len(), MAX_PAGES);
}
