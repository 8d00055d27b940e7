//! `auditloop serve`: resolve the configuration, build the GitHub client, serve.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::app::AuditApp;
use crate::engine::receipt::TrustStore;
use crate::engine::repo_config::Assurance;
use crate::github::{GitHubApp, GitHubSettings, RetryPolicy};
use crate::metrics::Metrics;
use crate::operator_config::{ServeArgs, ServeConfig};
use crate::server::{router, serve_router, shutdown_signal, AppState};
use crate::{reconcile, redeliver};

pub(crate) fn run(args: &ServeArgs, env: &dyn Fn(&str) -> Option<String>) -> ExitCode {
    let config = match ServeConfig::resolve(args, env, &|p| std::fs::read_to_string(p)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    super::block_on(start(config))
}

/// The App built from a configuration: its router, and the sweeps running beside it.
pub(crate) struct Running {
    pub(crate) router: axum::Router,
    stop: tokio::sync::watch::Sender<bool>,
    sweeps: Vec<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Stops the sweeps and waits for them.
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(true);
        for sweep in self.sweeps {
            let _ = sweep.await;
        }
    }
}

/// Builds the app from a resolved configuration and starts its sweeps.
///
/// # Errors
///
/// When the trust store cannot be read or parsed, or the GitHub client cannot be built.
pub(crate) fn build(config: &ServeConfig) -> anyhow::Result<Running> {
    let trust = match &config.trust_store {
        None => TrustStore::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                anyhow::anyhow!("AUDITLOOP_TRUST_STORE: cannot read {}: {e}", path.display())
            })?;
            TrustStore::from_toml(&text)
                .map_err(|e| anyhow::anyhow!("AUDITLOOP_TRUST_STORE: {}: {e}", path.display()))?
        }
    };
    if config.min_assurance == Assurance::Hardened && trust.is_empty() {
        anyhow::bail!(
            "AUDITLOOP_MIN_ASSURANCE is hardened but the trust store {} holds no key: no receipt would verify, so every report would be refused",
            config.trust_store.as_ref().map_or(String::new(), |p| p.display().to_string())
        );
    }
    // What this process runs as, never a secret.
    tracing::info!(
        app_id = config.app_id,
        api_url = %config.github_api_url,
        min_assurance = config.min_assurance.as_str(),
        trusted_keys = trust.len(),
        "auditloop starting"
    );
    let metrics = Metrics::new();
    let github = GitHubApp::new(
        GitHubSettings {
            app_id: config.app_id,
            private_key: config.private_key.clone(),
            api_url: config.github_api_url.clone(),
            timeout: Duration::from_secs(8),
            retry: RetryPolicy::default(),
            write_gap: config.write_gap,
        },
        metrics.clone(),
    )?;
    let github = Arc::new(github);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut sweeps = Vec::new();
    let app = Arc::new(AuditApp::with_policy(
        github.clone(),
        trust,
        config.min_assurance,
    ));
    let state = AppState::new(config.webhook_secrets.clone(), metrics.clone(), app.clone());
    if !config.redeliver_interval.is_zero() {
        let outcomes = redeliver::ProcessOutcomes {
            deliveries: state.deliveries(),
            handler: app.clone(),
        };
        sweeps.push(redeliver::spawn(
            github.clone(),
            config.redeliver_interval,
            stopped.clone(),
            Some(Arc::new(outcomes)),
        ));
    }
    sweeps.push(reconcile::spawn_dashboards(app.clone(), stopped.clone()));
    if !config.reconcile_interval.is_zero() {
        sweeps.push(reconcile::spawn(
            app.clone(),
            config.reconcile_interval,
            metrics.clone(),
            stopped,
        ));
    }
    Ok(Running {
        router: router(state),
        stop,
        sweeps,
    })
}

/// Serves a resolved configuration until a shutdown signal.
///
/// # Errors
///
/// When the app cannot be built or the listener cannot bind or serve.
pub async fn start(config: ServeConfig) -> anyhow::Result<()> {
    let running = build(&config)?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("AUDITLOOP_LISTEN: cannot bind {}: {e}", config.listen))?;
    let served = serve_router(listener, running.router.clone(), shutdown_signal()).await;
    running.stop().await;
    served?;
    Ok(())
}
