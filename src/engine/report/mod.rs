//! Report intake: parsing, normalization, digest and the record-independent rules.

pub mod model;

pub use model::*;
