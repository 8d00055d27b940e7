//! What each event does: its early reads, its command or rebind, its answer. A handler
//! calls `commit` for what changes the records and `publish` for what shows them.

pub(crate) mod authorize;
mod carried_out;
pub(crate) mod checks;
pub(crate) mod comment;
pub(crate) mod issues;
pub(crate) mod prefetch;
pub(crate) mod pulls;
mod rebind;
pub(crate) mod refresh;
