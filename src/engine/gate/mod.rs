//! The gate (docs/reference.md#gate-conditions): a pure function of the record, the head commit, evidence checks
//! and the repository configuration.

mod chain;
mod combine;
mod condition;
mod evaluate;
mod evidence;
mod input;
pub mod model;
mod pull;
mod record_conditions;
mod run_conditions;

pub use combine::combine;
pub use condition::condition;
pub use evaluate::evaluate;
pub use input::{CheckObservation, CheckStatus, GateInput};
pub use model::*;
pub use pull::{pull_gate, PullGate};
