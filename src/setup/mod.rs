//! First-run setup through GitHub's App-manifest flow (docs/reference.md#command-line). A local page asks
//! for the public webhook URL, the organization, the GitHub host and the App's name, shows
//! the manifest, offers to check that the public URL reaches this server (`probe`), and
//! posts the manifest to GitHub; GitHub redirects back with a code; the code is converted
//! (`POST /app-manifests/{code}/conversions`), the App id, the PEM key's path and the
//! webhook secret are written to `.env`, and the same listener goes on serving the App.

mod convert;
mod form;
mod manifest;
mod page;
mod probe;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Request, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use futures::future::BoxFuture;
use serde::Deserialize;
use tower::ServiceExt as _;

pub(crate) use convert::Registered;
pub(crate) use form::{default_name, Choice, FormInput};
pub(crate) use manifest::{html_attr, manifest_json, permission_reasons, set_name};
pub use page::apps_page;

#[derive(Debug, Clone)]
pub struct SetupOptions {
    /// The GitHub web address the form starts with: `https://github.com` or an Enterprise host.
    pub github_url: String,
    /// An operator-set REST URL (`AUDITLOOP_GITHUB_API_URL`); otherwise derived from the host.
    pub api_url: Option<String>,
    /// The organization the form starts with.
    pub org: Option<String>,
    /// The public webhook URL the form starts with (`--webhook-url`).
    pub webhook_url: Option<String>,
    /// Where `.env` and the key are written.
    pub dir: PathBuf,
    /// `app-manifest.yml`'s text.
    pub manifest: String,
}

/// Starts serving the registered App; answers the router that takes over the listener.
pub type Launch = Box<dyn FnOnce(Registered) -> BoxFuture<'static, anyhow::Result<Router>> + Send>;

/// How many reviewed forms are remembered (each has its own `state`).
const PENDING: usize = 16;

/// A reviewed form: the answers, checked, as typed, and the manifest they make.
#[derive(Clone)]
struct Reviewed {
    choice: Choice,
    input: FormInput,
    manifest: serde_json::Value,
}

#[derive(Clone)]
struct SetupState {
    opts: Arc<SetupOptions>,
    /// Reviewed answers by the `state` their form carries to GitHub and back: a redirect
    /// carrying no state this page issued is refused (CSRF protection).
    pending: Arc<Mutex<VecDeque<(String, Reviewed)>>>,
    /// The public-URL check's one-time tokens.
    probes: Arc<probe::Probes>,
    /// Held while a code is converted, so a second redirect cannot convert again; then
    /// holds the finished page.
    finished: Arc<tokio::sync::Mutex<Option<String>>>,
    launch: Arc<Mutex<Option<Launch>>>,
    /// What the listener serves: this setup, then the App.
    serving: Arc<RwLock<Router>>,
}

fn initial_input(opts: &SetupOptions) -> FormInput {
    FormInput {
        webhook_url: opts.webhook_url.clone().unwrap_or_default(),
        org: opts.org.clone().unwrap_or_default(),
        github_url: opts.github_url.clone(),
        name: opts.org.as_deref().map(default_name).unwrap_or_default(),
    }
}

/// The form; "Change the answers" comes back with the answers in the query.
async fn start_page(
    State(s): State<SetupState>,
    headers: HeaderMap,
    Query(answers): Query<FormInput>,
) -> Html<String> {
    let input = if answers.webhook_url.is_empty() && answers.github_url.is_empty() {
        initial_input(&s.opts)
    } else {
        answers
    };
    Html(page::form(&input, &[], own_port(&headers)))
}

/// The port the browser reached this server on: the one a tunnel forwards.
fn own_port(headers: &HeaderMap) -> u16 {
    headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.rsplit_once(':'))
        .and_then(|(_, port)| port.parse().ok())
        .unwrap_or(80)
}

/// The address the browser reached us at, for the redirect back; only host characters.
fn own_origin(headers: &HeaderMap) -> Option<String> {
    let host = headers.get("host")?.to_str().ok()?;
    let ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        == Some("https");
    ok.then(|| format!("{}://{host}", if https { "https" } else { "http" }))
}

async fn review(
    State(s): State<SetupState>,
    headers: HeaderMap,
    Form(input): Form<FormInput>,
) -> Response {
    let choice = match input.check(s.opts.api_url.as_deref()) {
        Ok(c) => c,
        Err(errors) => {
            return (
                StatusCode::UNPROCESSABLE_ENTITY,
                Html(page::form(&input, &errors, own_port(&headers))),
            )
                .into_response()
        }
    };
    let Some(origin) = own_origin(&headers) else {
        return (
            StatusCode::BAD_REQUEST,
            Html(page::problem(
                "Cannot tell this page's address",
                "The request carried no usable Host header, so GitHub could not be told where to send you back.",
            )),
        )
            .into_response();
    };
    let mut manifest = match manifest_json(
        &s.opts.manifest,
        &format!("{origin}/setup/callback"),
        Some(&choice.webhook_url),
    ) {
        Ok(m) => m,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                Html(page::problem("app-manifest.yml cannot be used", &e)),
            )
                .into_response()
        }
    };
    set_name(&mut manifest, &choice.name);
    let state = hex::encode(rand::random::<[u8; 16]>());
    let reviewed = Reviewed {
        choice,
        input,
        manifest,
    };
    {
        let mut pending = s
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        pending.push_back((state.clone(), reviewed.clone()));
        while pending.len() > PENDING {
            pending.pop_front();
        }
    }
    review_page(&s, &reviewed, &state, None, own_port(&headers)).into_response()
}

fn review_page(
    s: &SetupState,
    reviewed: &Reviewed,
    state: &str,
    probed: Option<&page::Probed>,
    port: u16,
) -> Html<String> {
    let reasons = permission_reasons(&s.opts.manifest);
    Html(page::review(&page::Review {
        choice: &reviewed.choice,
        input: &reviewed.input,
        state,
        manifest: &reviewed.manifest,
        reasons: &reasons,
        probed,
        port,
    }))
}

fn reviewed(s: &SetupState, state: Option<&str>) -> Option<Reviewed> {
    let pending = s
        .pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    pending
        .iter()
        .find(|(issued, _)| Some(issued.as_str()) == state)
        .map(|(_, r)| r.clone())
}

#[derive(Deserialize)]
struct ProbeForm {
    state: Option<String>,
}

/// "Check the public URL": fetches a one-time path through the webhook URL and shows the
/// review page again, saying whether it reached this server.
async fn check_public_url(
    State(s): State<SetupState>,
    headers: HeaderMap,
    Form(form): Form<ProbeForm>,
) -> Response {
    let Some(reviewed) = reviewed(&s, form.state.as_deref()) else {
        return problem(
            StatusCode::BAD_REQUEST,
            "This form did not come from this setup page",
            "It carries no state this page issued (or the page was restarted since). Start again from the first page.",
        );
    };
    let token = s.probes.issue();
    let probed = match probe::probe_url(&reviewed.choice.webhook_url, &token) {
        Some(url) => {
            let outcome = probe::fetch(&url, &token, probe::TIMEOUT).await;
            s.probes.forget(&token);
            page::Probed {
                tried: url.to_string(),
                failure: outcome.err(),
            }
        }
        None => page::Probed {
            tried: reviewed.choice.webhook_url.clone(),
            failure: Some("the address cannot be parsed".to_owned()),
        },
    };
    let state = form.state.unwrap_or_default();
    review_page(&s, &reviewed, &state, Some(&probed), own_port(&headers)).into_response()
}

/// The probe's path: the token, once, while setup runs; anything else is not found.
async fn answer_probe(
    State(s): State<SetupState>,
    axum::extract::Path(token): axum::extract::Path<String>,
) -> Response {
    if s.probes.answer(&token) {
        (StatusCode::OK, token).into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    }
}

#[derive(Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
}

fn problem(status: StatusCode, title: &str, sentence: &str) -> Response {
    (status, Html(page::problem(title, sentence))).into_response()
}

async fn callback(State(s): State<SetupState>, Query(q): Query<Callback>) -> Response {
    let Some(choice) = reviewed(&s, q.state.as_deref()).map(|r| r.choice) else {
        return problem(
            StatusCode::BAD_REQUEST,
            "This link did not come from this setup page",
            &format!(
                "GitHub's redirect does not carry the state this page issued (or the page was restarted since). If GitHub has just registered the App, delete it at {} before you start again from the first page, or a second App is registered.",
                page::apps_page(&s.opts.github_url, s.opts.org.as_deref())
            ),
        );
    };
    let Some(code) = q.code.filter(|c| {
        !c.is_empty() && c.len() <= 100 && c.bytes().all(|b| b.is_ascii_alphanumeric())
    }) else {
        return problem(
            StatusCode::BAD_REQUEST,
            "GitHub sent no code",
            "The redirect carries no usable code, so the App's credentials cannot be fetched. Start again from the first page.",
        );
    };
    let mut finished = s.finished.lock().await;
    if let Some(done) = finished.as_ref() {
        return (StatusCode::OK, Html(done.clone())).into_response();
    }
    // A failure leaves the state pending and nothing finished: reloading retries.
    let registered = match convert::convert(&choice, &s.opts.dir, &code).await {
        Ok(r) => r,
        Err(e) => {
            let apps = page::apps_page(&choice.github_url, choice.org.as_deref());
            return (
                StatusCode::BAD_GATEWAY,
                Html(page::conversion_failed(&e.to_string(), &apps)),
            )
                .into_response();
        }
    };
    let files = format!(
        "<code>{}</code> and <code>{}</code>",
        html_attr(&registered.env_path.display().to_string()),
        html_attr(&registered.key_path.display().to_string())
    );
    let launch = s
        .launch
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    let Some(launch) = launch else {
        return problem(
            StatusCode::CONFLICT,
            "Setup already finished",
            "This setup has already handed over to the App.",
        );
    };
    match launch(registered.clone()).await {
        Ok(app) => {
            *s.serving.write().unwrap_or_else(std::sync::PoisonError::into_inner) = app;
            println!(
                "auditloop: {registered} is registered and its settings are in .env. Install it: {}\nauditloop: serving webhooks now.",
                registered.install_url
            );
            let done = page::done(&registered.slug, &registered.install_url, &files);
            *finished = Some(done.clone());
            Html(done).into_response()
        }
        Err(e) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Registered, but not serving",
            &format!(
                "{registered} is registered and saved, but auditloop could not start serving it: {e:#}. Fix that, then start auditloop again; setup is not needed again."
            ),
        ),
    }
}

/// Liveness while setup runs: the process is up and serving its setup page, so a container
/// health check does not restart it mid-setup. Readiness (`/readyz`) stays unanswered
/// (404) until the App serves.
async fn setup_in_progress() -> Response {
    (
        StatusCode::OK,
        "setup in progress: no GitHub App is configured yet; open the setup page to register one",
    )
        .into_response()
}

/// What the listener serves: the setup pages until the App is registered and launched,
/// then the App's own router, without rebinding.
pub fn app(opts: SetupOptions, launch: Launch) -> Router {
    let serving = Arc::new(RwLock::new(Router::new()));
    let state = SetupState {
        opts: Arc::new(opts),
        pending: Arc::new(Mutex::new(VecDeque::new())),
        probes: Arc::new(probe::Probes::default()),
        finished: Arc::new(tokio::sync::Mutex::new(None)),
        launch: Arc::new(Mutex::new(Some(launch))),
        serving: serving.clone(),
    };
    let setup = Router::new()
        .route("/", get(start_page))
        .route("/setup/review", post(review))
        .route("/setup/callback", get(callback))
        .route("/setup/probe", post(check_public_url))
        .route("/webhook/probe/{token}", get(answer_probe))
        .route("/healthz", get(setup_in_progress))
        .with_state(state);
    *serving
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = setup;
    let handover = tower::service_fn(move |req: Request<Body>| {
        let current = serving
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        current.oneshot(req)
    });
    Router::new().fallback_service(handover)
}

/// The address to print: a wildcard bind is reached through loopback on this machine.
fn printable(addr: std::net::SocketAddr) -> std::net::SocketAddr {
    let mut addr = addr;
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    addr
}

/// Serves setup on `listener`, then the App, until `shutdown` completes.
///
/// # Errors
///
/// When setup or the App fails to serve, or the setup result cannot be written.
pub(crate) async fn run(
    listener: tokio::net::TcpListener,
    opts: SetupOptions,
    launch: Launch,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    println!(
        "auditloop: no GitHub App is configured yet. Open http://{}/ to register one.",
        printable(addr)
    );
    axum::serve(listener, app(opts, launch))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}
