//! The audit record, its history chain and the records-branch index.

pub(crate) mod asked;
pub(crate) mod chain;
pub(crate) mod implementers;
pub(crate) mod index;
pub(crate) mod load;
pub(crate) mod model;
pub(crate) mod query;
pub mod replay;
pub mod shards;

pub use chain::{event_digest, next_prev, typed_event_digest, verify_chain, ChainError};
pub(crate) use implementers::ImplementerBy;
pub use index::Index;
pub use load::{load_record, to_json, StructuralError};
pub use model::*;
pub use query::{has_delivery, AcceptedKey, LatestLimitation, Waived};
pub use replay::{canonical_tasks, replay, replay_states, Derived, ReplayError};
