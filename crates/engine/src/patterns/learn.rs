//! What a record's history teaches when it becomes certified or blocked: the keys it
//! raised, in which runs, and which of them it resolved (docs/reference.md#the-pattern-library).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::ids::FindingKey;
use crate::record::{replay_states, AuditState, DispositionKind, EventKind, Record};
use crate::report::Severity;

/// How a record ended, for the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Certified,
    Blocked,
}

/// A key a record raised: the first sentence of its first claim, the highest severity it
/// had, and the runs that raised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRuns {
    pub key: FindingKey,
    pub title: String,
    pub severity: Severity,
    pub runs: Vec<u32>,
}

/// A key the library counts for one ending.
pub type Raised = KeyRuns;

/// What one ending teaches: for `Certified`, the keys resolved there (not those an earlier
/// certification of the same record resolved); for `Blocked`, every key the record raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learned {
    pub ending: Ending,
    /// When the record ended: the time of the event that ended it.
    pub at: DateTime<Utc>,
    pub keys: Vec<Raised>,
}

const TITLE_CHARS: usize = 200;

/// The claim's first sentence: up to the first `.`, `!` or `?` followed by a space or the
/// end, or the first line break; bounded.
#[must_use]
pub(crate) fn first_sentence(claim: &str) -> String {
    let claim = claim.trim();
    let chars: Vec<char> = claim.chars().collect();
    let mut end = chars.len();
    for (i, c) in chars.iter().enumerate() {
        if *c == '\n' || *c == '\r' {
            end = i;
            break;
        }
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            end = i + 1;
            break;
        }
    }
    let sentence: String = chars[..end].iter().collect();
    let sentence = sentence.trim_end();
    if sentence.chars().count() > TITLE_CHARS {
        let cut: String = sentence.chars().take(TITLE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        sentence.to_owned()
    }
}

/// Every key raised by the runs among the first `upto` events of the history, in the order
/// first raised.
#[must_use]
pub fn key_history(record: &Record, upto: usize) -> Vec<KeyRuns> {
    let mut order: Vec<KeyRuns> = Vec::new();
    for event in record.history.iter().take(upto) {
        let EventKind::Report(run) = &event.kind else {
            continue;
        };
        for f in &run.findings {
            let Some(key) = &f.key else { continue };
            match order.iter_mut().find(|k| &k.key == key) {
                Some(k) => {
                    k.severity = k.severity.min(f.severity);
                    if k.runs.last() != Some(&run.run) {
                        k.runs.push(run.run);
                    }
                }
                None => order.push(KeyRuns {
                    key: key.clone(),
                    title: first_sentence(&f.claim),
                    severity: f.severity,
                    runs: vec![run.run],
                }),
            }
        }
    }
    order
}

/// The keys resolved by the certification at history position `at` (a certifying report):
/// raised in a run so far and absent from the certifying run, or disposed `fix`.
fn resolved_at(record: &Record, at: usize) -> Vec<KeyRuns> {
    let Some(EventKind::Report(certifying)) = record.history.get(at).map(|e| &e.kind) else {
        return Vec::new();
    };
    let present: BTreeSet<&FindingKey> = certifying
        .findings
        .iter()
        .filter_map(|f| f.key.as_ref())
        .collect();
    // The disposition in force of each finding: the last given for its run and id.
    let mut dispositions = BTreeMap::new();
    for event in record.history.iter().take(at + 1) {
        if let EventKind::Disposition(d) = &event.kind {
            dispositions.insert((d.finding.run, d.finding.id.clone()), d);
        }
    }
    let fixed: BTreeSet<&FindingKey> = dispositions
        .values()
        .filter(|d| d.disposition == DispositionKind::Fix)
        .filter_map(|d| d.finding.key.as_ref())
        .collect();
    key_history(record, at + 1)
        .into_iter()
        .filter(|k| !present.contains(&k.key) || fixed.contains(&k.key))
        .collect()
}

/// Where the record's current certified or blocked stretch began: its ending and the
/// history position of the event that ended it, with the positions of earlier
/// certifications (for a record certified, reopened and certified again).
#[must_use]
pub fn ending_index(record: &Record) -> Option<(Ending, usize, Vec<usize>)> {
    let states = replay_states(&record.history).ok()?;
    let last = *states.last()?;
    let ending = match last {
        AuditState::Certified => Ending::Certified,
        AuditState::Blocked => Ending::Blocked,
        AuditState::Open | AuditState::AwaitingHuman => return None,
    };
    let began =
        |i: usize, state: AuditState| states[i] == state && (i == 0 || states[i - 1] != state);
    let start = (0..states.len()).rev().find(|&i| began(i, last))?;
    let earlier = (0..start)
        .filter(|&i| began(i, AuditState::Certified))
        .collect();
    Some((ending, start, earlier))
}

/// What the library learns from `after`, when this change made the record certified or
/// blocked (`before` is the record as it was, `None` for a new one); `None` otherwise.
#[must_use]
pub fn learned(before: Option<&Record>, after: &Record) -> Option<Learned> {
    if before.is_some_and(|b| b.audit_state == after.audit_state) {
        return None;
    }
    let (ending, at, earlier) = ending_index(after)?;
    let time = after.history[at].at;
    let keys = match ending {
        Ending::Certified => {
            let counted: BTreeSet<FindingKey> = earlier
                .into_iter()
                .flat_map(|i| resolved_at(after, i))
                .map(|k| k.key)
                .collect();
            resolved_at(after, at)
                .into_iter()
                .filter(|k| !counted.contains(&k.key))
                .collect()
        }
        Ending::Blocked => key_history(after, after.history.len()),
    };
    Some(Learned {
        ending,
        at: time,
        keys,
    })
}
