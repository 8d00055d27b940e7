//! `patterns.json`: the patterns, kept sorted by the eviction rule so that the cap only
//! ever drops the tail.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{AuditId, FindingKey};
use crate::report::Severity;

/// Where the library lives on the records branch.
pub use crate::layout::PATTERNS_PATH;
pub(crate) const SCHEMA_VERSION: u32 = 1;
/// The library keeps at most this many patterns.
pub const MAX_PATTERNS: usize = 200;
/// A pattern names at most this many records, newest first.
pub const MAX_RECORDS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    pub key: FindingKey,
    /// The first sentence of the claim that first raised the key.
    pub title: String,
    /// The highest severity the key was seen with.
    pub severity: Severity,
    /// Records that became certified or blocked having raised the key.
    pub seen: u32,
    /// Of those, the records that resolved it.
    pub resolved: u32,
    /// `resolved / seen`, three decimals.
    pub success_rate: f64,
    /// The newest records first, at most [`MAX_RECORDS`].
    pub records: Vec<AuditId>,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
}

impl Pattern {
    /// `resolved / seen` in thousandths, rounded half up: the stored rate, as an integer
    /// so that ordering never depends on float comparison.
    #[must_use]
    pub fn rate_millis(&self) -> u32 {
        if self.seen == 0 {
            return 0;
        }
        let (r, s) = (u64::from(self.resolved), u64::from(self.seen));
        u32::try_from((r * 2000 + s) / (2 * s)).unwrap_or(u32::MAX)
    }

    /// Sets `success_rate` from `seen` and `resolved`.
    pub fn refresh(&mut self) {
        self.success_rate = f64::from(self.rate_millis()) / 1000.0;
    }

    /// The eviction rule as an order: the pattern kept longest first. The lowest success
    /// rate goes first, then the oldest `last_seen`; the key breaks ties.
    #[must_use]
    pub fn keep_order(&self, other: &Pattern) -> Ordering {
        other
            .rate_millis()
            .cmp(&self.rate_millis())
            .then(other.last_seen.cmp(&self.last_seen))
            .then(self.key.cmp(&other.key))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Library {
    pub schema_version: u32,
    pub patterns: Vec<Pattern>,
}

impl Default for Library {
    fn default() -> Self {
        Library {
            schema_version: SCHEMA_VERSION,
            patterns: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    #[error("{PATTERNS_PATH} is not a pattern library: {0}")]
    Parse(String),
    #[error("{PATTERNS_PATH} has schema_version {0}; this version reads 1")]
    Version(u32),
    #[error("{PATTERNS_PATH}: pattern `{0}` is resolved more often than seen")]
    Counts(String),
    #[error("{PATTERNS_PATH}: key `{0}` has two patterns")]
    Duplicate(String),
}

impl Library {
    /// Parses the stored file; the rates are recomputed from the counts.
    ///
    /// # Errors
    ///
    /// A [`LibraryError`] when the text is not a library this version can keep: then it is
    /// left as it is, never overwritten.
    pub fn parse(text: &str) -> Result<Library, LibraryError> {
        let mut library: Library =
            serde_json::from_str(text).map_err(|e| LibraryError::Parse(e.to_string()))?;
        if library.schema_version != SCHEMA_VERSION {
            return Err(LibraryError::Version(library.schema_version));
        }
        let mut keys = std::collections::BTreeSet::new();
        for p in &mut library.patterns {
            if p.resolved > p.seen || p.seen == 0 {
                return Err(LibraryError::Counts(p.key.to_string()));
            }
            if !keys.insert(p.key.clone()) {
                return Err(LibraryError::Duplicate(p.key.to_string()));
            }
            p.refresh();
        }
        library.settle();
        Ok(library)
    }

    /// Pretty JSON with a final newline, as stored.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    #[must_use]
    pub fn get(&self, key: &FindingKey) -> Option<&Pattern> {
        self.patterns.iter().find(|p| &p.key == key)
    }

    pub(crate) fn get_mut(&mut self, key: &FindingKey) -> Option<&mut Pattern> {
        self.patterns.iter_mut().find(|p| &p.key == key)
    }

    /// Rates refreshed, sorted by the eviction rule, and cut to [`MAX_PATTERNS`].
    pub fn settle(&mut self) {
        for p in &mut self.patterns {
            p.refresh();
        }
        self.patterns.sort_by(Pattern::keep_order);
        self.patterns.truncate(MAX_PATTERNS);
    }

    /// The `n` patterns seen most often (ties: the most recently seen, then the key).
    #[must_use]
    pub(crate) fn most_seen(&self, n: usize) -> Vec<&Pattern> {
        let mut all: Vec<&Pattern> = self.patterns.iter().collect();
        all.sort_by(|a, b| {
            b.seen
                .cmp(&a.seen)
                .then(b.last_seen.cmp(&a.last_seen))
                .then(a.key.cmp(&b.key))
        });
        all.truncate(n);
        all
    }
}
