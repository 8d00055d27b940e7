//! The audit record, its history chain and the records-branch index.

pub mod model;

pub use model::*;
