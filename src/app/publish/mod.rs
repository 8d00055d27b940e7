//! Views and replies, rebuilt from what was committed: the PR body, the check run, the
//! one reply of a delivery, the repository's dashboard issue. Nothing here writes the
//! records branch. `plan` decides what to show (pure), `write` publishes it.

pub(crate) mod body;
pub mod dashboard;
pub(crate) mod plan;
pub(crate) mod reply;
pub(crate) mod write;
