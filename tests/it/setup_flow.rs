//! First-run setup through GitHub's App-manifest flow over HTTP: the form and its refusals,
//! the manifest shown, the redirect's state check, the code conversion against the (fake)
//! API, what lands in `.env`, and the hand-over to the App on the same listener.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use auditloop::setup::{app, Launch, SetupOptions};
use support::fake::FakeGitHub;

const MANIFEST: &str = include_str!("../../app-manifest.yml");

/// A launch that serves `/healthz` as the App would.
fn stub_launch() -> Launch {
    Box::new(|_registered| {
        Box::pin(async {
            Ok(axum::Router::new().route("/healthz", axum::routing::get(|| async { "ok" })))
        })
    })
}

pub async fn serve_setup(gh: &FakeGitHub, dir: &std::path::Path) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = SetupOptions {
        github_url: "https://github.com".into(),
        api_url: Some(gh.api_url()),
        org: None,
        webhook_url: Some("https://tunnel.example/webhook".into()),
        dir: dir.to_path_buf(),
        manifest: MANIFEST.into(),
    };
    let router = app(opts, stub_launch());
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

pub fn state_of(page: &str) -> String {
    let at = page.find("state=").expect("the form carries a state") + 6;
    page[at..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect()
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Posts the form; the review page's status and text.
pub async fn review(base: &str, fields: &[(&str, &str)]) -> (u16, String) {
    let r = reqwest::Client::new()
        .post(format!("{base}/setup/review"))
        .form(fields)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn the_form_refuses_mistakes_in_words() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let page = reqwest::get(format!("{base}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("three steps"), "{page}");
    assert!(
        page.contains("value=\"https://tunnel.example/webhook\""),
        "{page}"
    );
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("webhook_url", "http://tunnel.example/webhook")],
            "must start with https://",
        ),
        (&[("webhook_url", "")], "public address"),
        (
            &[("webhook_url", "tunnel.example/webhook")],
            "is not a full address",
        ),
        (
            &[
                ("webhook_url", "https://tunnel.example/webhook"),
                ("org", "no spaces"),
            ],
            "is not an organization name",
        ),
        (
            &[
                ("webhook_url", "https://tunnel.example/webhook"),
                ("github_url", "http://ghe.example.com"),
            ],
            "must start with https://",
        ),
    ];
    for (fields, words) in cases {
        let (status, page) = review(&base, fields).await;
        assert_eq!(status, 422, "{fields:?}");
        assert!(unescape(&page).contains(words), "{fields:?}: {page}");
        assert!(page.contains("Please fix"), "{page}");
    }
    // github.com never delivers to this machine; an Enterprise host on it may, for trials.
    let (status, page) = review(&base, &[("webhook_url", "http://localhost:3000/webhook")]).await;
    assert_eq!(status, 422);
    assert!(unescape(&page).contains("cannot deliver"), "{page}");
    let (status, _) = review(
        &base,
        &[
            ("webhook_url", "http://localhost:3000/webhook"),
            ("github_url", "https://ghe.example.com"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        gh.requests().is_empty(),
        "no GitHub call before the conversion"
    );
}

#[tokio::test]
async fn an_organization_on_an_enterprise_host_gets_its_own_form_address() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let (status, page) = review(
        &base,
        &[
            ("webhook_url", "https://hooks.acme.example/webhook"),
            ("org", "acme"),
            ("github_url", "ghe.acme.example"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(
            "action=\"https://ghe.acme.example/organizations/acme/settings/apps/new?state="
        ),
        "{page}"
    );
    assert!(
        page.contains("the organization acme on ghe.acme.example"),
        "{page}"
    );
}

#[tokio::test]
async fn the_manifest_flow_writes_the_apps_settings_to_dotenv() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "AUDITLOOP_LOG=debug\n").unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let http = reqwest::Client::new();
    let (status, page) = review(&base, &[("webhook_url", "https://tunnel.example/webhook")]).await;
    assert_eq!(status, 200);
    assert!(page.contains("Register GitHub App"));
    assert!(
        page.contains("id=\"manifest\""),
        "the manifest is shown: {page}"
    );
    assert!(
        page.contains("action=\"https://github.com/settings/apps/new?state="),
        "{page}"
    );
    let manifest = page
        .split("name=\"manifest\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let manifest: serde_json::Value = serde_json::from_str(&unescape(&manifest)).unwrap();
    assert_eq!(manifest["redirect_url"], format!("{base}/setup/callback"));
    assert_eq!(
        manifest["hook_attributes"]["url"],
        "https://tunnel.example/webhook"
    );
    assert_eq!(manifest["default_permissions"]["checks"], "write");
    let state = state_of(&page);
    assert_eq!(state.len(), 32);

    assert!(manifest["default_permissions"].get("members").is_none());
    assert_eq!(manifest["default_permissions"]["merge_queues"], "read");
    // Setup is not the App yet: alive, not ready.
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert!(health
        .text()
        .await
        .unwrap()
        .starts_with("setup in progress"));
    assert_eq!(
        http.get(format!("{base}/readyz"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    // A redirect that does not carry our state is refused, and nothing is written.
    let r = http
        .get(format!("{base}/setup/callback?code=goodcode&state=forged"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".env")).unwrap(),
        "AUDITLOOP_LOG=debug\n"
    );

    let r = http
        .get(format!("{base}/setup/callback?code=goodcode&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let done = r.text().await.unwrap();
    assert!(
        done.contains("href=\"https://github.com/apps/auditloop-acme/installations/new\""),
        "{done}"
    );
    // The same listener now serves the App.
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");

    let env = std::fs::read_to_string(dir.path().join(".env")).unwrap();
    let key = dir.path().join("auditloop-acme.private-key.pem");
    assert_eq!(
        env,
        format!("AUDITLOOP_LOG=debug\nAUDITLOOP_APP_ID=777\nAUDITLOOP_PRIVATE_KEY_PATH={}\nAUDITLOOP_WEBHOOK_SECRET=whsec-from-github\nAUDITLOOP_GITHUB_API_URL={}\n", key.display(), gh.api_url())
    );
    assert!(std::fs::read_to_string(&key)
        .unwrap()
        .starts_with("-----BEGIN RSA PRIVATE KEY-----"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for file in [key.clone(), dir.path().join(".env")] {
            assert_eq!(
                std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
                0o600,
                "{}",
                file.display()
            );
        }
    }
    let conversions: Vec<_> = gh
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/app-manifests/"))
        .collect();
    assert_eq!(conversions.len(), 1);
    assert_eq!(conversions[0].method, "POST");
    assert_eq!(conversions[0].path, "/app-manifests/goodcode/conversions");
}

#[tokio::test]
async fn a_code_github_does_not_know_is_answered_and_writes_nothing() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let http = reqwest::Client::new();
    let (_, page) = review(&base, &[("webhook_url", "https://tunnel.example/webhook")]).await;
    let state = state_of(&page);
    let r = http
        .get(format!("{base}/setup/callback?code=expired&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("Converting the code failed"));
    assert!(!dir.path().join(".env").exists());
    assert_eq!(
        http.get(format!("{base}/readyz"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
}

/// `auditloop` with no credential at all serves the setup page where `AUDITLOOP_LISTEN` says.
#[test]
fn the_binary_serves_the_setup_page_where_told() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .env_clear()
        .env("AUDITLOOP_LISTEN", "127.0.0.1:0")
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split("Open ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .map(str::to_owned);
    let page = url.as_deref().map(|u| {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async { reqwest::get(u).await.unwrap().text().await.unwrap() })
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("no GitHub App is configured yet"), "{line}");
    assert!(page.unwrap_or_default().contains("Public webhook URL"));
}

/// The review page's state and the manifest its form sends.
fn reviewed(page: &str) -> (String, serde_json::Value) {
    let manifest = page
        .split("name=\"manifest\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the review page carries the manifest");
    (
        state_of(page),
        serde_json::from_str(&unescape(manifest)).unwrap(),
    )
}

/// Runs the public-URL check of the reviewed form `state`.
async fn check_url(base: &str, state: &str) -> (u16, String) {
    let r = reqwest::Client::new()
        .post(format!("{base}/setup/probe"))
        .form(&[("state", state)])
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn the_public_url_check_reaches_this_very_server() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    // A GitHub Enterprise Server on this machine may deliver to it, so the URL may be the
    // setup server's own loopback address.
    let (status, page) = review(
        &base,
        &[
            ("webhook_url", &format!("{base}/webhook")),
            ("github_url", "https://ghe.example.com"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("id=\"probe\""),
        "the check is offered: {page}"
    );
    let (state, _) = reviewed(&page);
    let (status, page) = check_url(&base, &state).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"probe-ok\""), "{page}");
    assert!(!page.contains("probe-failed"), "{page}");
    let tried = page
        .split("<code>GET ")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap()
        .to_owned();
    assert!(
        tried.starts_with(&format!("{base}/webhook/probe/")),
        "{tried}"
    );
    // The same form registers, with the state GitHub will bring back.
    assert!(page.contains(">Register GitHub App</button>"), "{page}");
    assert_eq!(reviewed(&page).0, state);
    // The probe's path answered once; it is not found again, nor is a guessed one.
    let again = reqwest::get(&tried).await.unwrap();
    assert_eq!(again.status(), 404);
    let guessed = reqwest::get(format!("{base}/webhook/probe/0123"))
        .await
        .unwrap();
    assert_eq!(guessed.status(), 404);
    // A form this page did not issue is not checked.
    let (status, _) = check_url(&base, "forged").await;
    assert_eq!(status, 400);
    assert!(gh.requests().is_empty(), "no GitHub call");
}

/// A server on loopback that redirects everything to `to`.
async fn redirector(to: String) -> String {
    let app = axum::Router::new().fallback(move || {
        let to = to.clone();
        async move { axum::response::Redirect::temporary(&to) }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test]
async fn the_public_url_check_warns_and_offers_to_register_anyway() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    // A loopback port nothing listens on: the URL leads nowhere.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    // A server that sends the check on to this very setup server: not followed, as
    // GitHub follows no redirect either.
    let elsewhere = redirector(format!("{base}/webhook/probe/x")).await;
    for (webhook, words) in [
        (format!("http://{closed}/webhook"), "could not be fetched"),
        (
            format!("{elsewhere}/webhook"),
            "GitHub does not follow redirects",
        ),
    ] {
        let (status, page) = review(
            &base,
            &[
                ("webhook_url", webhook.as_str()),
                ("github_url", "https://ghe.example.com"),
            ],
        )
        .await;
        assert_eq!(status, 200, "{page}");
        let (state, manifest) = reviewed(&page);
        let (status, page) = check_url(&base, &state).await;
        assert_eq!(status, 200);
        assert!(page.contains("id=\"probe-failed\""), "{page}");
        assert!(page.contains("did not reach this server"), "{page}");
        assert!(
            page.contains(&format!("Tried <code>GET {webhook}/probe/")),
            "what was tried: {page}"
        );
        assert!(page.contains(words), "{webhook}: {page}");
        // Registering anyway sends the same manifest with the same state.
        assert!(page.contains(">Register anyway</button>"), "{page}");
        assert!(
            page.contains(&format!(
                "action=\"https://ghe.example.com/settings/apps/new?state={state}\""
            )),
            "{page}"
        );
        assert_eq!(reviewed(&page), (state, manifest));
    }
}

#[tokio::test]
async fn the_app_name_defaults_to_the_account_and_can_be_edited() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let hook = ("webhook_url", "https://tunnel.example/webhook");
    let page = reqwest::get(format!("{base}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"name\" name=\"name\""), "{page}");
    assert!(page.contains("maxlength=\"34\""), "{page}");
    // An organization's App is `auditloop-<organization>`.
    let (status, page) = review(&base, &[hook, ("org", "acme")]).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(reviewed(&page).1["name"], "auditloop-acme");
    assert!(
        page.contains("<strong id=\"app-name\">auditloop-acme</strong>"),
        "{page}"
    );
    // A long organization name is cut to GitHub's 34 characters.
    let org = "a-very-long-organization-name-of-39-chr";
    assert_eq!(org.len(), 39);
    let (_, page) = review(&base, &[hook, ("org", org)]).await;
    let name = reviewed(&page).1["name"].as_str().unwrap().to_owned();
    assert_eq!(name, "auditloop-a-very-long-organization");
    assert!(name.len() <= 34);
    // Your own account gets a random suffix; "Change the answers" keeps the name given.
    let (_, page) = review(&base, &[hook]).await;
    let name = reviewed(&page).1["name"].as_str().unwrap().to_owned();
    assert!(name.starts_with("auditloop-") && name.len() == 16, "{name}");
    assert!(
        page.contains(&format!("name={name}")),
        "kept on the way back: {page}"
    );
    // An edited name is sent as it was typed.
    let (_, page) = review(&base, &[hook, ("org", "acme"), ("name", "Acme audit gate")]).await;
    assert_eq!(reviewed(&page).1["name"], "Acme audit gate");
    // GitHub's rules, in words, next to the field.
    for (name, words) in [
        ("auditloop-for-the-acme-corporation-x", "at most 34"),
        ("audit/loop", "holds '/'"),
    ] {
        let (status, page) = review(&base, &[hook, ("name", name)]).await;
        assert_eq!(status, 422, "{name}");
        let page = unescape(&page);
        assert!(page.contains(words), "{name}: {page}");
        assert!(page.contains("id=\"name-error\""), "{page}");
        assert!(page.contains(&format!("value=\"{name}\"")), "kept: {page}");
    }
}
