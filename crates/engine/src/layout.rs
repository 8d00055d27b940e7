//! The records branch's layout (docs/reference.md#the-records-branch): every path and file
//! name on it, in one place, so that a reader, a writer and a view never spell one apart.
//!
//! Version 2, which every write makes, keeps each write to a bounded number of small files
//! however many records the branch holds:
//!
//! ```text
//! layout.json                         {"version": 2}
//! next.json                           {"next": 8}: the next record number
//! index/pulls/3f/a.json               one shard of a uniqueness map: the keys whose SHA-256
//!                                     starts 3fa (maps: work_units, pulls, invocations,
//!                                     receipts, tasks)
//! records/000/AUD-7.json              the record, with its whole history (000: AUD-1..999,
//! records/000/AUD-7.md                001: AUD-1000..1999, …), and the same for people
//! reports/000/AUD-7/run-1.json        each normalized report as accepted
//! patterns.json                       the recurring findings, when `patterns: true`
//! ```
//!
//! Version 1 (the [`v1`] paths) kept one `index.json` and flat `records/` and `reports/`
//! directories; a branch still in it is read as it is and converted by the first write.
//! Above the storage, the app speaks of version 2's paths and of one index: [`INDEX_PATH`]
//! is the index as the reads assembled it, whichever layout holds it.

use sha2::{Digest, Sha256};

use crate::ids::AuditId;

/// The layout version this build reads and writes. A branch marked with a later one is
/// never written over: the process says to upgrade.
pub const LAYOUT_VERSION: u32 = 2;

/// The file marking a branch's layout version (absent on a version-1 branch).
pub const LAYOUT_PATH: &str = "layout.json";

/// The next record number, in a file of its own.
pub const NEXT_PATH: &str = "next.json";

/// The index as the app sees it: on a version-1 branch the file itself; on version 2 the
/// next number and the shards read, assembled by the records layer (never a file there).
pub const INDEX_PATH: &str = "index.json";

/// The pattern library.
pub const PATTERNS_PATH: &str = "patterns.json";

/// The directory of the index's shards, with its trailing `/`.
const SHARDS_DIR: &str = "index/";

/// The directory of the records.
const RECORDS_DIR: &str = "records/";

/// The directory of the stored reports.
const REPORTS_DIR: &str = "reports/";

/// Records per directory of `records/` (a record is two files) and of `reports/`: well
/// under the 3,000 entries GitHub advises.
const PER_BUCKET: u64 = 1_000;

/// The branch records go to when `.github/auditloop.yml` names none.
pub(crate) const DEFAULT_RECORDS_BRANCH: &str = "auditloop-records";

/// The uniqueness maps of the index, each sharded on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IndexMap {
    WorkUnits,
    Pulls,
    Invocations,
    Receipts,
    Tasks,
}

impl IndexMap {
    pub(crate) const ALL: [IndexMap; 5] = [
        IndexMap::WorkUnits,
        IndexMap::Pulls,
        IndexMap::Invocations,
        IndexMap::Receipts,
        IndexMap::Tasks,
    ];

    /// The map's name, as `index.json` and the shards' directory spell it.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            IndexMap::WorkUnits => "work_units",
            IndexMap::Pulls => "pulls",
            IndexMap::Invocations => "invocations",
            IndexMap::Receipts => "receipts",
            IndexMap::Tasks => "tasks",
        }
    }
}

/// The shard of `map` that holds `key`: named by the first three hex digits of the key's
/// SHA-256, so 4,096 shards a map, 16 to a directory.
#[must_use]
pub fn shard_path(map: IndexMap, key: &str) -> String {
    let hex = hex::encode(Sha256::digest(key.as_bytes()));
    format!(
        "{SHARDS_DIR}{}/{}/{}.json",
        map.name(),
        &hex[..2],
        &hex[2..3]
    )
}

/// The map a shard path belongs to, when it is one.
#[must_use]
pub fn shard_at(path: &str) -> Option<IndexMap> {
    let rest = path.strip_prefix(SHARDS_DIR)?.strip_suffix(".json")?;
    let mut parts = rest.split('/');
    let (name, dir, file) = (parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    if parts.next().is_some() || !hex(dir, 2) || !hex(file, 1) {
        return None;
    }
    IndexMap::ALL.into_iter().find(|m| m.name() == name)
}

/// `records/000/`-style directory of record `id`.
fn bucket(id: &AuditId) -> String {
    format!("{:03}", id.number() / PER_BUCKET)
}

/// The record `id`.
#[must_use]
pub fn record_path(id: &AuditId) -> String {
    format!("{RECORDS_DIR}{}/{id}.json", bucket(id))
}

/// The record `id` rendered for people.
#[must_use]
pub fn record_md_path(id: &AuditId) -> String {
    format!("{RECORDS_DIR}{}/{id}.md", bucket(id))
}

/// The record a path holds, when it is one (`records/000/AUD-7.json`).
#[must_use]
pub fn record_at(path: &str) -> Option<AuditId> {
    let (dir, file) = path.strip_prefix(RECORDS_DIR)?.split_once('/')?;
    let id = AuditId::new(file.strip_suffix(".json")?).ok()?;
    (bucket(&id) == dir).then_some(id)
}

/// The directory of `id`'s stored reports, with its trailing `/`.
#[must_use]
pub(crate) fn reports_dir(id: &AuditId) -> String {
    format!("{REPORTS_DIR}{}/{id}/", bucket(id))
}

/// Run `run` of `id`, as accepted.
#[must_use]
pub fn report_path(id: &AuditId, run: u32) -> String {
    format!("{}run-{run}.json", reports_dir(id))
}

/// Where the report a run names (`report` of a `report` event) is kept now: a run recorded
/// on a version-1 branch names its flat path, and the conversion moved the file without
/// changing the record.
#[must_use]
pub fn stored_report(recorded: &str) -> String {
    v1::report_at(recorded).map_or_else(|| recorded.to_owned(), |(id, run)| report_path(&id, run))
}

/// Version 1's paths, which only the records layer reads (and the conversion moves).
pub mod v1 {
    use super::{AuditId, RECORDS_DIR, REPORTS_DIR};

    /// The record `id`: `records/AUD-7.json`.
    #[must_use]
    pub fn record_path(id: &AuditId) -> String {
        format!("{RECORDS_DIR}{id}.json")
    }

    /// Where a version-1 path moves in version 2; `None` for a path that does not move
    /// (`patterns.json`) or is not one of the layout's.
    #[must_use]
    pub fn moved(path: &str) -> Option<String> {
        if let Some((id, run)) = report_at(path) {
            return Some(super::report_path(&id, run));
        }
        let file = path.strip_prefix(RECORDS_DIR)?;
        let (stem, md) = match (file.strip_suffix(".json"), file.strip_suffix(".md")) {
            (Some(stem), _) => (stem, false),
            (None, Some(stem)) => (stem, true),
            (None, None) => return None,
        };
        let id = AuditId::new(stem).ok()?;
        Some(if md {
            super::record_md_path(&id)
        } else {
            super::record_path(&id)
        })
    }

    /// The record and run of a version-1 report path (`reports/AUD-7/run-1.json`).
    #[must_use]
    pub(crate) fn report_at(path: &str) -> Option<(AuditId, u32)> {
        let (id, file) = path.strip_prefix(REPORTS_DIR)?.split_once('/')?;
        let run = file.strip_prefix("run-")?.strip_suffix(".json")?;
        let run: u32 = run.parse().ok().filter(|r| *r > 0)?;
        Some((AuditId::new(id).ok()?, run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> AuditId {
        AuditId::from_number(n)
    }

    #[test]
    fn paths_fan_out_by_thousands() {
        assert_eq!(record_path(&id(7)), "records/000/AUD-7.json");
        assert_eq!(record_md_path(&id(7)), "records/000/AUD-7.md");
        assert_eq!(report_path(&id(7), 1), "reports/000/AUD-7/run-1.json");
        assert_eq!(record_path(&id(1000)), "records/001/AUD-1000.json");
        assert_eq!(record_path(&id(123_456)), "records/123/AUD-123456.json");
        assert_eq!(record_at("records/000/AUD-7.json"), Some(id(7)));
        assert_eq!(record_at("records/001/AUD-7.json"), None);
        assert_eq!(record_at("records/000/AUD-7.md"), None);
        assert_eq!(record_at("records/AUD-7.json"), None);
    }

    #[test]
    fn shards_are_three_hex_digits_of_the_keys_hash() {
        let path = shard_path(IndexMap::Pulls, "42");
        let hex = hex::encode(Sha256::digest(b"42"));
        assert_eq!(
            path,
            format!("index/pulls/{}/{}.json", &hex[..2], &hex[2..3])
        );
        assert_eq!(shard_at(&path), Some(IndexMap::Pulls));
        for bad in [
            "index/pulls/3f.json",
            "index/x/3f/a.json",
            "index/pulls/3f/ab.json",
        ] {
            assert_eq!(shard_at(bad), None, "{bad}");
        }
    }

    #[test]
    fn version_one_paths_move_and_runs_keep_their_report() {
        assert_eq!(
            v1::moved("records/AUD-7.json").unwrap(),
            record_path(&id(7))
        );
        assert_eq!(
            v1::moved("records/AUD-7.md").unwrap(),
            record_md_path(&id(7))
        );
        assert_eq!(
            v1::moved("reports/AUD-7/run-2.json").unwrap(),
            report_path(&id(7), 2)
        );
        assert_eq!(v1::moved("patterns.json"), None);
        assert_eq!(v1::moved("index.json"), None);
        assert_eq!(
            stored_report("reports/AUD-7/run-2.json"),
            report_path(&id(7), 2)
        );
        assert_eq!(
            stored_report(&report_path(&id(7), 2)),
            report_path(&id(7), 2)
        );
    }
}
