//! The repository's library of findings that keep coming back (docs/reference.md#the-pattern-library): what a
//! record teaches when it becomes certified or blocked, and how the library keeps the
//! patterns worth keeping. Pure: the app reads `patterns.json` with the record and writes
//! it in the same commit as the change that caused it.

pub mod apply;
pub(crate) mod learn;
pub(crate) mod library;

pub use apply::{apply, Touched, MAX_NEW_PER_RECORD};
pub use learn::{ending_index, key_history, learned, Ending, KeyRuns, Learned, Raised};
pub use library::{Library, LibraryError, Pattern, MAX_PATTERNS, MAX_RECORDS, PATTERNS_PATH};
