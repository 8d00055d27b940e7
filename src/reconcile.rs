//! The reconcile sweep's schedule: once at start, then every interval, until shutdown.
//! What a sweep does is `AuditApp::reconcile` (src/app/handlers/sweep.rs). Beside it, the
//! dashboards' flush (`AuditApp::flush_dashboards`, src/app/dashboard.rs).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app::{AuditApp, ReconcileLimits, ReconcileReport};
use crate::github::GitHubError;
use crate::metrics::Metrics;

/// The outcome label a sweep is counted under in `/metrics`.
#[must_use]
pub(crate) fn outcome(result: &Result<ReconcileReport, GitHubError>) -> &'static str {
    match result {
        Err(_) => "failed",
        Ok(r) if r.budget_spent => "budget_spent",
        Ok(r) if !r.failed.is_empty() => "partial",
        Ok(_) => "ok",
    }
}

/// Runs one sweep, counts it in `metrics` and logs what it did.
///
/// # Errors
///
/// When the installations cannot be listed (see [`AuditApp::reconcile`]).
pub async fn sweep_once(
    app: &AuditApp,
    limits: ReconcileLimits,
    metrics: &Metrics,
) -> Result<ReconcileReport, GitHubError> {
    let result = app.reconcile(limits).await;
    let (republished, calls) = match &result {
        Ok(r) => (r.republished.len() as u64, r.calls),
        Err(_) => (0, 0),
    };
    metrics.reconcile_sweep(outcome(&result), republished, calls);
    match &result {
        Ok(r) if r.republished.is_empty() && r.failed.is_empty() && r.pruned == 0 => {
            tracing::debug!(
                repositories = r.repositories,
                checked = r.checked,
                calls = r.calls,
                "reconcile sweep: every view is current"
            );
        }
        Ok(r) => tracing::info!(
            repositories = r.repositories,
            checked = r.checked,
            republished = ?r.republished,
            pruned = r.pruned,
            failed = ?r.failed,
            calls = r.calls,
            budget_spent = r.budget_spent,
            "reconcile sweep"
        ),
        Err(e) => tracing::warn!(error = %e, "reconcile sweep failed"),
    }
    result
}

/// Sweeps right away (views may have fallen behind while the app was down), then every
/// `every`, until `shutdown` turns true or its sender is dropped.
pub(crate) fn spawn(
    app: Arc<AuditApp>,
    every: Duration,
    metrics: Metrics,
    shutdown: watch::Receiver<bool>,
) -> JoinHandle<()> {
    crate::schedule::every(every, shutdown, move || {
        let (app, metrics) = (app.clone(), metrics.clone());
        async move {
            // Counted and logged by `sweep_once`; the next sweep tries again.
            let _ = sweep_once(&app, ReconcileLimits::default(), &metrics).await;
        }
    })
}

/// How often changed dashboards are looked for; each is rebuilt at most once a
/// [`DASHBOARD_INTERVAL`] (docs/reference.md#the-audit-dashboard).
pub(crate) const DASHBOARD_TICK: Duration = Duration::from_secs(5);
pub(crate) const DASHBOARD_INTERVAL: Duration = Duration::from_secs(60);

/// Rebuilds the dashboards that changes marked, every [`DASHBOARD_TICK`], until shutdown.
pub(crate) fn spawn_dashboards(
    app: Arc<AuditApp>,
    shutdown: watch::Receiver<bool>,
) -> JoinHandle<()> {
    crate::schedule::every(DASHBOARD_TICK, shutdown, move || {
        let app = app.clone();
        async move {
            for (repo, outcome) in app.flush_dashboards(DASHBOARD_INTERVAL).await {
                tracing::debug!(repo = %repo, ?outcome, "audit dashboard rebuilt");
            }
        }
    })
}
