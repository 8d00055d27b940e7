//! The gate (CONTRACT §8): a pure function of the record, the head commit, evidence checks
//! and the repository configuration.

pub mod model;

pub use model::*;
