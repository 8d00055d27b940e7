//! auditloop: a GitHub App that runs PR-driven audit loops and reports the gate as a check run.
//!
//! What is `pub` here is what the binary, the tests, the benches and the fuzz targets use;
//! everything else is `pub(crate)`, so that rustc reports an item nobody uses. The lint
//! below keeps it so: a `pub` that no path from here reaches must say `pub(crate)`.
#![warn(unreachable_pub)]

pub mod app;
// The rules live in their own crate (`crates/engine`); the app names them as it always has.
pub use auditloop_engine as engine;
// One path for users (`auditloop::engine::ids`); the short names are the crate's own.
use auditloop_engine::{ids, md};
pub mod cli;
pub mod commands;
mod delivery;
pub mod events;
pub mod github;
mod locks;
mod mcp;
pub mod metrics;
pub mod operator_config;
pub mod reconcile;
pub mod records;
pub mod redeliver;
pub mod remote;
pub mod schedule;
pub mod server;
pub mod setup;
mod telemetry;
