//! A verified delivery and the handler that acts on it: the one interface between the HTTP
//! layer (`server/`), which checks, dedupes, orders and queues deliveries, and the App
//! (`app/`), which acts.

use std::time::Duration;

use crate::events::WebhookEvent;
use crate::ids::DeliveryId;

/// A verified, parsed delivery.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub(crate) id: DeliveryId,
    pub(crate) event: WebhookEvent,
    /// When the request came in: GitHub's 10-second window runs from then.
    pub(crate) received: tokio::time::Instant,
    /// Where it stands among its installation's deliveries when it is handled.
    pub(crate) pace: Pace,
}

/// How a delivery is being carried out: before its answer, or by its installation's queue
/// after a `202`; and what of the queue goes before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Pace {
    /// Carried out by the queue, after the delivery was answered `202`: GitHub's window no
    /// longer bounds it, only the queue's own time per delivery.
    pub(crate) queued: bool,
    /// Writes of deliveries queued earlier in the installation: an inline delivery fits
    /// only behind them.
    pub(crate) writes_ahead: u32,
    /// Deliveries of the same pull request that came earlier and are not carried out yet
    /// (a `status` is answered while they wait; it says so).
    pub(crate) pr_ahead: u32,
}

/// What a handler made of a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// Effects written (or nothing was needed).
    Done,
    /// An event or action auditloop does not act on.
    Ignored,
}

impl Handled {
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Handled::Done => "handled",
            Handled::Ignored => "ignored",
        }
    }
}

/// Why a delivery was not carried out. User mistakes never come here: they are answered on
/// the PR.
#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    /// GitHub (or the network) failed underneath: the delivery should be retried.
    #[error("GitHub failed: {0}")]
    GitHub(String),
    #[error("internal error: {0}")]
    Internal(String),
    /// Its writes could not go in time: the installation's writes go at GitHub's pace, and
    /// others are ahead, or GitHub said to wait. Nothing that must stay single was lost: the
    /// delivery is carried out again when its turn comes, with `wait` at least to go.
    #[error("its writes must wait for the installation's pace ({wait:?} at least)")]
    Deferred { wait: Duration },
}

/// Whether a delivery keeps its place among its pull request's deliveries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// Carried out after every earlier delivery of its pull request (a command, a push).
    InOrder,
    /// Changes nothing later deliveries depend on (`status`, `help`, a comment that is no
    /// command): answered without waiting for them.
    Free,
}

#[async_trait::async_trait]
pub trait Handler: Send + Sync + 'static {
    async fn handle(&self, delivery: &Delivery) -> Result<Handled, HandlerError>;

    /// Whether `delivery` keeps its pull request's order.
    fn ordering(&self, _delivery: &Delivery) -> Ordering {
        Ordering::InOrder
    }

    /// Whether what `delivery` was to do is visible on GitHub (its +1 or reply, its record
    /// event, its check run): a delivery answered `202` whose queue was lost with its
    /// process is asked for again only when this says no.
    ///
    /// # Errors
    ///
    /// When GitHub cannot tell.
    async fn carried_out(&self, _delivery: &Delivery) -> Result<bool, HandlerError> {
        Ok(false)
    }
}
