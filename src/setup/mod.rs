//! First-run setup through GitHub's App-manifest flow (CONTRACT §2): a local page with a
//! "Register GitHub App" button posts `app-manifest.yml` to GitHub; GitHub redirects back
//! with a code; the code is converted (`POST /app-manifests/{code}/conversions`) and the App
//! id, the PEM key's path and the webhook secret are written to `.env`.

mod manifest;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use tokio::sync::watch;

pub use manifest::{html_attr, manifest_json, updated_env};

use crate::github::{Api, Call, GitHubError, RetryPolicy};
use crate::metrics::Metrics;

#[derive(Debug, Clone)]
pub struct SetupOptions {
    /// Where this setup page listens (the redirect comes back here).
    pub listen: SocketAddr,
    /// GitHub's web host: `https://github.com` or the Enterprise host.
    pub github_url: String,
    pub api_url: String,
    /// Register the App for this organization instead of the signed-in user.
    pub org: Option<String>,
    /// The public URL GitHub will deliver webhooks to.
    pub webhook_url: Option<String>,
    /// Where `.env` and the key are written.
    pub dir: PathBuf,
    /// `app-manifest.yml`'s text.
    pub manifest: String,
}

#[derive(Clone)]
struct SetupState {
    opts: Arc<SetupOptions>,
    /// The `state` value the redirect must carry back (CSRF protection).
    nonce: String,
    done: watch::Sender<bool>,
    finished: Arc<Mutex<bool>>,
}

/// What GitHub's conversion answers; the secret fields never reach logs.
#[derive(Deserialize)]
struct Conversion {
    id: u64,
    slug: String,
    pem: String,
    webhook_secret: Option<String>,
}

fn redirect_url(opts: &SetupOptions) -> String {
    format!("http://{}/setup/callback", opts.listen)
}

fn new_url(opts: &SetupOptions, nonce: &str) -> String {
    let base = opts.github_url.trim_end_matches('/');
    match &opts.org {
        Some(org) => format!("{base}/organizations/{org}/settings/apps/new?state={nonce}"),
        None => format!("{base}/settings/apps/new?state={nonce}"),
    }
}

async fn page(State(s): State<SetupState>) -> Response {
    let manifest = match manifest_json(
        &s.opts.manifest,
        &redirect_url(&s.opts),
        s.opts.webhook_url.as_deref(),
    ) {
        Ok(m) => m,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e).into_response(),
    };
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>auditloop setup</title></head><body>\
         <h1>auditloop: first-run setup</h1>\
         <p>Register the GitHub App described by <code>app-manifest.yml</code>. GitHub asks you to confirm, \
         then sends you back here, and the App's id, key and webhook secret are written to <code>.env</code>.</p>\
         <form action=\"{}\" method=\"post\"><input type=\"hidden\" name=\"manifest\" value=\"{}\">\
         <button type=\"submit\">Register GitHub App</button></form></body></html>",
        html_attr(&new_url(&s.opts, &s.nonce)),
        html_attr(&manifest.to_string())
    ))
    .into_response()
}

#[derive(Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
}

async fn callback(State(s): State<SetupState>, Query(q): Query<Callback>) -> Response {
    if q.state.as_deref() != Some(s.nonce.as_str()) {
        return (
            StatusCode::BAD_REQUEST,
            "this redirect does not carry the state this setup page issued; start again from /",
        )
            .into_response();
    }
    let Some(code) = q
        .code
        .filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphanumeric()))
    else {
        return (
            StatusCode::BAD_REQUEST,
            "the redirect carries no usable code; start again from /",
        )
            .into_response();
    };
    if *s.finished.lock().unwrap_or_else(|p| p.into_inner()) {
        return (StatusCode::CONFLICT, "setup already finished").into_response();
    }
    match finish(&s.opts, &code).await {
        Ok(done) => {
            *s.finished.lock().unwrap_or_else(|p| p.into_inner()) = true;
            let _ = s.done.send(true);
            Html(format!(
                "<!doctype html><html><body><h1>GitHub App {} registered</h1><p>Its settings are in <code>.env</code>. \
                 Install the App on a repository, then start auditloop again: <code>cargo run --release</code>.</p></body></html>",
                html_attr(&done)
            ))
            .into_response()
        }
        Err(e) => (
            StatusCode::BAD_GATEWAY,
            format!("GitHub did not convert the code: {e}; start again from /"),
        )
            .into_response(),
    }
}

/// Converts the code and writes the key and `.env`; returns the App's slug.
async fn finish(opts: &SetupOptions, code: &str) -> Result<String, GitHubError> {
    let octo = octocrab::Octocrab::builder()
        .base_uri(opts.api_url.as_str())
        .map_err(|e| GitHubError::Setup(e.to_string()))?
        .build()
        .map_err(|e| GitHubError::Setup(e.to_string()))?;
    let api = Api::new(Arc::new(octo), None, Metrics::new(), RetryPolicy::default());
    let route = "POST /app-manifests/{code}/conversions";
    let app: Conversion = api
        .json(Call::post(
            route,
            format!("/app-manifests/{code}/conversions"),
            &serde_json::json!({}),
        ))
        .await?;
    let key_path = opts.dir.join(format!("{}.private-key.pem", app.slug));
    write_private(&key_path, &app.pem)
        .map_err(|e| GitHubError::Setup(format!("writing {}: {e}", key_path.display())))?;
    let env_path = opts.dir.join(".env");
    let existing = std::fs::read_to_string(&env_path).unwrap_or_default();
    let secret = app.webhook_secret.unwrap_or_default();
    let env = updated_env(&existing, app.id, &key_path.display().to_string(), &secret);
    write_private(&env_path, &env)
        .map_err(|e| GitHubError::Setup(format!("writing {}: {e}", env_path.display())))?;
    tracing::info!(app_id = app.id, slug = %app.slug, "GitHub App registered; settings written to .env");
    Ok(app.slug)
}

/// Writes a file only its owner can read: it holds a key or a secret.
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    // `mode` applies only to a new file: an existing `.env` is narrowed too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(text.as_bytes())
}

/// The setup router, and a receiver that turns `true` once the App is registered.
pub fn router(opts: SetupOptions) -> (Router, watch::Receiver<bool>) {
    let nonce = hex::encode(rand::random::<[u8; 16]>());
    let (done, finished) = watch::channel(false);
    let state = SetupState {
        opts: Arc::new(opts),
        nonce,
        done,
        finished: Arc::new(Mutex::new(false)),
    };
    let router = Router::new()
        .route("/", get(page))
        .route("/setup/callback", get(callback))
        .with_state(state);
    (router, finished)
}

/// Serves the setup page until the App is registered (or a shutdown signal).
pub async fn run(opts: SetupOptions) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(opts.listen).await?;
    let addr = listener.local_addr()?;
    let (router, mut finished) = router(opts);
    println!("auditloop: no GitHub App is configured yet. Open http://{addr}/ to register one.");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = finished.wait_for(|done| *done).await;
        })
        .await?;
    println!(
        "auditloop: the App is registered and .env is written; start auditloop again to serve."
    );
    Ok(())
}
