//! The gate (docs/reference.md#gate-conditions): a pure function of the record, the head commit, evidence checks
//! and the repository configuration.

mod combine;
mod condition;
mod evaluate;
mod evidence;
mod input;
mod pull;
mod record_conditions;
pub(crate) mod result;
mod run_conditions;
mod structure;
pub(crate) mod verdict;

pub use combine::combine;
pub use condition::condition;
pub use evaluate::evaluate;
pub use evidence::{evidence_awaited, evidence_holds, integrated_checks, may_pass, Integrated};
pub use input::{CheckObservation, CheckStatus, GateInput};
pub use pull::{pull_gate, PullGate};
pub use result::*;
pub use run_conditions::{cites_decision, effective_grade};
