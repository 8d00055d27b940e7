//! Prometheus metrics for `/metrics`. Labels carry event names, outcomes, route templates
//! and status codes only: never payload text, tokens or secrets.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct DeliveryLabels {
    pub(crate) event: String,
    pub(crate) outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ApiLabels {
    pub(crate) route: String,
    pub(crate) status: String,
}

#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    deliveries: Family<DeliveryLabels, Counter>,
    api_calls: Family<ApiLabels, Counter>,
    handling: Histogram,
    rate_limit_remaining: Gauge<i64, AtomicI64>,
    reconcile_sweeps: Family<OutcomeLabels, Counter>,
    reconcile_republished: Counter,
    reconcile_calls: Counter,
    rate_limited: Family<KindLabels, Counter>,
    write_wait: Histogram,
    queue_depth: Family<InstallationLabels, Gauge>,
    queue_oldest: Family<InstallationLabels, Gauge>,
    queue_wait: Histogram,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct InstallationLabels {
    pub(crate) installation: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct KindLabels {
    pub(crate) kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct OutcomeLabels {
    pub(crate) outcome: String,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("auditloop");
        let deliveries = Family::<DeliveryLabels, Counter>::default();
        let api_calls = Family::<ApiLabels, Counter>::default();
        let handling = Histogram::new(exponential_buckets(0.005, 2.0, 12));
        let rate_limit_remaining = Gauge::<i64, AtomicI64>::default();
        rate_limit_remaining.set(-1);
        registry.register(
            "deliveries",
            "Webhook deliveries by event and outcome",
            deliveries.clone(),
        );
        registry.register(
            "github_api_calls",
            "GitHub API calls by route and status",
            api_calls.clone(),
        );
        registry.register(
            "delivery_handling_seconds",
            "Time to handle one delivery",
            handling.clone(),
        );
        registry.register(
            "github_rate_limit_remaining",
            "x-ratelimit-remaining of the latest GitHub answer (-1 before any)",
            rate_limit_remaining.clone(),
        );
        let reconcile_sweeps = Family::<OutcomeLabels, Counter>::default();
        let reconcile_republished = Counter::default();
        let reconcile_calls = Counter::default();
        registry.register(
            "reconcile_sweeps",
            "Reconcile sweeps by outcome (ok, partial, budget_spent, failed)",
            reconcile_sweeps.clone(),
        );
        registry.register(
            "reconcile_republished",
            "Pull requests whose check run and body were republished by reconcile",
            reconcile_republished.clone(),
        );
        registry.register(
            "reconcile_github_calls",
            "GitHub requests sent by reconcile sweeps",
            reconcile_calls.clone(),
        );
        let rate_limited = Family::<KindLabels, Counter>::default();
        let write_wait = Histogram::new(exponential_buckets(0.01, 2.0, 14));
        registry.register(
            "github_rate_limited",
            "GitHub limits met (secondary, primary) and writes not sent because the wait would pass the delivery's deadline (deferred)",
            rate_limited.clone(),
        );
        registry.register(
            "write_wait_seconds",
            "Time a write waited for its turn under the write governor",
            write_wait.clone(),
        );
        let queue_depth = Family::<InstallationLabels, Gauge>::default();
        let queue_oldest = Family::<InstallationLabels, Gauge>::default();
        let queue_wait = Histogram::new(exponential_buckets(0.5, 2.0, 14));
        registry.register(
            "queue_depth",
            "Deliveries answered 202 and not yet carried out, by installation",
            queue_depth.clone(),
        );
        registry.register(
            "queue_oldest_queued_timestamp_seconds",
            "When the oldest delivery still queued was queued (Unix seconds; 0 when none), by installation",
            queue_oldest.clone(),
        );
        registry.register(
            "queue_wait_seconds",
            "Time from a delivery's 202 to its being carried out",
            queue_wait.clone(),
        );
        Self {
            queue_depth,
            queue_oldest,
            queue_wait,
            rate_limited,
            write_wait,
            registry: Arc::new(registry),
            deliveries,
            api_calls,
            handling,
            rate_limit_remaining,
            reconcile_sweeps,
            reconcile_republished,
            reconcile_calls,
        }
    }

    /// One reconcile sweep: its outcome, the PRs it republished, the calls it sent.
    pub fn reconcile_sweep(&self, outcome: &str, republished: u64, calls: u64) {
        self.reconcile_sweeps
            .get_or_create(&OutcomeLabels {
                outcome: outcome.to_owned(),
            })
            .inc();
        self.reconcile_republished.inc_by(republished);
        self.reconcile_calls.inc_by(calls);
    }

    pub fn delivery(&self, event: &str, outcome: &str) {
        self.deliveries
            .get_or_create(&DeliveryLabels {
                event: event.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    pub fn api_call(&self, route: &str, status: &str) {
        self.api_calls
            .get_or_create(&ApiLabels {
                route: route.to_owned(),
                status: status.to_owned(),
            })
            .inc();
    }

    pub fn observe_handling(&self, seconds: f64) {
        self.handling.observe(seconds);
    }

    /// A limit GitHub answered with (`secondary`, `primary`), or a write deferred past
    /// its delivery's deadline (`deferred`).
    pub fn rate_limited(&self, kind: &str) {
        self.rate_limited
            .get_or_create(&KindLabels {
                kind: kind.to_owned(),
            })
            .inc();
    }

    pub fn write_waited(&self, seconds: f64) {
        self.write_wait.observe(seconds);
    }

    /// An installation's queue: its depth and when its oldest delivery was queued.
    pub fn queue(&self, installation: u64, depth: i64, oldest_unix: u64) {
        let labels = InstallationLabels {
            installation: installation.to_string(),
        };
        self.queue_depth.get_or_create(&labels).set(depth);
        self.queue_oldest
            .get_or_create(&labels)
            .set(i64::try_from(oldest_unix).unwrap_or(i64::MAX));
    }

    /// A queued delivery carried out, `seconds` after its 202.
    pub fn queue_waited(&self, seconds: f64) {
        self.queue_wait.observe(seconds);
    }

    pub fn rate_limit_remaining(&self, remaining: i64) {
        self.rate_limit_remaining.set(remaining);
    }

    /// The `OpenMetrics` text exposition.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
