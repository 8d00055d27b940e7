//! The packet's learning fields (docs/reference.md#the-audit-packet): `changed_since`, what moved since the
//! last audited candidate, and `patterns`, the repository's most seen recurring findings.

use serde_json::{json, Value};

use crate::ids::Artifact;
use crate::patterns::Library;
use crate::record::Record;

/// The packet lists this many patterns, the most seen first.
pub(crate) const PACKET_PATTERNS: usize = 20;

/// One file GitHub's compare lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeltaFile {
    pub path: String,
    pub status: String,
    pub previous_path: Option<String>,
}

/// What the compare from the last audited candidate to the current one answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// GitHub's `status` and the files it listed, at most `limit` of them.
    Compared {
        status: String,
        files: Vec<DeltaFile>,
        limit: usize,
    },
    /// GitHub knows no such commits any more (a force-push and a collection).
    Unknown,
}

/// The candidate of the last run, when it differs from the current one: what to compare.
#[must_use]
pub fn last_audited(record: &Record) -> Option<&Artifact> {
    record.latest_run().map(|r| &r.candidate_artifact)
}

/// `changed_since`: `null` before any run; the last audited candidate and its run, and the
/// files changed from it to the current candidate (none when it is the same commit).
#[must_use]
pub fn changed_since(record: &Record, delta: Option<&Delta>) -> Value {
    let Some(run) = record.latest_run() else {
        return Value::Null;
    };
    let mut out = json!({
        "candidate_artifact": run.candidate_artifact,
        "run": run.run,
        "to": record.candidate_artifact,
    });
    let fields = match delta {
        _ if run.candidate_artifact == record.candidate_artifact => json!({
            "status": "identical", "files": [], "files_listed": 0, "files_total": 0,
            "files_truncated": false,
        }),
        None | Some(Delta::Unknown) => json!({
            "status": "unknown", "files": null, "files_listed": 0, "files_total": null,
            "files_truncated": false,
            "note": "GitHub could not compare the two commits (one may have been force-pushed away); audit the whole candidate.",
        }),
        Some(Delta::Compared {
            status,
            files,
            limit,
        }) => {
            let truncated = files.len() >= *limit;
            let listed: Vec<Value> = files
                .iter()
                .take(*limit)
                .map(|f| json!({"path": f.path, "status": f.status, "previous_path": f.previous_path}))
                .collect();
            let mut v = json!({
                "status": status, "files_listed": listed.len(),
                "files_total": if truncated { Value::Null } else { json!(listed.len()) },
                "files_truncated": truncated, "files": listed,
            });
            if truncated {
                v["note"] = json!(format!(
                    "GitHub's compare lists at most {limit} files and more may have changed: the list is cut and the total is unknown; see the pull request's files for all of them."
                ));
            }
            v
        }
    };
    if let (Some(out), Value::Object(fields)) = (out.as_object_mut(), fields) {
        out.extend(fields);
    }
    out
}

/// `patterns`: the [`PACKET_PATTERNS`] most seen patterns of the library (`[]` without one).
#[must_use]
pub fn packet_patterns(library: Option<&Library>) -> Value {
    let listed: Vec<Value> = library
        .map(|l| l.most_seen(PACKET_PATTERNS))
        .unwrap_or_default()
        .into_iter()
        .map(|p| serde_json::to_value(p).unwrap_or(Value::Null))
        .collect();
    Value::Array(listed)
}
