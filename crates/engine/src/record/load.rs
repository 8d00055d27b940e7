//! Reading and writing `records/AUD-n.json`. Loading is the structural validation of gate
//! condition 1: schema version, intact chain, the form auditloop writes, and derived
//! fields that agree with a replay of the history.

use serde_json::Value;

use super::chain::{verify_chain, ChainError};
use super::model::{Record, SCHEMA_VERSION};
use super::replay::{kind_name, replay, Derived, ReplayError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StructuralError {
    #[error("the record is not valid JSON: {0}")]
    Json(String),
    #[error("the record is not a JSON object")]
    NotAnObject,
    #[error(
        "the record has schema_version {found}; auditloop reads schema_version {SCHEMA_VERSION}"
    )]
    SchemaVersion { found: String },
    #[error("the record has no `history` list")]
    NoHistory,
    #[error("{0}")]
    Chain(#[from] ChainError),
    #[error("the record does not have the shape of an audit record at `{path}`: {message}")]
    Shape { path: String, message: String },
    #[error(
        "history event {index} ({kind}) is not in the form auditloop writes \
         (a field was added, removed or reformatted)"
    )]
    EventNotCanonical { index: usize, kind: String },
    #[error("the record's field `{field}` is not in the form auditloop writes")]
    RecordNotCanonical { field: String },
    #[error("the history is inconsistent: {0}")]
    Replay(#[from] ReplayError),
    #[error(
        "the stored `{field}` is {stored} but the history gives {replayed}: \
         a derived field was edited by hand"
    )]
    DerivedMismatch {
        field: String,
        stored: String,
        replayed: String,
    },
}

fn shape<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, StructuralError> {
    serde_path_to_error::deserialize(value).map_err(|e| StructuralError::Shape {
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

/// Parses and validates a stored record.
///
/// # Errors
///
/// The [`StructuralError`] of a record that is not valid JSON, breaks its chain, or does not replay.
pub fn load_record(json: &str) -> Result<Record, StructuralError> {
    let raw: Value =
        serde_json::from_str(json).map_err(|e| StructuralError::Json(e.to_string()))?;
    let obj = raw.as_object().ok_or(StructuralError::NotAnObject)?;
    match obj.get("schema_version") {
        Some(v) if v.as_u64() == Some(u64::from(SCHEMA_VERSION)) => {}
        other => {
            return Err(StructuralError::SchemaVersion {
                found: other.map_or_else(|| "missing".to_owned(), Value::to_string),
            })
        }
    }
    let history = obj
        .get("history")
        .and_then(Value::as_array)
        .ok_or(StructuralError::NoHistory)?;
    verify_chain(history)?;

    let record: Record = shape(raw.clone())?;
    for (i, (stored, typed)) in history.iter().zip(&record.history).enumerate() {
        if serde_json::to_value(typed).ok().as_ref() != Some(stored) {
            return Err(StructuralError::EventNotCanonical {
                index: i + 1,
                kind: kind_name(&typed.kind).to_owned(),
            });
        }
    }
    let rewritten = serde_json::to_value(&record).unwrap_or(Value::Null);
    if let (Some(ours), Some(theirs)) = (rewritten.as_object(), raw.as_object()) {
        let keys = ours.keys().chain(theirs.keys());
        for key in keys {
            if ours.get(key) != theirs.get(key) {
                return Err(StructuralError::RecordNotCanonical { field: key.clone() });
            }
        }
    }

    let replayed = replay(&record.history)?;
    let stored = Derived::stored(&record);
    if let Some((field, stored, replayed)) = stored.differences(&replayed).into_iter().next() {
        return Err(StructuralError::DerivedMismatch {
            field: field.to_owned(),
            stored,
            replayed,
        });
    }
    Ok(record)
}

/// Pretty JSON with a final newline; field order is the model's, so output is stable.
#[must_use]
pub fn to_json(record: &Record) -> String {
    let mut s = serde_json::to_string_pretty(record).unwrap_or_default();
    s.push('\n');
    s
}
