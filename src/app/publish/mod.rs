//! Views and replies, rebuilt from what was committed: the PR body, the check run, the
//! one reply of a delivery. Nothing here writes the records branch. A refresh goes in one
//! direction: `observe` reads, `plan` decides (pure), `write` publishes.

pub(crate) mod body;
pub(crate) mod observe;
pub(crate) mod plan;
pub(crate) mod reply;
pub(crate) mod runs;
pub(crate) mod write;
