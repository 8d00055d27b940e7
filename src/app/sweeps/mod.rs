//! The App's own rounds, beside the deliveries: the reconcile sweep over every installation
//! (views behind their records republished, old claims pruned, dashboards rebuilt), and
//! whether a delivery's outcome shows on GitHub, for the redelivery sweep.

pub(crate) mod outcome;
pub(crate) mod reconcile;
