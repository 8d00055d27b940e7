//! What the App reads of the records branch and beside it, for `commit/` and `publish/`
//! alike: the state one PR's change is decided on, the lineage check (is the branch still
//! what our check run named), and the decision records a report cites. Nothing here writes.

pub(crate) mod ahead;
pub(crate) mod ahead_reads;
pub(crate) mod decision_records;
pub(crate) mod lineage;
pub(crate) mod loading;
pub(crate) mod state;
