//! The history chain (docs/reference.md#history-events): each event's `prev` is the digest of the event before
//! it as stored, so an edit anywhere in history breaks the chain at the next event.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::model::Event;

/// Where the chain is broken. `index` is 1-based, as a maintainer counts events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("history is empty: a record starts with its `created` event")]
    Empty,
    #[error("history event {index} is not a JSON object")]
    NotAnObject { index: usize },
    #[error("history event 1 ({kind}) must have `prev: null`, it has {found}")]
    FirstHasPrev { kind: String, found: String },
    #[error(
        "history event {changed} ({kind}) was changed after it was written: event {index} \
         expects its digest to be {expected}, it is now {actual}"
    )]
    Broken {
        /// The event whose stored form no longer matches the chain.
        changed: usize,
        kind: String,
        /// The event that carries the `prev` that no longer matches.
        index: usize,
        expected: String,
        actual: String,
    },
}

/// `sha256:` + lowercase hex SHA-256 of the RFC 8785 bytes of `event_json`.
#[must_use]
pub fn event_digest(event_json: &Value) -> String {
    // A `Value` cannot hold NaN or infinities, the only inputs JCS refuses.
    let bytes = serde_json_canonicalizer::to_vec(event_json).unwrap_or_default();
    format!("sha256:{}", hex::encode(Sha256::digest(&bytes)))
}

/// The digest of a typed event, as it will be stored.
#[must_use]
pub fn typed_event_digest(event: &Event) -> String {
    // Serializing the typed model cannot fail: every field is a string, number, bool or map.
    let value = serde_json::to_value(event).unwrap_or(Value::Null);
    event_digest(&value)
}

/// The `prev` a new event appended after `history` must carry.
pub fn next_prev(history: &[Event]) -> Option<String> {
    history.last().map(typed_event_digest)
}

fn kind_of(event: &Value) -> String {
    event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("untyped")
        .to_owned()
}

/// Checks the chain on the raw stored values, so a field added, removed or changed in any
/// event (even one the typed model would ignore) is caught.
///
/// # Errors
///
/// The [`ChainError`] at the first event that breaks the chain, or for an empty history.
pub fn verify_chain(history: &[Value]) -> Result<(), ChainError> {
    let first = history.first().ok_or(ChainError::Empty)?;
    for (i, event) in history.iter().enumerate() {
        if !event.is_object() {
            return Err(ChainError::NotAnObject { index: i + 1 });
        }
    }
    match first.get("prev") {
        Some(Value::Null) => {}
        other => {
            return Err(ChainError::FirstHasPrev {
                kind: kind_of(first),
                found: other.map_or_else(|| "no `prev` field".to_owned(), Value::to_string),
            })
        }
    }
    for (i, pair) in history.windows(2).enumerate() {
        let [before, after] = pair else { continue };
        let expected = event_digest(before);
        let actual = match after.get("prev") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => "missing".to_owned(),
        };
        if actual != expected {
            return Err(ChainError::Broken {
                changed: i + 1,
                kind: kind_of(before),
                index: i + 2,
                expected,
                actual,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digest_is_over_canonical_bytes() {
        let a = json!({"b": 1, "a": "x"});
        let b = json!({"a": "x", "b": 1});
        assert_eq!(event_digest(&a), event_digest(&b));
        // sha256 of `{"a":"x","b":1}`
        let expected = format!(
            "sha256:{}",
            hex::encode(Sha256::digest(br#"{"a":"x","b":1}"#))
        );
        assert_eq!(event_digest(&a), expected);
    }

    #[test]
    fn chain_rules() {
        let e1 = json!({"type": "created", "prev": null});
        let e2 = json!({"type": "veto", "prev": event_digest(&e1)});
        assert_eq!(verify_chain(&[e1.clone(), e2.clone()]), Ok(()));
        assert_eq!(verify_chain(&[]), Err(ChainError::Empty));
        let bad_first = json!({"type": "created", "prev": "sha256:00"});
        assert!(matches!(
            verify_chain(&[bad_first]),
            Err(ChainError::FirstHasPrev { .. })
        ));
        let no_prev = json!({"type": "created"});
        assert!(matches!(
            verify_chain(&[no_prev]),
            Err(ChainError::FirstHasPrev { .. })
        ));
        assert_eq!(
            verify_chain(&[json!(1)]),
            Err(ChainError::NotAnObject { index: 1 })
        );
        let mut changed = e1.clone();
        changed["note"] = json!("added");
        let err = verify_chain(&[changed, e2]).unwrap_err();
        assert!(matches!(
            err,
            ChainError::Broken {
                changed: 1,
                index: 2,
                ..
            }
        ));
        assert!(err
            .to_string()
            .contains("history event 1 (created) was changed"));
    }
}
