//! The rules of the audit loop, with no I/O: the GitHub layer only calls into here.
//!
//! A crate of its own so that its purity is the compiler's to check: its dependencies
//! hold no async runtime, HTTP stack or GitHub client, so nothing here can call out.

pub mod closing;
pub mod dashboard;
pub mod gate;
pub mod ids;
pub mod layout;
pub mod ledger;
pub mod legend;
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
