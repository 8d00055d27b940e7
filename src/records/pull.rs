//! A pull request's record as a snapshot of the branch holds it, checked against the index
//! that names it. Pure: the app's loads and the auditor's side (`auditloop status`,
//! `packet`) read a PR's record the same way, and see the same damage.

use crate::engine::layout::{record_path, INDEX_PATH};
use crate::engine::record::{load_record, Index, Record};
use crate::ids::{AuditId, PrNumber};
use crate::records::{Files, Snapshot};

/// The index among `files`, when it was read and parses.
#[must_use]
pub(crate) fn index_of(files: &Files) -> Option<Index> {
    files.get(INDEX_PATH).and_then(|t| Index::parse(t).ok())
}

/// The record `index` maps `pr` to (`None`: none); `Err` when it is missing, does not load,
/// or disagrees with the index (another id, or bound to another PR).
#[must_use]
pub(crate) fn record_of_pull(
    snapshot: &Snapshot,
    index: &Index,
    pr: PrNumber,
) -> Option<Result<Record, String>> {
    let record = record_named(snapshot, index.record_for_pull(pr)?)?;
    Some(record.and_then(|record| {
        if record.pull_request == pr {
            Ok(record)
        } else {
            Err(format!(
                "index.json disagrees with the records: it maps #{} to {}, which is bound to #{}",
                pr.0, record.id, record.pull_request.0
            ))
        }
    }))
}

/// The record `id` (`None`: not read); `Err` when it is missing or does not load,
/// or its file holds another record.
#[must_use]
pub(crate) fn record_named(snapshot: &Snapshot, id: &AuditId) -> Option<Result<Record, String>> {
    let path = record_path(id);
    if snapshot.is_absent(&path) {
        return Some(Err(format!(
            "the index names {id}, but {path} is missing from the records branch"
        )));
    }
    let text = snapshot.file(&path)?;
    Some(
        load_record(text)
            .map_err(|e| format!("{path}: {e}"))
            .and_then(|record| match &record.id {
                found if found != id => Err(format!(
                    "index.json disagrees with the records: it names {id}, but {path} holds {found}"
                )),
                _ => Ok(record),
            }),
    )
}
