//! What each event does: its early reads, its command or rebind, its answer. A handler
//! calls `commit` for what changes the records and `publish` for what shows them.

pub mod authorize;
mod carried_out;
pub mod checks;
pub mod comment;
pub mod prefetch;
pub mod pulls;
mod rebind;
pub mod refresh;
