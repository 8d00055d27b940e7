//! The library rules (docs/reference.md#the-pattern-library): a certification creates or updates the patterns of
//! the keys it resolved, a block counts the keys that already have one as seen.

use std::collections::BTreeSet;

use super::learn::{Ending, Learned};
use super::library::{Library, Pattern, MAX_RECORDS};
use crate::ids::{AuditId, FindingKey};

/// A record adds at most this many new patterns.
pub const MAX_NEW_PER_RECORD: usize = 5;

/// What one ending did to the library, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    pub created: Vec<FindingKey>,
    pub updated: Vec<FindingKey>,
}

/// Counts `record` in `pattern` as seen (once per record: a record already named is not
/// counted again) and moves it to the front of `records`.
fn see(pattern: &mut Pattern, record: &AuditId, learned: &Learned) -> bool {
    let counted = pattern.records.contains(record);
    if !counted {
        pattern.seen = pattern.seen.saturating_add(1);
    }
    pattern.records.retain(|r| r != record);
    pattern.records.insert(0, record.clone());
    pattern.records.truncate(MAX_RECORDS);
    pattern.last_seen = pattern.last_seen.max(learned.at);
    !counted
}

/// Applies what `record` taught to `library`, which is then settled (sorted by the
/// eviction rule, cut to the cap).
#[must_use]
pub fn apply(library: &Library, record: &AuditId, learned: &Learned) -> (Library, Touched) {
    let mut next = library.clone();
    let mut touched = Touched::default();
    let mut new = Vec::new();
    for raised in &learned.keys {
        match (next.get_mut(&raised.key), learned.ending) {
            (Some(pattern), Ending::Certified) => {
                see(pattern, record, learned);
                // Seen by this record at a block before, or just now: resolved here.
                pattern.resolved = pattern.resolved.saturating_add(1).min(pattern.seen);
                pattern.severity = pattern.severity.min(raised.severity);
                touched.updated.push(raised.key.clone());
            }
            (Some(pattern), Ending::Blocked) => {
                if see(pattern, record, learned) {
                    pattern.severity = pattern.severity.min(raised.severity);
                    touched.updated.push(raised.key.clone());
                }
            }
            (None, Ending::Certified) => new.push(raised),
            (None, Ending::Blocked) => {}
        }
    }
    // The highest severity first; the order raised breaks ties (the sort is stable).
    new.sort_by_key(|r| r.severity);
    let mut keys: BTreeSet<FindingKey> = BTreeSet::new();
    for raised in new
        .into_iter()
        .filter(|r| keys.insert(r.key.clone()))
        .take(MAX_NEW_PER_RECORD)
    {
        next.patterns.push(Pattern {
            key: raised.key.clone(),
            title: raised.title.clone(),
            severity: raised.severity,
            seen: 1,
            resolved: 1,
            success_rate: 1.0,
            records: vec![record.clone()],
            first_seen: learned.at,
            last_seen: learned.at,
        });
        touched.created.push(raised.key.clone());
    }
    next.settle();
    // A pattern created and evicted at once was not kept.
    touched.created.retain(|k| next.get(k).is_some());
    touched.updated.retain(|k| next.get(k).is_some());
    (next, touched)
}
