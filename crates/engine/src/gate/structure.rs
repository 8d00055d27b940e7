//! Structural validation of a record (docs/reference.md#gate-conditions): the history is a hash chain starting
//! with `created`, and runs are numbered 1, 2, … in order. A partial edit breaks it.

use crate::record::chain::typed_event_digest;
use crate::record::replay::kind_name as kind_word;
use crate::record::{EventKind, Record, SCHEMA_VERSION};

/// The first structural problem found, worded for a maintainer.
pub(crate) fn structural_problem(record: &Record) -> Option<String> {
    if record.schema_version != SCHEMA_VERSION {
        return Some(format!(
            "schema_version is {}, expected {SCHEMA_VERSION}",
            record.schema_version
        ));
    }
    let Some(first) = record.history.first() else {
        return Some("the history is empty".into());
    };
    if !matches!(first.kind, EventKind::Created(_)) {
        return Some(format!(
            "the history starts with a {} event, not created",
            kind_word(&first.kind)
        ));
    }
    if first.prev.is_some() {
        return Some("the first event has a prev hash; it must be null".into());
    }
    let mut expected_run = 1u32;
    for (index, pair) in record.history.windows(2).enumerate() {
        let (before, event) = (&pair[0], &pair[1]);
        let number = index + 2;
        let word = kind_word(&event.kind);
        if event.prev.as_deref() != Some(typed_event_digest(before).as_str()) {
            return Some(format!(
                "event {number} ({word}) does not chain to event {}: the history was edited",
                number - 1
            ));
        }
        match &event.kind {
            EventKind::Created(_) => {
                return Some(format!("event {number} is a second created event"));
            }
            EventKind::Report(run) if run.run != expected_run => {
                return Some(format!(
                    "event {number} is run {}, expected run {expected_run}",
                    run.run
                ));
            }
            EventKind::Report(_) => expected_run += 1,
            _ => {}
        }
    }
    None
}
