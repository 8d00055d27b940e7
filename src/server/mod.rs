//! The HTTP surface (CONTRACT §3): the webhook, health and metrics.

pub mod deliveries;
pub mod locks;
mod routes;
pub mod signature;
pub mod webhook;

pub use routes::{
    router, serve, serve_router, shutdown_signal, AppState, Handled, Handler, HandlerError,
};
