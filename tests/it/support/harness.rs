//! The real auditloop server, bound on loopback, talking to a fake GitHub.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use auditloop::app::AuditApp;
use auditloop::engine::receipt::TrustStore;
use auditloop::engine::repo_config::Assurance;
use auditloop::github::PrivateKey;
use auditloop::github::{GitHubApp, GitHubSettings, RetryPolicy};
use auditloop::metrics::Metrics;
use auditloop::redeliver::{self, ProcessOutcomes};
use auditloop::server::signature::WebhookSecrets;
use auditloop::server::{router, AppState};
use secrecy::SecretString;
use serde_json::Value;

use super::deliveries::sign;
use super::fake::FakeGitHub;

pub const SECRET: &str = "test-webhook-secret";

pub fn app_key() -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/app-key.pem",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

pub struct TestApp {
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    /// The app behind the router, for what runs beside deliveries (the dashboards' flush).
    pub app: Arc<AuditApp>,
    /// The router's state: its deliveries, held, queued and handled.
    pub state: AppState,
    /// The server, and the redelivery sweep when one runs: what [`TestApp::kill`] stops.
    tasks: Vec<tokio::task::JoinHandle<()>>,
    stop: tokio::sync::watch::Sender<bool>,
}

/// How a [`TestApp`] runs beyond its router.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Least time between two writes of one installation (the operator's setting; the
    /// other tests space none, so that they run fast).
    pub write_gap: Duration,
    /// The redelivery sweep's interval, when it runs (with the outcomes of this process).
    pub sweep: Option<Duration>,
}

impl TestApp {
    pub async fn start(github: &FakeGitHub) -> Self {
        Self::start_with(github, SECRET).await
    }

    /// Serves with `secrets` (comma-separated, as operators configure them).
    pub async fn start_with(github: &FakeGitHub, secrets: &str) -> Self {
        Self::start_full(github, secrets, TrustStore::default(), Assurance::Standard).await
    }

    /// Serves with an operator trust store and minimum assurance.
    pub async fn start_full(
        github: &FakeGitHub,
        secrets: &str,
        trust: TrustStore,
        min: Assurance,
    ) -> Self {
        Self::start_governed(github, secrets, (trust, min), Duration::ZERO).await
    }

    /// Serves with writes spaced `write_gap` apart, as an operator sets them (the other
    /// tests space none, so that they run fast).
    pub async fn start_spaced(github: &FakeGitHub, write_gap: Duration) -> Self {
        let policy = (TrustStore::default(), Assurance::Standard);
        Self::start_governed(github, SECRET, policy, write_gap).await
    }

    async fn start_governed(
        github: &FakeGitHub,
        secrets: &str,
        policy: (TrustStore, Assurance),
        write_gap: Duration,
    ) -> Self {
        let options = Options {
            write_gap,
            sweep: None,
        };
        Self::start_options(github, secrets, policy, options).await
    }

    /// Serves with `options`: the write gap, and the redelivery sweep.
    pub async fn start_with_options(github: &FakeGitHub, options: Options) -> Self {
        let policy = (TrustStore::default(), Assurance::Standard);
        Self::start_options(github, SECRET, policy, options).await
    }

    async fn start_options(
        github: &FakeGitHub,
        secrets: &str,
        (trust, min): (TrustStore, Assurance),
        options: Options,
    ) -> Self {
        let write_gap = options.write_gap;
        let metrics = Metrics::new();
        let gh = GitHubApp::new(
            GitHubSettings {
                app_id: 1,
                private_key: PrivateKey(SecretString::from(app_key())),
                api_url: github.api_url(),
                timeout: Duration::from_secs(5),
                retry: RetryPolicy {
                    max_attempts: 3,
                    max_wait: Duration::from_secs(3),
                    backoff: Duration::from_millis(20),
                },
                write_gap,
            },
            metrics.clone(),
        )
        .expect("client");
        let gh = Arc::new(gh);
        let app = Arc::new(AuditApp::with_policy(gh.clone(), trust, min));
        let state = AppState::new(
            WebhookSecrets::parse(secrets).unwrap(),
            metrics,
            app.clone(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = router(state.clone());
        let mut tasks = vec![tokio::spawn(async move {
            let _ = axum::serve(listener, served).await;
        })];
        let (stop, stopped) = tokio::sync::watch::channel(false);
        if let Some(every) = options.sweep {
            let outcomes = ProcessOutcomes {
                deliveries: state.deliveries(),
                handler: app.clone(),
            };
            tasks.push(redeliver::spawn(
                gh,
                every,
                stopped,
                Some(Arc::new(outcomes)),
            ));
        }
        Self {
            addr,
            http: reqwest::Client::new(),
            app,
            state,
            tasks,
            stop,
        }
    }

    /// Stops the process as a crash would: the server, its sweep, and its queue, whose
    /// deliveries are lost with it.
    pub fn kill(&self) {
        let _ = self.stop.send(true);
        self.state.deliveries().stop();
        for task in &self.tasks {
            task.abort();
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Posts a delivery signed with the test secret.
    pub async fn deliver(&self, event: &str, id: &str, payload: &Value) -> reqwest::Response {
        let body = serde_json::to_vec(payload).unwrap();
        let sig = sign(SECRET, &body);
        self.post_raw(event, id, body, Some(&sig)).await
    }

    pub async fn post_raw(
        &self,
        event: &str,
        id: &str,
        body: Vec<u8>,
        signature: Option<&str>,
    ) -> reqwest::Response {
        let mut req = self
            .http
            .post(self.url("/webhook"))
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", id);
        if let Some(sig) = signature {
            req = req.header("x-hub-signature-256", sig);
        }
        req.body(body).send().await.unwrap()
    }

    pub async fn get_text(&self, path: &str) -> (u16, String) {
        let r = self.http.get(self.url(path)).send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }
}
