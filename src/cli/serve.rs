//! `auditloop serve`: resolve the configuration, build the GitHub client, serve.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::app::AuditApp;
use crate::config::{ServeArgs, ServeConfig};
use crate::engine::receipt::TrustStore;
use crate::github::{GitHubApp, GitHubSettings, RetryPolicy};
use crate::metrics::Metrics;
use crate::redeliver;
use crate::server::{serve, AppState};

pub fn run(args: &ServeArgs, env: &dyn Fn(&str) -> Option<String>) -> ExitCode {
    let config = match ServeConfig::resolve(args, env, &|p| std::fs::read_to_string(p)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    super::block_on(start(config))
}

/// Builds the app from a resolved configuration and serves until a shutdown signal.
pub async fn start(config: ServeConfig) -> anyhow::Result<()> {
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
    let metrics = Metrics::new();
    let github = GitHubApp::new(
        GitHubSettings {
            app_id: config.app_id,
            private_key: config.private_key.clone(),
            api_url: config.github_api_url.clone(),
            timeout: Duration::from_secs(8),
            retry: RetryPolicy::default(),
        },
        metrics.clone(),
    )?;
    let github = Arc::new(github);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let sweeper = (!config.redeliver_interval.is_zero())
        .then(|| redeliver::spawn(github.clone(), config.redeliver_interval, stopped));
    let app = AuditApp::with_policy(github, trust, config.min_assurance);
    let state = AppState::new(config.webhook_secrets.clone(), metrics, Arc::new(app));
    let served = serve(config.listen, state).await;
    let _ = stop.send(true);
    if let Some(sweeper) = sweeper {
        let _ = sweeper.await;
    }
    served?;
    Ok(())
}
