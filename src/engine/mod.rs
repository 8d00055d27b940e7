//! The rules of the audit loop, with no I/O: the GitHub layer only calls into here.

pub mod config;
pub mod gate;
pub mod record;
pub mod report;
pub mod views;
