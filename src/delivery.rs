//! A verified delivery and the handler that acts on it: the one interface between the HTTP
//! layer (`server/`), which checks and dedupes deliveries, and the App (`app/`), which acts.

use crate::events::Event;
use crate::ids::DeliveryId;

/// A verified, parsed delivery.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub(crate) id: DeliveryId,
    pub(crate) event: Event,
    /// When the request came in: GitHub's 10-second window runs from then.
    pub(crate) received: tokio::time::Instant,
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

/// Failures underneath: GitHub (or the network) failed, so GitHub's delivery should be
/// retried. User mistakes never come here: they are answered on the PR.
#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    #[error("GitHub failed: {0}")]
    GitHub(String),
    #[error("internal error: {0}")]
    Internal(String),
}

#[async_trait::async_trait]
pub trait Handler: Send + Sync + 'static {
    async fn handle(&self, delivery: &Delivery) -> Result<Handled, HandlerError>;
}
