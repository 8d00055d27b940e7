//! The HTTP surface (docs/reference.md#http-surface): the webhook, health and metrics.

pub(crate) mod deliveries;
mod lanes;
mod queue;
mod routes;
pub mod signature;
pub mod webhook;

pub use crate::delivery::{Handled, Handler, HandlerError};
pub use routes::{router, AppState, Deliveries};
pub(crate) use routes::{serve_router, shutdown_signal};
