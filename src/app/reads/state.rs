//! What the records branch holds for one PR, read from a snapshot, and the files one
//! applied transition writes. Pure: the reads and the commit are in `commit_loop.rs`.

use std::collections::BTreeMap;

use crate::engine::patterns::{Library, PATTERNS_PATH};
use crate::engine::record::{to_json, Index, Record};
use crate::engine::transition::Applied;
use crate::engine::views::{sections, ViewContext};
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::records::{self, index_of, Change, Files, Named, Snapshot, Wanted};

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
    /// The branch's layout version (`0`: no branch yet).
    pub(crate) layout: u32,
    /// The index shards read, when the branch was read by path (layout version 2): the
    /// index holds their keys only. `None`: the index is whole.
    pub(crate) shards_read: Option<std::collections::BTreeSet<String>>,
}

use crate::engine::layout::{record_path, stored_report, IndexMap, INDEX_PATH};
use crate::engine::record::shards::shards_of;

/// The index, the PR's record (and `named`), and, with `patterns`, the pattern library
/// once there is a record to learn from or to mark: its text is cached by blob like the
/// record's, so it costs a call only when another process changed it. On layout version 2
/// the index is what the shards read hold: the PR's entry in `pulls` (a change of other
/// keys reads their shards before it is written, and decides again).
pub(crate) fn wanted(pr: PrNumber, named: Option<AuditId>, patterns: bool) -> impl Wanted {
    wanted_keys(pr, named, patterns, false)
}

/// [`wanted`], and with `keys` the shards of the invocations and receipts of the records
/// read: what the lineage check holds against the branch now.
pub(crate) fn wanted_keys(
    pr: PrNumber,
    named: Option<AuditId>,
    patterns: bool,
    keys: bool,
) -> impl Wanted {
    // The index is parsed once per read round, not once per path of the branch.
    Named(move |files: &Files| {
        let records: Vec<String> = index_of(files)
            .map(|index| {
                index
                    .record_for_pull(pr)
                    .into_iter()
                    .chain(named.as_ref())
                    .map(record_path)
                    .collect()
            })
            .unwrap_or_default();
        let mut paths = vec![INDEX_PATH.to_owned()];
        paths.extend(shards_of(IndexMap::Pulls, [pr.0.to_string().as_str()]));
        if patterns && !records.is_empty() {
            paths.push(PATTERNS_PATH.to_owned());
        }
        for text in records.iter().filter_map(|p| files.get(p)) {
            let Ok(record) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            // A certification's stored report: the gate checks its digest against the
            // run's (and the kept receipt's).
            paths.extend(certifying_report_path(&record));
            if keys {
                let events = record["history"].as_array().cloned().unwrap_or_default();
                let key = |k: &'static str| events.iter().filter_map(move |e| e[k].as_str());
                paths.extend(shards_of(IndexMap::Invocations, key("invocation_ref")));
                paths.extend(shards_of(IndexMap::Receipts, key("receipt_id")));
            }
        }
        paths.extend(records);
        paths
    })
}

/// The stored report of the certifying run of `record`, when it is certified: the one
/// file the gate verifies beside the record.
fn certifying_report_path(record: &serde_json::Value) -> Option<String> {
    if record["certification_grade"].is_null() {
        return None;
    }
    let run = record["history"]
        .as_array()?
        .iter()
        .rev()
        .find(|e| e["type"] == "report")?;
    run["report"].as_str().map(stored_report)
}

/// The certifying run's stored report of `record`, when it is certified and was read.
fn certified_report(
    snapshot: &Snapshot,
    record: Option<&Result<Record, String>>,
) -> Option<String> {
    let record = record?.as_ref().ok()?;
    record.certification_grade?;
    snapshot
        .file(&stored_report(&record.latest_run()?.report))
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
    Named(move |files: &Files| open_paths(&open, patterns, files))
}

fn open_paths(open: &[PrNumber], patterns: bool, files: &Files) -> Vec<String> {
    let numbers: Vec<String> = open.iter().map(|pr| pr.0.to_string()).collect();
    let mut paths = vec![INDEX_PATH.to_owned()];
    paths.extend(shards_of(
        IndexMap::Pulls,
        numbers.iter().map(String::as_str),
    ));
    let records: Vec<String> = index_of(files)
        .map(|index| {
            open.iter()
                .filter_map(|pr| index.record_for_pull(*pr))
                .map(record_path)
                .collect()
        })
        .unwrap_or_default();
    if patterns && !records.is_empty() {
        paths.push(PATTERNS_PATH.to_owned());
    }
    paths.extend(records);
    paths
}

/// [`open_records`], with each certified record's stored report: what the gates of the
/// open PRs read (`status --repo`, the dashboard).
pub(crate) fn open_gates(open: Vec<PrNumber>, patterns: bool) -> impl Wanted {
    Named(move |files: &Files| {
        let mut paths = open_paths(&open, patterns, files);
        let reports: Vec<String> = paths
            .iter()
            .filter(|p| crate::engine::layout::record_at(p).is_some())
            .filter_map(|p| files.get(p))
            .filter_map(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .filter_map(|record| certifying_report_path(&record))
            .collect();
        paths.extend(reports);
        paths
    })
}

/// What tells which PR's record covers `task` last: the index's entry for it, the record it
/// names, and that record's PR's entry (a record's PR is bound in both).
pub(crate) fn covering(task: crate::ids::TaskId) -> impl Wanted {
    Named(move |files: &Files| {
        let mut paths = vec![INDEX_PATH.to_owned()];
        paths.extend(shards_of(IndexMap::Tasks, [task.as_str()]));
        let Some(id) = index_of(files).and_then(|i| i.tasks.get(task.as_str()).cloned()) else {
            return paths;
        };
        let path = record_path(&id);
        let pull = files
            .get(&path)
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
            .and_then(|r| r["pull_request"].as_u64());
        paths.push(path);
        if let Some(pr) = pull {
            paths.extend(shards_of(IndexMap::Pulls, [pr.to_string().as_str()]));
        }
        paths
    })
}

/// The PR whose record covers `task` last, read from `snapshot` (see [`covering`]).
pub(crate) fn covering_pull(snapshot: &Snapshot, task: &crate::ids::TaskId) -> Option<PrNumber> {
    let index = index_of(&snapshot.files)?;
    let id = index.tasks.get(task.as_str())?;
    let record = records::record_named(snapshot, id)?.ok()?;
    // A task a record no longer covers may still name it (see `unfinished_elsewhere`).
    let covers = record.covered_tasks.contains(task);
    (covers && index.record_for_pull(record.pull_request) == Some(id))
        .then_some(record.pull_request)
}

pub(crate) fn state_of(
    snapshot: &Snapshot,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Result<State, String> {
    let index = match snapshot.file(INDEX_PATH) {
        Some(text) => Index::parse(text)
            .map_err(|e| format!("index.json on the records branch is damaged: {e}"))?,
        None if snapshot.layout() >= 2 => {
            return Err(
                "the records branch's index (next.json and its shards) is missing or does not parse"
                    .to_owned(),
            );
        }
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
        layout: snapshot.layout(),
        // Read: its text is among the files, or it is known absent (a shard the process
        // knows exists but this read did not take holds keys the index lacks).
        shards_read: snapshot.probed().map(|p| {
            let shards = p
                .iter()
                .filter(|p| crate::engine::layout::shard_at(p).is_some())
                .filter(|p| snapshot.files.contains_key(*p) || snapshot.is_absent(p));
            shards.cloned().collect()
        }),
    })
}

/// The files one applied transition writes: the record (JSON and Markdown) and, when it
/// changed, the index; plus `extra` (a stored report).
/// `state`: what the transition was applied on; its index is written when the transition
/// changed it, or when the record's covered tasks are not yet mapped to it there.
pub(crate) fn change_files(
    applied: &Applied,
    state: &State,
    view: &ViewContext,
    extra: Vec<(String, String)>,
) -> Change {
    let base = &state.index;
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
    // The tasks are mapped when they changed, or when the index read lacks them; on layout
    // version 2 an index read holds only the shards read, so the tasks of a record whose
    // tasks did not change are taken as mapped (their shard is not read for nothing).
    let before = [&state.record, &state.named]
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_ref().ok())
        .find(|r| r.id == record.id)
        .map(|r| &r.covered_tasks);
    let partial = state.layout >= 2;
    let mapped = if partial && before == Some(&record.covered_tasks) {
        false
    } else {
        index.bind_tasks(&record.id, &record.covered_tasks)
    };
    if applied.index.is_some() || mapped {
        files.insert(INDEX_PATH.to_owned(), index.to_json());
    }
    files.extend(extra);
    Change { files }
}
