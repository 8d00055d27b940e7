//! Views and replies, rebuilt from what was committed: the PR body, the check run, the
//! one reply of a delivery. Nothing here writes the records branch. A refresh goes in one
//! direction: `views` reads, `plan` decides (pure), `write` publishes.

pub mod body;
pub mod plan;
pub mod reply;
pub mod runs;
pub mod views;
pub mod write;
