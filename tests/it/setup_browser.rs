//! First-run setup as a newcomer does it, in a real headless Chromium driven through
//! `WebDriver`: the form, a mistake answered in words, the App's name, the manifest shown,
//! the public-URL check failing and then passing, the manifest sent, GitHub's redirect back, `.env` written, and the App serving from the same process.
//!
//! A stand-in GitHub (a small axum app) serves the two routes of the manifest flow: the
//! web form `POST /settings/apps/new` (it redirects straight back, where GitHub would ask
//! the user to confirm) and the conversion `POST /api/v3/app-manifests/{code}/conversions`
//! (the stand-in is an Enterprise host, so the REST base is `/api/v3`).
//!
//! Chromium and chromedriver come from Debian (`chromium`, `chromium-driver`); `.ci/run`
//! installs them. Without chromedriver the test fails under CI and says so elsewhere.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect};
use axum::routing::post;
use axum::{Form, Json, Router};
use fantoccini::{ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::support;

#[derive(Default)]
struct StandIn {
    /// The manifests the web form received, with the `state` each came with.
    manifests: Vec<(Value, String)>,
    conversions: Vec<String>,
}

type Shared = Arc<Mutex<StandIn>>;

#[derive(serde::Deserialize)]
struct StateQuery {
    state: String,
}

#[derive(serde::Deserialize)]
struct ManifestForm {
    manifest: String,
}

async fn new_app(
    State(s): State<Shared>,
    Query(q): Query<StateQuery>,
    Form(f): Form<ManifestForm>,
) -> axum::response::Response {
    let manifest: Value = serde_json::from_str(&f.manifest).unwrap_or(Value::Null);
    let back = manifest["redirect_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    s.lock()
        .unwrap()
        .manifests
        .push((manifest, q.state.clone()));
    Redirect::to(&format!("{back}?code=c0ffee42&state={}", q.state)).into_response()
}

async fn conversion(
    State(s): State<Shared>,
    Path(code): Path<String>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    s.lock().unwrap().conversions.push(code.clone());
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if code != "c0ffee42" {
        return (
            axum::http::StatusCode::NOT_FOUND,
            Json(json!({"message": "Not Found"})),
        )
            .into_response();
    }
    (
        axum::http::StatusCode::CREATED,
        Json(json!({
            "id": 4242, "slug": "auditloop-acme", "name": "auditloop",
            "html_url": format!("http://{host}/apps/auditloop-acme"),
            "pem": support::harness::app_key(),
            "webhook_secret": "whsec-browser", "client_id": "Iv1.x", "client_secret": "cs"
        })),
    )
        .into_response()
}

async fn stand_in() -> (String, Shared) {
    let shared = Shared::default();
    let app = Router::new()
        .route("/settings/apps/new", post(new_app))
        .route("/api/v3/app-manifests/{code}/conversions", post(conversion))
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), shared)
}

pub(crate) fn chromedriver() -> Option<PathBuf> {
    let named = std::env::var_os("CHROMEDRIVER").map(PathBuf::from);
    let candidates = named
        .into_iter()
        .chain(["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].map(PathBuf::from));
    candidates.into_iter().find(|p| p.is_file())
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// chromedriver on a free loopback port, killed on drop.
pub(crate) struct Driver {
    child: Child,
    pub(crate) url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) async fn start_driver(binary: &std::path::Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(binary)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let http = reqwest::Client::new();
    for _ in 0..100 {
        if let Ok(r) = http.get(format!("{}/status", driver.url)).send().await {
            if r.status().is_success() {
                return driver;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not answer on {}", driver.url);
}

pub(crate) fn capabilities(profile: &std::path::Path) -> serde_json::Map<String, Value> {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1200,1000",
    ]
    .iter()
    .map(std::string::ToString::to_string)
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium().display().to_string(), "args": args}
    });
    caps.as_object().unwrap().clone()
}

/// The text of the element `css`, waiting for it: a click that submits a form returns
/// before the next page has loaded when the machine is busy.
async fn text_of(c: &fantoccini::Client, css: &str) -> String {
    wait_for(c, css).await.text().await.unwrap()
}

async fn wait_for(c: &fantoccini::Client, css: &str) -> fantoccini::elements::Element {
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
}

/// The page at 1280 and at 400 px (a phone): nothing scrolls sideways. Whole-page
/// screenshots of both go to `target/setup-screenshots/`.
async fn fits(c: &fantoccini::Client, dir: &std::path::Path, name: &str) {
    for width in [1280u32, 400] {
        c.set_window_size(width, 1000).await.unwrap();
        let sizes = c
            .execute(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];",
                vec![],
            )
            .await
            .unwrap();
        // The whole page in one screenshot, what is below the fold too.
        let height = c
            .execute("return document.documentElement.scrollHeight;", vec![])
            .await
            .unwrap()
            .as_u64()
            .unwrap_or(1000)
            .clamp(1000, 5000)
            + 200;
        c.set_window_size(width, u32::try_from(height).unwrap_or(1000))
            .await
            .unwrap();
        let png = c.screenshot().await.unwrap();
        std::fs::write(dir.join(format!("{name}-{width}.png")), png).unwrap();
        assert!(
            sizes[0].as_u64() <= sizes[1].as_u64(),
            "{name} at {width} px scrolls sideways: {sizes}"
        );
    }
    c.set_window_size(1280, 1000).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_registers_the_app_in_a_browser_and_it_serves_at_once() {
    let Some(driver_bin) = chromedriver() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        assert!(
            !ci,
            "chromedriver is missing: install Debian's chromium and chromium-driver (.ci/run does)"
        );
        eprintln!("SKIPPED: no chromedriver (apt-get install chromium chromium-driver)");
        return;
    };
    let (github, seen) = stand_in().await;
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/setup-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();

    // auditloop as `cargo run --release` starts it with no credentials, on its own listener.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ours = format!("http://{}", listener.local_addr().unwrap());
    let opts = auditloop::setup::SetupOptions {
        github_url: "https://github.com".into(),
        api_url: None,
        org: None,
        webhook_url: Some("http://hooks.example.com/webhook".into()),
        dir: dir.path().to_path_buf(),
        manifest: include_str!("../../app-manifest.yml").into(),
    };
    let env: auditloop::cli::setup::Env = Arc::new(|name: &str| match name {
        "AUDITLOOP_REDELIVER_INTERVAL" | "AUDITLOOP_RECONCILE_INTERVAL" => Some("0".into()),
        _ => None,
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(auditloop::cli::setup::setup_then_serve(
        listener,
        opts,
        auditloop::operator_config::ServeArgs::default(),
        env,
        async move {
            let _ = stopped.await;
        },
    ));

    let driver = start_driver(&driver_bin).await;
    // chromedriver is on loopback: plain HTTP, no TLS stack.
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let c = ClientBuilder::new(connector)
        .capabilities(capabilities(profile.path()))
        .connect(&driver.url)
        .await
        .expect("a Chromium session through chromedriver");
    let outcome = async {
        // Step 1: the form, pre-filled from --webhook-url, explains the three steps and
        // how GitHub reaches this server: the port it listens on, forwarded.
        c.goto(&format!("{ours}/")).await.unwrap();
        let page = text_of(&c, "main").await;
        assert!(page.contains("three steps"), "{page}");
        let port = ours.rsplit(':').next().unwrap().to_owned();
        assert!(page.contains(&format!("port {port}")), "{page}");
        let tunnels = text_of(&c, "#tunnels").await;
        assert!(tunnels.contains(&format!("ngrok http {port}")), "{tunnels}");
        fits(&c, &shots, "setup-form").await;
        assert!(
            page.contains("Install the App on your repositories"),
            "{page}"
        );
        let webhook = wait_for(&c, "#webhook_url").await;
        assert_eq!(
            webhook.prop("value").await.unwrap().as_deref(),
            Some("http://hooks.example.com/webhook")
        );
        // A plain-http webhook URL is refused in words, and the answers are kept.
        c.find(Locator::Id("review"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let error = text_of(&c, "#webhook_url-error").await;
        assert!(error.contains("must start with https://"), "{error}");
        // The problems are listed on top, the field is marked and has the focus.
        let listed = text_of(&c, "#problems").await;
        assert!(listed.contains("must start with https://"), "{listed}");
        let focus = c
            .execute("return [document.activeElement.id, document.getElementById('webhook_url').getAttribute('aria-invalid')];", vec![])
            .await
            .unwrap();
        assert_eq!(focus, json!(["webhook_url", "true"]));
        fits(&c, &shots, "setup-errors").await;

        // github.com never delivers to this machine: a localhost webhook is refused.
        let webhook = c.find(Locator::Id("webhook_url")).await.unwrap();
        webhook.clear().await.unwrap();
        webhook
            .send_keys("http://localhost:3000/webhook")
            .await
            .unwrap();
        c.find(Locator::Id("review")).await.unwrap().click().await.unwrap();
        // The click returns before the next page is in: wait for its words.
        let mut error = String::new();
        for _ in 0..600 {
            if let Ok(e) = c.find(Locator::Css("#webhook_url-error")).await {
                error = e.text().await.unwrap_or_default();
            }
            if error.contains("cannot deliver") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(error.contains("cannot deliver") && error.contains("tunnel"), "{error}");

        // An Enterprise host (the stand-in, on this machine) may deliver to loopback: first
        // a port nothing listens on, which the public-URL check finds leads nowhere.
        let nowhere = format!(
            "http://{}/webhook",
            std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
        );
        let webhook = c.find(Locator::Id("webhook_url")).await.unwrap();
        webhook.clear().await.unwrap();
        webhook.send_keys(&nowhere).await.unwrap();
        let host = c.find(Locator::Id("github_url")).await.unwrap();
        host.clear().await.unwrap();
        host.send_keys(&github).await.unwrap();
        // The App's name: empty (no organization given) takes a default; typed, it is sent.
        let name = wait_for(&c, "#name").await;
        assert_eq!(name.prop("value").await.unwrap().as_deref(), Some(""));
        assert_eq!(
            name.attr("placeholder").await.unwrap().as_deref(),
            Some("auditloop-my-org")
        );
        name.send_keys("auditloop-acme").await.unwrap();
        c.find(Locator::Id("review"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();

        // Step 2: the permissions with their reasons, and the manifest (folded) shown
        // before it is sent.
        let perms = text_of(&c, "#permissions").await;
        assert!(perms.contains("checks") && perms.contains("the audit-gate check run"), "{perms}");
        assert_eq!(text_of(&c, "#app-name").await, "auditloop-acme");
        fits(&c, &shots, "setup-review").await;
        // The public-URL check: nothing answers there, so it warns, says what it tried,
        // and offers to register anyway.
        c.find(Locator::Id("probe")).await.unwrap().click().await.unwrap();
        let warning = text_of(&c, "#probe-failed").await;
        assert!(warning.contains("did not reach this server"), "{warning}");
        assert!(warning.contains(&format!("Tried GET {nowhere}/probe/")), "{warning}");
        assert_eq!(text_of(&c, "#register").await, "Register anyway");
        fits(&c, &shots, "setup-probe-failed").await;

        // "Change the answers" keeps them; the URL of this very server passes the check.
        c.find(Locator::Id("change")).await.unwrap().click().await.unwrap();
        let kept = wait_for(&c, "#webhook_url").await.prop("value").await.ok().flatten();
        assert_eq!(kept.as_deref(), Some(nowhere.as_str()));
        let kept = wait_for(&c, "#github_url").await.prop("value").await.ok().flatten();
        assert_eq!(kept.as_deref(), Some(github.as_str()));
        let kept = wait_for(&c, "#name").await.prop("value").await.ok().flatten();
        assert_eq!(kept.as_deref(), Some("auditloop-acme"));
        let webhook = c.find(Locator::Id("webhook_url")).await.unwrap();
        webhook.clear().await.unwrap();
        webhook.send_keys(&format!("{ours}/webhook")).await.unwrap();
        c.find(Locator::Id("review")).await.unwrap().click().await.unwrap();
        wait_for(&c, "#permissions").await;
        c.find(Locator::Id("probe")).await.unwrap().click().await.unwrap();
        let reached = text_of(&c, "#probe-ok").await;
        assert!(reached.contains("reached this server"), "{reached}");
        assert_eq!(text_of(&c, "#register").await, "Register GitHub App");
        fits(&c, &shots, "setup-probe-ok").await;
        let manifest = c
            .execute("return document.getElementById('manifest').textContent;", vec![])
            .await
            .unwrap();
        let shown: Value = serde_json::from_str(manifest.as_str().unwrap()).unwrap();
        assert_eq!(shown["name"], "auditloop-acme");
        assert_eq!(shown["url"], ours);
        assert_eq!(shown["hook_attributes"]["url"], format!("{ours}/webhook"));
        assert_eq!(shown["redirect_url"], format!("{ours}/setup/callback"));
        c.find(Locator::Id("register"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();

        // Step 3: GitHub redirected back; the install link and serving at once.
        let install = wait_for(&c, "#install").await;
        let href = install.attr("href").await.unwrap().unwrap_or_default();
        let url = c.current_url().await.unwrap();
        (shown, href, url.to_string(), text_of(&c, "main").await)
    }
    .await;
    let _ = c.close().await;
    drop(driver);
    let (shown, href, landed, done_page) = outcome;

    assert_eq!(
        href,
        format!("{github}/apps/auditloop-acme/installations/new")
    );
    assert!(
        landed.starts_with(&format!("{ours}/setup/callback?code=c0ffee42&state=")),
        "{landed}"
    );
    assert!(done_page.contains("now serving"), "{done_page}");

    // What the stand-in GitHub received: the manifest shown, exactly, with our state.
    let (sent, state) = {
        let s = seen.lock().unwrap();
        assert_eq!(s.manifests.len(), 1);
        assert_eq!(s.conversions, ["c0ffee42"]);
        s.manifests[0].clone()
    };
    assert_eq!(sent, shown);
    assert_eq!(state.len(), 32);
    assert!(landed.ends_with(&state));
    let perms = &sent["default_permissions"];
    assert_eq!(perms["merge_queues"], "read");
    assert_eq!(perms["checks"], "write");
    assert!(perms.get("members").is_none());
    assert_eq!(sent["default_events"].as_array().unwrap().len(), 6);

    // `.env` and the key, readable only by their owner.
    let key = dir.path().join("auditloop-acme.private-key.pem");
    let env_text = std::fs::read_to_string(dir.path().join(".env")).unwrap();
    assert_eq!(
        env_text,
        format!(
            "AUDITLOOP_APP_ID=4242\nAUDITLOOP_PRIVATE_KEY_PATH={}\nAUDITLOOP_WEBHOOK_SECRET=whsec-browser\nAUDITLOOP_GITHUB_API_URL={github}/api/v3\n",
            key.display()
        )
    );
    {
        use std::os::unix::fs::PermissionsExt;
        for file in [key, dir.path().join(".env")] {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", file.display());
        }
    }

    // The same process now serves the App: health, and a delivery signed with the secret.
    let http = reqwest::Client::new();
    let health = http.get(format!("{ours}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");
    let body = br#"{"zen":"Keep it logically awesome.","hook_id":1}"#;
    let r = http
        .post(format!("{ours}/webhook"))
        .header("x-github-event", "ping")
        .header("x-github-delivery", "browser-ping-1")
        .header(
            "x-hub-signature-256",
            support::deliveries::sign("whsec-browser", body),
        )
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
