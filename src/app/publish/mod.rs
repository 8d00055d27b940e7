//! Views and replies, rebuilt from what was committed: the PR body, the check run, the
//! one reply of a delivery. Nothing here writes the records branch.

pub mod body;
pub mod reply;
pub mod runs;
pub mod views;
