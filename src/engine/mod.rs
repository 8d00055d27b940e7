//! The rules of the audit loop, with no I/O: the GitHub layer only calls into here.

pub mod gate;
pub mod policy;
pub mod record;
pub mod report;
pub mod transition;
pub mod views;
