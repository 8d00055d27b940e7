//! What the App reads of the records branch and beside it, for `commit/` and `publish/`
//! alike: the state one PR's change is decided on, the lineage check (is the branch still
//! what our check run named), and the decision records a report cites. Nothing here writes.

pub mod decision_records;
pub mod lineage;
pub mod loading;
pub mod state;
