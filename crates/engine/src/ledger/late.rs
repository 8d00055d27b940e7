//! Whether a new finding is late (docs/reference.md#the-finding-ledger): first raised in
//! run N > 1 while every file its evidence cites is unchanged since a candidate an earlier
//! run audited, so that run could have raised it. Decided when the run is accepted, from the
//! files' blob ids at each candidate as GitHub gives them, and kept with the finding.

use std::collections::{BTreeMap, BTreeSet};

use super::LedgerKey;
use crate::ids::Artifact;
use crate::record::Record;
use crate::report::evidence_ref::parse_evidence_ref;

/// The most files of one report whose versions are read.
pub(crate) const MAX_PATHS: usize = 20;

/// The blob id of a file at a candidate; `None`: the candidate has no such file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileVersions {
    at: BTreeMap<(Artifact, String), Option<String>>,
}

impl FileVersions {
    pub fn insert(&mut self, candidate: Artifact, path: String, blob: Option<String>) {
        self.at.insert((candidate, path), blob);
    }

    /// `None` when it was not read; `Some(None)`: read, and the file is absent.
    #[must_use]
    #[allow(clippy::option_option)]
    pub(crate) fn get(&self, candidate: &Artifact, path: &str) -> Option<Option<&str>> {
        self.at
            .get(&(candidate.clone(), path.to_owned()))
            .map(Option::as_deref)
    }

    /// Adds what `other` read.
    pub fn extend(&mut self, other: FileVersions) {
        self.at.extend(other.at);
    }

    /// Whether every pair of `wanted` was read.
    #[must_use]
    pub fn holds(&self, wanted: &[(Artifact, String)]) -> bool {
        wanted.iter().all(|(c, p)| self.get(c, p).is_some())
    }
}

/// The repository paths `refs` cite as `path:line` or `path:start-end`.
fn paths(refs: &[String]) -> BTreeSet<String> {
    refs.iter()
        .filter_map(|r| parse_evidence_ref(r).map(|(path, _, _)| path))
        .collect()
}

/// Whether `key` was raised by a run of `record` already.
fn raised_before(record: &Record, key: &LedgerKey) -> bool {
    record
        .runs()
        .flat_map(|r| &r.findings)
        .any(|f| &LedgerKey::of(f) == key)
}

/// The versions a report's findings are judged late on: for each finding whose key no run
/// raised yet, the files it cites, at `candidate` and at each earlier run's candidate.
/// Empty before the first run (nothing can be late then).
#[must_use]
pub fn wanted<'a>(
    record: &Record,
    candidate: &Artifact,
    findings: impl IntoIterator<Item = (LedgerKey, &'a [String])>,
) -> Vec<(Artifact, String)> {
    let mut earlier: Vec<&Artifact> = record.runs().map(|r| &r.candidate_artifact).collect();
    if earlier.is_empty() {
        return Vec::new();
    }
    earlier.push(candidate);
    earlier.sort();
    earlier.dedup();
    let mut files = BTreeSet::new();
    for (key, refs) in findings {
        if !raised_before(record, &key) {
            files.extend(paths(refs));
        }
    }
    files
        .into_iter()
        .take(MAX_PATHS)
        .flat_map(|p| earlier.iter().map(move |c| ((*c).clone(), p.clone())))
        .collect()
}

/// The earliest run whose candidate had every file `refs` cite as `candidate` has it, for
/// a finding first raised now (`key` never raised before); `None` when the finding is not
/// late, cites no file, or a version was not read.
#[must_use]
pub fn late_since(
    record: &Record,
    candidate: &Artifact,
    (key, refs): (&LedgerKey, &[String]),
    versions: &FileVersions,
) -> Option<u32> {
    let files = paths(refs);
    if files.is_empty() || raised_before(record, key) {
        return None;
    }
    let now: Vec<(&String, &str)> = files
        .iter()
        .map(|p| Some((p, versions.get(candidate, p)??)))
        .collect::<Option<_>>()?;
    record
        .runs()
        .find(|run| {
            now.iter().all(|(path, blob)| {
                versions.get(&run.candidate_artifact, path) == Some(Some(*blob))
            })
        })
        .map(|run| run.run)
}
