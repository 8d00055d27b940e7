//! What the records branch holds for one PR, read from a snapshot, and the files one
//! applied transition writes. Pure: the reads and the commit are in `commit_loop.rs`.

use std::collections::BTreeMap;

use crate::engine::patterns::{Library, PATTERNS_PATH};
use crate::engine::record::{to_json, Index, Record};
use crate::engine::transition::Applied;
use crate::engine::views::{sections, ViewContext};
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::records::{self, index_of, Change, Files, PerRound, Snapshot, Wanted};

/// What the branch holds for one PR.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub(crate) commit: Option<CommitSha>,
    /// The parents of `commit`.
    pub(crate) parents: Vec<CommitSha>,
    pub(crate) index: Index,
    /// The PR's record: `Err` when it fails structural validation.
    pub(crate) record: Option<Result<Record, String>>,
    /// A record named by id (adopt), when asked for.
    pub(crate) named: Option<Result<Record, String>>,
    /// The stored report of the PR record's certifying run, whatever its grade: the gate
    /// checks it against the digest the run recorded (and a receipt signed).
    pub(crate) certified_report: Option<String>,
    /// `patterns.json` (docs/reference.md#the-pattern-library), when the branch holds it: `Err` when it does not parse, or
    /// when it was not read (`patterns: false`, or no record to learn from).
    pub(crate) patterns: Option<Result<Library, String>>,
}

use crate::engine::layout::{record_path, INDEX_PATH};

/// The index, the PR's record (and `named`), and, with `patterns`, the pattern library
/// once there is a record to learn from or to mark: its text is cached by blob like the
/// record's, so it costs a call only when another process changed it.
pub(crate) fn wanted(pr: PrNumber, named: Option<AuditId>, patterns: bool) -> impl Wanted {
    // The index is parsed once per read round, not once per path of the branch.
    PerRound(move |files: &Files| {
        let mut paths: Vec<String> = index_of(files)
            .map(|index| {
                index
                    .record_for_pull(pr)
                    .into_iter()
                    .chain(named.as_ref())
                    .map(record_path)
                    .collect()
            })
            .unwrap_or_default();
        if patterns && !paths.is_empty() {
            paths.push(PATTERNS_PATH.to_owned());
        }
        // A certification's stored report, once its record is read: the gate checks its
        // digest against the run's (and the kept receipt's).
        let certifying: Vec<String> = paths
            .iter()
            .filter_map(|p| files.get(p).and_then(|t| certifying_report_path(t)))
            .collect();
        paths.extend(certifying);
        move |path: &str| path == INDEX_PATH || paths.iter().any(|p| p == path)
    })
}

/// The stored report of the certifying run of the record `text`, when it is certified:
/// the one file the gate verifies beside the record.
fn certifying_report_path(text: &str) -> Option<String> {
    let record: serde_json::Value = serde_json::from_str(text).ok()?;
    if record["certification_grade"].is_null() {
        return None;
    }
    let run = record["history"]
        .as_array()?
        .iter()
        .rev()
        .find(|e| e["type"] == "report")?;
    run["report"].as_str().map(str::to_owned)
}

/// The certifying run's stored report of `record`, when it is certified and was read.
fn certified_report(
    snapshot: &Snapshot,
    record: Option<&Result<Record, String>>,
) -> Option<String> {
    let record = record?.as_ref().ok()?;
    record.certification_grade?;
    snapshot
        .file(&record.latest_run()?.report)
        .map(str::to_owned)
}

fn patterns_of(snapshot: &Snapshot) -> Option<Result<Library, String>> {
    if !snapshot.contains(PATTERNS_PATH) {
        return None;
    }
    Some(match snapshot.file(PATTERNS_PATH) {
        Some(text) => Library::parse(text).map_err(|e| e.to_string()),
        None => Err(format!("{PATTERNS_PATH} was not read")),
    })
}

/// The files a sweep reads: the index, the records of the `open` PRs and, when kept
/// (`patterns`), the pattern library, so a republished check run marks what the one it
/// replaces marked.
pub(crate) fn open_records(open: Vec<PrNumber>, patterns: bool) -> impl Wanted {
    PerRound(move |files: &Files| {
        let mut paths: Vec<String> = index_of(files)
            .map(|index| {
                open.iter()
                    .filter_map(|pr| index.record_for_pull(*pr))
                    .map(record_path)
                    .collect()
            })
            .unwrap_or_default();
        if patterns && !paths.is_empty() {
            paths.push(crate::engine::patterns::PATTERNS_PATH.to_owned());
        }
        move |path: &str| path == INDEX_PATH || paths.iter().any(|p| p == path)
    })
}

pub(crate) fn state_of(
    snapshot: &Snapshot,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Result<State, String> {
    let index = match snapshot.file(INDEX_PATH) {
        Some(text) => Index::parse(text)
            .map_err(|e| format!("index.json on the records branch is damaged: {e}"))?,
        None if snapshot.commit.is_some() => {
            return Err("the records branch has no index.json".to_owned());
        }
        None => Index::default(),
    };
    let record = records::record_of_pull(snapshot, &index, pr);
    let named = named.and_then(|id| records::record_named(snapshot, id));
    Ok(State {
        commit: snapshot.commit.clone(),
        parents: snapshot.parents.clone(),
        index,
        certified_report: certified_report(snapshot, record.as_ref()),
        record,
        named,
        patterns: patterns_of(snapshot),
    })
}

/// The files one applied transition writes: the record (JSON and Markdown) and, when it
/// changed, the index; plus `extra` (a stored report).
/// `base`: the index the transition was applied on; it is written when the transition
/// changed it, or when the record's covered tasks are not yet mapped to it there.
pub(crate) fn change_files(
    applied: &Applied,
    base: &Index,
    view: &ViewContext,
    extra: Vec<(String, String)>,
) -> Change {
    let record = &applied.record;
    let mut files = BTreeMap::new();
    files.insert(record_path(&record.id), to_json(record));
    let s = sections(Some(record), view);
    files.insert(
        crate::engine::layout::record_md_path(&record.id),
        format!(
            "# {} ({})\n\n{}\n\n{}\n\n{}\n",
            record.id, record.work_unit, s.rounds, s.waivers, s.residual
        ),
    );
    let mut index = applied.index.clone().unwrap_or_else(|| base.clone());
    let mapped = index.bind_tasks(&record.id, &record.covered_tasks);
    if applied.index.is_some() || mapped {
        files.insert(INDEX_PATH.to_owned(), index.to_json());
    }
    files.extend(extra);
    Change { files }
}
