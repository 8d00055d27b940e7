//! First-run setup through GitHub's App-manifest flow: the page, the redirect's state check,
//! the code conversion against the (fake) API, and what lands in `.env`.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use auditloop::setup::{router, SetupOptions};
use support::fake::FakeGitHub;

const MANIFEST: &str = include_str!("../../app-manifest.yml");

async fn serve_setup(
    gh: &FakeGitHub,
    dir: &std::path::Path,
) -> (String, tokio::sync::watch::Receiver<bool>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = SetupOptions {
        listen: addr,
        github_url: "https://github.com".into(),
        api_url: gh.api_url(),
        org: None,
        webhook_url: Some("https://tunnel.example/webhook".into()),
        dir: dir.to_path_buf(),
        manifest: MANIFEST.into(),
    };
    let (app, done) = router(opts);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), done)
}

fn state_of(page: &str) -> String {
    let at = page.find("state=").expect("the form carries a state") + 6;
    page[at..]
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect()
}

#[tokio::test]
async fn the_manifest_flow_writes_the_apps_settings_to_dotenv() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "AUDITLOOP_LOG=debug\n").unwrap();
    let (base, mut done) = serve_setup(&gh, dir.path()).await;
    let http = reqwest::Client::new();

    let page = http
        .get(format!("{base}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Register GitHub App"));
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
        .replace("&quot;", "\"");
    let manifest: serde_json::Value = serde_json::from_str(
        &manifest
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">"),
    )
    .unwrap();
    assert_eq!(manifest["redirect_url"], format!("{base}/setup/callback"));
    assert_eq!(
        manifest["hook_attributes"]["url"],
        "https://tunnel.example/webhook"
    );
    assert_eq!(manifest["default_permissions"]["checks"], "write");
    let state = state_of(&page);
    assert_eq!(state.len(), 32);

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
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert!(*done.borrow_and_update(), "setup reports it is finished");

    let env = std::fs::read_to_string(dir.path().join(".env")).unwrap();
    let key = dir.path().join("auditloop-acme.private-key.pem");
    assert_eq!(
        env,
        format!("AUDITLOOP_LOG=debug\nAUDITLOOP_APP_ID=777\nAUDITLOOP_PRIVATE_KEY_PATH={}\nAUDITLOOP_WEBHOOK_SECRET=whsec-from-github\n", key.display())
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
    let (base, done) = serve_setup(&gh, dir.path()).await;
    let http = reqwest::Client::new();
    let page = http
        .get(format!("{base}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let state = state_of(&page);
    let r = http
        .get(format!("{base}/setup/callback?code=expired&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    assert!(!*done.borrow());
    assert!(!dir.path().join(".env").exists());
}

/// `auditloop setup` serves the page; `auditloop` with no credential at all does the same.
#[test]
fn the_binary_serves_the_setup_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .args(["setup", "--listen", "127.0.0.1:0"])
        .current_dir(dir.path())
        .env_clear()
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
    assert!(page.unwrap_or_default().contains("Register GitHub App"));
}
