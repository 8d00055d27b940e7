//! What each event does: the pull-request, comment, check and issue events, each from its
//! parsed payload to its answer. A handler calls `commit/` for what changes the records and
//! `change/` to carry a change through to its views; it reads through `reads/`.

pub(crate) mod checks;
pub(crate) mod comment;
pub(crate) mod issues;
pub(crate) mod pulls;
