//! The App's GitHub client on octocrab: App JWT auth, one installation client per
//! installation (octocrab caches its token and refreshes it 30 s before expiry, and on 401),
//! and a configurable base URL so GitHub Enterprise Server works.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use octocrab::models::{AppId, InstallationId};
use octocrab::Octocrab;
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::OnceCell;

use crate::github::api::Api;
use crate::github::endpoint::Target;
use crate::github::error::GitHubError;
use crate::github::governor::Governor;
use crate::github::retry::RetryPolicy;
use crate::ids::DeliveryId;
use crate::metrics::Metrics;

/// The App's PEM key. Debug never shows it.
#[derive(Clone)]
pub struct PrivateKey(pub SecretString);

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivateKey(redacted)")
    }
}

pub struct GitHubSettings {
    pub app_id: u64,
    pub private_key: PrivateKey,
    pub api_url: String,
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// The least time between two writes of one identity (`AUDITLOOP_WRITE_GAP_MS`).
    pub write_gap: Duration,
}

pub struct GitHubApp {
    app: Arc<Octocrab>,
    app_id: u64,
    /// One client per installation, minted once however many deliveries ask at the same
    /// time: they wait on that installation's cell, not on a lock shared by all.
    installations: Mutex<HashMap<u64, Arc<OnceCell<Arc<Octocrab>>>>>,
    metrics: Metrics,
    retry: RetryPolicy,
    graphql: Arc<Target>,
    write_gap: Duration,
    /// One write governor per installation, and one for the App's own JWT calls.
    governors: Mutex<HashMap<u64, Arc<Governor>>>,
    app_governor: Arc<Governor>,
}

const TOKEN_ROUTE: &str = "POST /app/installations/{installation_id}/access_tokens";

impl GitHubApp {
    /// # Errors
    ///
    /// [`GitHubError::Setup`] when the private key is not an RSA key in PEM form or the
    /// HTTP client cannot be built.
    // Settings are built for one App; taking them whole keeps every call site simple.
    #[allow(clippy::needless_pass_by_value)]
    pub fn new(settings: GitHubSettings, metrics: Metrics) -> Result<Self, GitHubError> {
        let key = jsonwebtoken::EncodingKey::from_rsa_pem(
            settings.private_key.0.expose_secret().as_bytes(),
        )
        .map_err(|e| {
            GitHubError::Setup(format!("the App private key is not an RSA PEM key: {e}"))
        })?;
        let app = Octocrab::builder()
            .base_uri(settings.api_url.as_str())
            .map_err(|e| GitHubError::Setup(format!("bad GitHub API URL: {e}")))?
            .app(AppId(settings.app_id), key)
            .set_connect_timeout(Some(settings.timeout))
            .set_read_timeout(Some(settings.timeout))
            .set_write_timeout(Some(settings.timeout))
            .build()
            .map_err(|e| GitHubError::Setup(e.to_string()))?;
        Ok(Self {
            app: Arc::new(app),
            app_id: settings.app_id,
            installations: Mutex::new(HashMap::new()),
            retry: settings.retry,
            graphql: Arc::new(Target::for_api_url(&settings.api_url)),
            write_gap: settings.write_gap,
            governors: Mutex::new(HashMap::new()),
            app_governor: Arc::new(Governor::new(settings.write_gap, metrics.clone())),
            metrics,
        })
    }

    /// The App's id, as GitHub names the App that owns a check run or suite.
    #[must_use]
    pub(crate) fn app_id(&self) -> u64 {
        self.app_id
    }

    /// A client for calls made with the App's own JWT (`/app/...`).
    pub fn app_api(&self, delivery: Option<DeliveryId>) -> Api {
        Api::new(
            self.app.clone(),
            delivery,
            self.metrics.clone(),
            self.retry,
            self.graphql.clone(),
        )
        .governed(self.app_governor.clone())
    }

    /// The write governor of `installation`, shared by all its clients in this process.
    pub(crate) fn governor(&self, installation: u64) -> Arc<Governor> {
        self.governors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(installation)
            .or_insert_with(|| Arc::new(Governor::new(self.write_gap, self.metrics.clone())))
            .clone()
    }

    /// How long GitHub asked `installation`'s writes to wait, if it did (as this process
    /// learned it).
    #[must_use]
    pub(crate) fn writes_paused(&self, installation: u64) -> Option<Duration> {
        self.governors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&installation)
            .and_then(|g| g.paused_for())
    }

    /// A client for one installation, for the calls of one delivery. The token is minted
    /// once per installation and reused across deliveries until octocrab refreshes it.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when the installation token cannot be minted or the installation's
    /// client cannot be built.
    pub async fn installation(
        &self,
        installation: u64,
        delivery: Option<DeliveryId>,
    ) -> Result<Api, GitHubError> {
        let cell = self
            .installations
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(installation)
            .or_default()
            .clone();
        let octo = cell
            .get_or_try_init(|| async {
                let minted = self
                    .app
                    .installation_and_token(InstallationId(installation))
                    .await;
                let status = if minted.is_ok() { "201" } else { "error" };
                self.metrics.api_call(TOKEN_ROUTE, status);
                let (octo, _token) = minted.map_err(|e| GitHubError::Token {
                    installation,
                    message: super::api::describe(&e),
                })?;
                Ok::<_, GitHubError>(Arc::new(octo))
            })
            .await?
            .clone();
        Ok(Api::new(
            octo,
            delivery,
            self.metrics.clone(),
            self.retry,
            self.graphql.clone(),
        )
        .governed(self.governor(installation)))
    }
}
