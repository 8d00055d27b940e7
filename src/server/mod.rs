//! The HTTP surface (CONTRACT §3): the webhook, health and metrics.

pub mod deliveries;
mod routes;
pub mod signature;
pub mod webhook;

pub use crate::delivery::{Handled, Handler, HandlerError};
pub use routes::{router, serve, serve_router, shutdown_signal, AppState};
