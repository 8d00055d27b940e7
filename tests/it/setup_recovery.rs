//! When the code's conversion fails, the setup callback says to reload it (and reloading
//! does retry), or how to delete the App GitHub registered before starting again, never
//! just "start again", which registers a second App and orphans the first. While setup
//! runs, `/healthz` answers 200 (alive) and `/readyz` does not (not ready).

use crate::setup_flow::{review, serve_setup, state_of};
use crate::support::fake::FakeGitHub;

fn conversions(gh: &FakeGitHub) -> usize {
    gh.requests()
        .iter()
        .filter(|r| r.path.starts_with("/app-manifests/"))
        .count()
}

#[tokio::test]
async fn a_failed_conversion_says_reload_and_a_reload_retries_it() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let http = reqwest::Client::new();
    let (_, page) = review(&base, &[("webhook_url", "https://tunnel.example/webhook")]).await;
    let state = state_of(&page);

    let failed = format!("{base}/setup/callback?code=expired&state={state}");
    let r = http.get(&failed).send().await.unwrap();
    assert_eq!(r.status(), 502);
    let text = r.text().await.unwrap();
    assert!(text.contains("Reload this page"), "{text}");
    assert!(!text.contains("start again from the first page."), "{text}");
    assert!(
        text.contains("href=\"https://github.com/settings/apps\""),
        "how to delete the first App: {text}"
    );
    assert_eq!(conversions(&gh), 1);

    // The reload converts again: the state is still valid and nothing was cached.
    let r = http.get(&failed).send().await.unwrap();
    assert_eq!(r.status(), 502);
    assert_eq!(conversions(&gh), 2);
    assert!(!dir.path().join(".env").exists());

    // And a conversion that goes through on the same state finishes setup.
    let r = http
        .get(format!("{base}/setup/callback?code=goodcode&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(dir.path().join(".env").exists());
}

#[test]
fn an_organizations_app_is_deleted_from_its_own_apps_page() {
    assert_eq!(
        auditloop::setup::apps_page("https://github.com", Some("acme")),
        "https://github.com/organizations/acme/settings/apps"
    );
    assert_eq!(
        auditloop::setup::apps_page("https://ghe.example.com/", None),
        "https://ghe.example.com/settings/apps"
    );
}

#[tokio::test]
async fn while_setup_runs_healthz_is_alive_and_readyz_is_not_ready() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    let words = health.text().await.unwrap();
    assert!(words.starts_with("setup in progress"), "{words}");
    let ready = reqwest::get(format!("{base}/readyz")).await.unwrap();
    assert_eq!(ready.status(), 404);
}
