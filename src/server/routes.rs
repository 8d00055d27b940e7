//! Router, shared state, and the delivery pipeline: dedupe, per-PR serialization, handling,
//! metrics, and an answer only after the effects are written.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tracing::Instrument;

use crate::delivery::{Delivery, Handler, HandlerError};
use crate::metrics::Metrics;
use crate::server::queue::{Answer, Queue};
use crate::server::signature::WebhookSecrets;

#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    secrets: WebhookSecrets,
    queue: Queue,
    metrics: Metrics,
}

impl AppState {
    pub fn new(secrets: WebhookSecrets, metrics: Metrics, handler: Arc<dyn Handler>) -> Self {
        Self {
            inner: Arc::new(Inner {
                secrets,
                queue: Queue::new(handler, metrics.clone()),
                metrics,
            }),
        }
    }

    /// The deliveries this process holds: to tell which `202` deliveries it still carries.
    #[must_use]
    pub fn deliveries(&self) -> Deliveries {
        Deliveries {
            queue: self.inner.queue.clone(),
        }
    }
}

/// What the redelivery sweep asks of the process's deliveries (see [`AppState::deliveries`]).
#[derive(Clone)]
pub struct Deliveries {
    queue: Queue,
}

impl Deliveries {
    /// Whether this process handled the delivery `guid` or holds it still.
    #[must_use]
    pub fn knows(&self, guid: &str) -> bool {
        self.queue.knows(&crate::ids::DeliveryId(guid.to_owned()))
    }

    /// Stops carrying out what is queued, as a process that stops would (the tests' kill).
    pub fn stop(&self) {
        self.queue.stop();
    }
}

impl FromRef<AppState> for WebhookSecrets {
    fn from_ref(state: &AppState) -> Self {
        state.inner.secrets.clone()
    }
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/webhook", post(webhook))
        .route("/api/github/webhooks", post(webhook))
        .route("/healthz", get(|| async { "ok" }))
        // Readiness: only this router has it, and it exists only once the App's key has
        // parsed and its GitHub client is built; setup's router answers it 404.
        .route("/readyz", get(|| async { "ready" }))
        .route("/metrics", get(metrics))
        .with_state(state)
}

async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            "content-type",
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.inner.metrics.render(),
    )
        .into_response()
}

async fn webhook(State(state): State<AppState>, delivery: Delivery) -> Response {
    let span = tracing::info_span!(
        "delivery",
        id = %delivery.id,
        event = delivery.event.name(),
        action = delivery.event.action().as_deref().unwrap_or(""),
        repo = delivery.event.repository().unwrap_or(""),
        pr = delivery.event.pull_number().map(|n| n.0),
    );
    handle(state, delivery).instrument(span).await
}

async fn handle(state: AppState, delivery: Delivery) -> Response {
    let inner = &state.inner;
    let event = delivery.event.name().to_owned();
    let started = Instant::now();
    let answer = inner.queue.submit(delivery).await;
    if !matches!(answer, Answer::Duplicate) {
        inner
            .metrics
            .observe_handling(started.elapsed().as_secs_f64());
    }
    match answer {
        Answer::Duplicate => {
            inner.metrics.delivery(&event, "duplicate");
            (StatusCode::OK, "already handled").into_response()
        }
        Answer::Done(handled) => {
            inner.metrics.delivery(&event, handled.as_str());
            tracing::info!(outcome = handled.as_str(), "delivery done");
            (StatusCode::OK, handled.as_str()).into_response()
        }
        Answer::Queued => {
            inner.metrics.delivery(&event, "queued");
            tracing::info!("delivery queued: its writes go at GitHub's pace");
            (
                StatusCode::ACCEPTED,
                "queued: carried out at the installation's write pace",
            )
                .into_response()
        }
        Answer::Failed(e) => {
            inner.metrics.delivery(&event, "failed");
            tracing::error!(error = %e, "delivery failed; GitHub may redeliver it");
            let status = match e {
                HandlerError::GitHub(_) | HandlerError::Deferred { .. } => StatusCode::BAD_GATEWAY,
                HandlerError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (
                status,
                "delivery failed; nothing was half-written, redeliver it",
            )
                .into_response()
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then finishes in-flight requests.
///
/// # Errors
///
/// When serving on `listener` fails.
pub(crate) async fn serve_router(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(address = %listener.local_addr()?, "auditloop listening");
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// SIGTERM or SIGINT.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight deliveries");
}
