//! The rules of the audit loop, with no I/O: the GitHub layer only calls into here.
//!
//! A crate of its own so that its purity is the compiler's to check: its dependencies
//! hold no async runtime, HTTP stack or GitHub client, so nothing here can call out.
//!
//! Its API is what the app, the tests, the benches and the fuzz targets use: the `pub`
//! modules below, and in them only the items marked `pub`. Everything else is
//! `pub(crate)`, so that rustc reports an item nobody uses; the lint below keeps it so:
//! a `pub` that no path from here reaches must say `pub(crate)`.
//!
//! The modules are floors and views. The floors (`md`, `ids`, `text`, `layout`, `legend`,
//! `report`, `record`, `receipt`, `repo_config`, `policy`, `closing`, `ledger`,
//! `patterns`, `transition`, `gate`, the packet's parts) never name what shows a record
//! (`views`, `dashboard`, `packet`): `tests/it/import_graph.rs` checks it.
#![warn(unreachable_pub)]

pub mod closing;
pub mod dashboard;
pub mod gate;
pub mod ids;
pub mod layout;
pub mod ledger;
// Words the views and the gate's title link to the legend: nothing outside uses it.
mod legend;
pub mod md;
pub mod packet;
pub mod packet_context;
pub mod packet_delta;
pub mod packet_ledger;
pub mod patterns;
pub mod policy;
pub mod receipt;
pub mod record;
pub mod repo_config;
pub mod report;
pub mod text;
pub mod transition;
pub mod views;
