//! The records branch through GitHub's Git Data API: a snapshot read in a constant number
//! of calls however many records exist, and one commit per change, made with a
//! compare-and-swap (GraphQL's `createCommitOnBranch`; the branch's first commit through
//! a ref create) and re-applied to the new state when the branch moved.

mod by_path;
mod cache;
mod convert;
mod graphql;
mod landing;
mod layout;
mod listing;
mod pull;
mod read;
mod read_at;
mod recover;
mod snapshot;
mod wanted;
mod wire;
mod write;

pub use cache::RecordsCache;
pub use graphql::{RECORDS_COMMIT, RECORDS_LANDED};
pub(crate) use landing::contains;
pub(crate) use pull::{index_of, record_named, record_of_pull};
pub(crate) use read::{likely_moved, read_ref as head};
pub use read::{read, read_with, Reuse};
pub(crate) use read_at::{blob_at, read_at};
pub(crate) use recover::{create_branch, is_records_commit};
pub use snapshot::{Files, Snapshot};
pub(crate) use wanted::{Named, Wanted};
pub(crate) use write::commit_change_with;
pub use write::{commit_change, Change, CommitOutcome, MAX_ATTEMPTS};
