//! The command line (CONTRACT §2).

pub mod root;
pub mod serve;
