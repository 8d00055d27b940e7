//! The rules of the audit loop, with no I/O: the GitHub layer only calls into here.

pub mod closing;
pub mod config;
pub mod config_auditor;
pub mod gate;
pub mod packet;
pub mod policy;
pub mod receipt;
pub mod record;
pub mod report;
pub mod text;
pub mod transition;
pub mod views;
