//! A change carried through, in one direction: everything a delivery changes is decided
//! and committed first (`commit/`: the command's decision, then a dispatch it made due),
//! then the views are published once, from one evaluation of the gate (`publish/`).

pub(crate) mod carried_out;
pub(crate) mod refresh;
