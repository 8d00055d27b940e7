//! The packet's `ledger` (docs/reference.md#the-audit-packet): what the next auditor must
//! not raise as if new, and what it has seen before. The keys maintainers settled, the
//! files unchanged since the last audited candidate, and one sentence for its prompt.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::packet_delta::Delta;
use crate::record::{DispositionKind, Record};

/// What an auditor prompt can say as it is.
pub(crate) const RAISE_NOW: &str = "Raise every finding in this run: a finding first raised in a later round on files that did not change is shown to the maintainers as late, a sign the loop does not converge.";

/// The keys waived, vetoed, rejected awaiting a resolution and followed up, each once
/// (the strongest word first: a veto, then a waiver, a rejection, a follow-up).
fn settled(record: &Record) -> Vec<Value> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut push = |key: String, state: &str| {
        if seen.insert(key.clone()) {
            out.push(json!({"key": key, "state": state}));
        }
    };
    for v in record.latest_vetoes() {
        push(v.key.to_string(), "vetoed");
    }
    for w in record.waived() {
        let key = w.finding.key.as_ref().map(ToString::to_string);
        push(key.unwrap_or_else(|| w.finding.id.to_string()), "waived");
    }
    for d in record.contested() {
        let key = d.finding.key.as_ref().map(ToString::to_string);
        push(key.unwrap_or_else(|| d.finding.id.to_string()), "rejected");
    }
    for d in record.dispositions_in_force() {
        if d.disposition == DispositionKind::FollowUp {
            let key = d.finding.key.as_ref().map(ToString::to_string);
            push(key.unwrap_or_else(|| d.finding.id.to_string()), "follow_up");
        }
    }
    out
}

/// `{"settled", "unchanged_files", "note"}`. `changed`: the pull request's files (as
/// GitHub lists them against its base), when read; `delta`: the compare from the last
/// audited candidate. `unchanged_files` is `null` before a run, or when either is unknown.
#[must_use]
pub fn packet_ledger(record: &Record, changed: Option<&[String]>, delta: Option<&Delta>) -> Value {
    let unchanged = match (record.latest_run(), changed, delta) {
        (None, _, _) | (_, None, _) | (_, _, Some(Delta::Unknown)) => Value::Null,
        // A list GitHub cut short cannot say what did not change.
        (_, _, Some(Delta::Compared { files, limit, .. })) if files.len() >= *limit => Value::Null,
        // The candidate is the one last audited: none of its files changed since.
        (Some(_), Some(files), None) => json!(files),
        (Some(_), Some(files), Some(Delta::Compared { files: moved, .. })) => {
            let moved: BTreeSet<&str> = moved.iter().map(|f| f.path.as_str()).collect();
            json!(files
                .iter()
                .filter(|f| !moved.contains(f.as_str()))
                .collect::<Vec<_>>())
        }
    };
    json!({
        "settled": settled(record),
        "unchanged_files": unchanged,
        "note": RAISE_NOW,
    })
}
