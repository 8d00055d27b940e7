//! What the App reads of the records branch and beside it, for `commit/`, `change/` and
//! `publish/` alike: what a delivery asked ahead (`ahead`), the state one PR's
//! change is decided on, the lineage check (is the branch still what our check run named),
//! what the check runs on a head say, what the views are computed from (`observe`), and the
//! decision records a report cites. Nothing here writes.

pub(crate) mod ahead;
pub(crate) mod decision_records;
pub(crate) mod lineage;
pub(crate) mod loading;
pub(crate) mod observe;
pub(crate) mod runs;
pub(crate) mod state;
