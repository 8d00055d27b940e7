//! Sending one call: relative routes only (octocrab attaches auth to those, and joins the
//! Enterprise base path), the delivery id header, our retry policy, and metrics by route.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{HeaderMap, Request};
use http_body_util::BodyExt;
use octocrab::Octocrab;
use secrecy::ExposeSecret;
use serde::de::DeserializeOwned;

pub(crate) use crate::github::call::Call;
use crate::github::deadline::Deadline;
use crate::github::error::GitHubError;
use crate::github::governor::{Booking, Governor};
use crate::github::retry::{Attempt, RetryDecision, RetryPolicy};
use crate::ids::DeliveryId;
use crate::metrics::Metrics;

mod writes;

#[derive(Debug, Clone)]
pub(crate) struct ApiResponse {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl ApiResponse {
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
    /// does not expect, or sends an answer that cannot be read.
    pub(crate) fn json<T: DeserializeOwned>(&self, route: &'static str) -> Result<T, GitHubError> {
        let de = &mut serde_json::Deserializer::from_slice(&self.body);
        serde_path_to_error::deserialize(de).map_err(|e| GitHubError::Decode {
            route,
            message: format!("{}: {}", e.path(), e.inner()),
        })
    }

    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

#[derive(Clone)]
pub struct Api {
    octo: Arc<Octocrab>,
    delivery: Option<DeliveryId>,
    metrics: Metrics,
    retry: RetryPolicy,
    endpoint: Arc<crate::github::endpoint::Target>,
    /// Counts every attempt, when a caller bounds its own calls (the reconcile sweep).
    counter: Option<Arc<std::sync::atomic::AtomicU64>>,
    /// When the calls of the delivery being handled must have ended (none outside one).
    deadline: Option<Deadline>,
    /// The longest one attempt may take, when shorter than what the deadline leaves.
    attempt_timeout: Option<Duration>,
    /// The write governor of the identity this client sends as.
    governor: Option<Arc<Governor>>,
    /// The writes this delivery booked and has not sent yet, shared by its clones.
    booking: Arc<Booking>,
    /// Writes that go before this client's, beyond those booked: a queue's, which an
    /// inline delivery must not overtake.
    ahead: u32,
}

/// octocrab's errors, without anything that could carry a token.
pub(crate) fn describe(e: &octocrab::Error) -> String {
    match e {
        octocrab::Error::GitHub { source, .. } => {
            format!("{} ({})", source.message, source.status_code)
        }
        other => {
            let mut text = other.to_string();
            text.truncate(300);
            text
        }
    }
}

pub(crate) fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

impl Api {
    pub(crate) fn new(
        octo: Arc<Octocrab>,
        delivery: Option<DeliveryId>,
        metrics: Metrics,
        retry: RetryPolicy,
        endpoint: Arc<crate::github::endpoint::Target>,
    ) -> Self {
        Self {
            octo,
            delivery,
            metrics,
            retry,
            endpoint,
            counter: None,
            deadline: None,
            attempt_timeout: None,
            governor: None,
            booking: Arc::default(),
            ahead: 0,
        }
    }

    /// This client, sending its writes through `governor` (see [`crate::github::governor`]).
    #[must_use]
    pub(crate) fn governed(mut self, governor: Arc<Governor>) -> Self {
        self.governor = Some(governor);
        self
    }

    /// This client, counting `writes` more writes before its own when it books (a queue's
    /// that came first).
    #[must_use]
    pub(crate) fn behind(mut self, writes: u32) -> Self {
        self.ahead = writes;
        self
    }

    /// This client, ending every call by `deadline` (see [`crate::github::deadline`]).
    #[must_use]
    pub(crate) fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = Some(deadline);
        // A booking is the delivery's own.
        self.booking = Arc::default();
        self
    }

    /// This client for work after its delivery is answered (a dashboard's rebuild): no
    /// deadline and no booking of the delivery's, still through the same governor.
    #[must_use]
    pub(crate) fn detached(&self) -> Self {
        Self {
            deadline: None,
            booking: Arc::default(),
            ..self.clone()
        }
    }

    /// This client, for the calls that give back what a failed handling began: a little
    /// past the work's deadline, still inside GitHub's window.
    #[must_use]
    pub(crate) fn for_cleanup(&self) -> Self {
        Self {
            deadline: self.deadline.map(Deadline::for_cleanup),
            ..self.clone()
        }
    }

    /// This client, trying each call once and giving up on an attempt after `timeout`: for
    /// a call with a lighter fallback, which is better asked than this one repeated.
    #[must_use]
    pub(crate) fn once_within(&self, timeout: Duration) -> Self {
        Self {
            retry: RetryPolicy {
                max_attempts: 1,
                ..self.retry
            },
            attempt_timeout: Some(timeout),
            ..self.clone()
        }
    }

    /// Whether `work` still fits before this client's deadline (always, without one).
    #[must_use]
    pub(crate) fn allows(&self, work: Duration) -> bool {
        self.deadline.is_none_or(|d| d.allows(work))
    }

    pub(crate) fn graphql_target(&self) -> &crate::github::endpoint::Target {
        &self.endpoint
    }

    pub(crate) fn octocrab(&self) -> &Octocrab {
        &self.octo
    }

    /// This client, sending through `octo` instead (same delivery, metrics, retries).
    #[must_use]
    pub(crate) fn through(&self, octo: Arc<Octocrab>) -> Self {
        Self {
            octo,
            ..self.clone()
        }
    }

    /// This client, counting each request it sends into `counter`.
    #[must_use]
    pub(crate) fn counting(mut self, counter: Arc<std::sync::atomic::AtomicU64>) -> Self {
        self.counter = Some(counter);
        self
    }

    #[must_use]
    pub(crate) fn delivery(&self) -> Option<&DeliveryId> {
        self.delivery.as_ref()
    }

    fn build(&self, call: &Call) -> Result<Request<String>, GitHubError> {
        let mut builder = Request::builder()
            .method(call.method.clone())
            .uri(call.path.as_str())
            .header("accept", "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28");
        for (name, value) in &call.headers {
            builder = builder.header(*name, value.as_str());
        }
        if let Some(id) = &self.delivery {
            builder = builder.header("x-github-delivery", id.0.as_str());
        }
        if let Some(token) = &call.bearer {
            let mut value =
                http::HeaderValue::from_str(&format!("Bearer {}", token.expose_secret())).map_err(
                    |_| GitHubError::Setup(format!("{}: a token that is not a header", call.route)),
                )?;
            value.set_sensitive(true);
            builder = builder.header(http::header::AUTHORIZATION, value);
        }
        let body = match &call.body {
            Some(v) => {
                builder = builder.header("content-type", "application/json");
                v.to_string()
            }
            None => String::new(),
        };
        builder
            .body(body)
            .map_err(|e| GitHubError::Setup(format!("{}: {e}", call.route)))
    }

    /// How long the next attempt may take: what the deadline leaves, or the attempt bound.
    fn attempt_limit(&self) -> Option<Duration> {
        let left = self.deadline.map(Deadline::remaining);
        match (left, self.attempt_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// One attempt, cut off at [`Api::attempt_limit`]: no answer by then is no answer.
    async fn attempt_within(&self, call: &Call) -> Result<ApiResponse, String> {
        match self.attempt_limit() {
            Some(limit) => tokio::time::timeout(limit, self.attempt(call))
                .await
                .unwrap_or_else(|_| Err(format!("no answer within {limit:?}"))),
            None => self.attempt(call).await,
        }
    }

    async fn attempt(&self, call: &Call) -> Result<ApiResponse, String> {
        if let Some(counter) = &self.counter {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let request = self.build(call).map_err(|e| e.to_string())?;
        let response = self.octo.execute(request).await.map_err(|e| describe(&e))?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await.map_err(|e| describe(&e))?.to_bytes();
        Ok(ApiResponse {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body,
        })
    }

    /// Sends `call`, retrying per policy. Any answer is returned, success or not; only a
    /// call that got no usable answer is an error.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
    /// does not expect, or sends an answer that cannot be read.
    pub(crate) async fn send(&self, call: Call) -> Result<ApiResponse, GitHubError> {
        let mut attempt = 1;
        loop {
            if self.deadline.is_some_and(Deadline::passed) {
                self.metrics.api_call(call.route, "deadline");
                return Err(GitHubError::Deadline { route: call.route });
            }
            let governor = self.governor.as_deref().filter(|_| call.write);
            if let Some(g) = governor.filter(|_| self.booking.take()) {
                g.unbook(1);
            }
            let on_the_way =
                match governor {
                    Some(g) => Some(g.acquire(self.deadline).await.map_err(|d| {
                        GitHubError::RateLimited {
                            route: call.route,
                            wait: d.wait,
                        }
                    })?),
                    None => None,
                };
            let outcome = self.attempt_within(&call).await;
            if let Ok(r) = &outcome {
                self.learn(r, call.write);
            }
            drop(on_the_way);
            let decision = if let Ok(r) = &outcome {
                self.metrics.api_call(call.route, &r.status.to_string());
                if let Some(n) =
                    header(&r.headers, "x-ratelimit-remaining").and_then(|v| v.parse().ok())
                {
                    self.metrics.rate_limit_remaining(n);
                }
                let answered = Attempt::Answered {
                    status: r.status,
                    retry_after: header(&r.headers, "retry-after"),
                    ratelimit_remaining: header(&r.headers, "x-ratelimit-remaining"),
                    ratelimit_reset: header(&r.headers, "x-ratelimit-reset"),
                    body: &r.body,
                };
                self.retry
                    .decide(attempt, call.idempotent, answered, now_epoch())
            } else {
                self.metrics.api_call(call.route, "transport_error");
                self.retry
                    .decide(attempt, call.idempotent, Attempt::Transport, now_epoch())
            };
            match (decision, outcome) {
                // A retry that would wait past the deadline is not made: this answer stands.
                (RetryDecision::Retry(wait), outcome) if !self.allows(wait) => {
                    return outcome.map_err(|message| GitHubError::Transport {
                        route: call.route,
                        message,
                    });
                }
                // A write's wait after a limit is the governor's, which learned it.
                (RetryDecision::Retry(_), Ok(r)) if governor.is_some() && limited(&r) => {
                    tracing::warn!(route = call.route, attempt, "retrying a rate-limited write");
                    attempt += 1;
                }
                (RetryDecision::Retry(wait), _) => {
                    tracing::warn!(route = call.route, attempt, ?wait, "retrying GitHub call");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                (RetryDecision::RateLimited(wait), _) => {
                    return Err(GitHubError::RateLimited {
                        route: call.route,
                        wait,
                    })
                }
                (_, Ok(r)) => return Ok(r),
                (_, Err(message)) => {
                    return Err(GitHubError::Transport {
                        route: call.route,
                        message,
                    })
                }
            }
        }
    }

    /// Sends `call` and requires a 2xx answer.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
    /// does not expect, or sends an answer that cannot be read.
    pub(crate) async fn send_ok(&self, call: Call) -> Result<ApiResponse, GitHubError> {
        let route = call.route;
        let r = self.send(call).await?;
        if r.is_success() {
            Ok(r)
        } else {
            Err(status_error(route, &r))
        }
    }

    /// Sends `call`, requires 2xx, and decodes the JSON answer.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
    /// does not expect, or sends an answer that cannot be read.
    pub(crate) async fn json<T: DeserializeOwned>(&self, call: Call) -> Result<T, GitHubError> {
        let route = call.route;
        self.send_ok(call).await?.json(route)
    }
}

/// Whether `r` is GitHub saying to wait.
fn limited(r: &ApiResponse) -> bool {
    let h = |name| header(&r.headers, name);
    crate::github::retry::limit_of(
        r.status,
        h("retry-after"),
        h("x-ratelimit-remaining"),
        h("x-ratelimit-reset"),
        &r.body,
        now_epoch(),
    )
    .is_some()
}

/// GitHub's `message` field, bounded, for errors and logs.
pub(crate) fn status_error(route: &'static str, r: &ApiResponse) -> GitHubError {
    let message = serde_json::from_slice::<serde_json::Value>(&r.body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect();
    GitHubError::Status {
        route,
        status: r.status,
        message,
    }
}
