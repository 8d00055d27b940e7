//! What one delivery read ahead for its decision and views (see `ahead.rs`): the PR's
//! review threads that are ours, the diff's lines, the cited files' versions.

use std::sync::Mutex;

use crate::engine::ledger::late::FileVersions;
use crate::engine::views::threads::{parse_marker, Diff, SeenThread};
use crate::github::first_reads::ThreadNode;

/// What was read ahead, kept for the decision and the views.
#[derive(Debug, Default)]
pub(crate) struct AheadReads {
    inner: Mutex<Read>,
}

#[derive(Debug, Default)]
struct Read {
    threads: Option<Vec<SeenThread>>,
    /// Older threads than those read exist: one of them may be a finding's, so no new
    /// thread is posted (it could be a second one).
    threads_cut: bool,
    diff: Option<Diff>,
    versions: FileVersions,
}

impl AheadReads {
    fn lock(&self) -> std::sync::MutexGuard<'_, Read> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps the threads whose first comment is ours (`slug`, as GraphQL names a bot) and
    /// carries a finding's marker: a marker anyone else wrote is only text. `cut`: GitHub
    /// has older threads than these.
    pub(crate) fn saw_threads(&self, nodes: &[ThreadNode], cut: bool, slug: &str) {
        let ours = nodes
            .iter()
            .filter_map(|t| {
                let first = t.comments.nodes.first()?;
                let by_us = first.author.as_ref().is_some_and(|a| {
                    a.login == slug || a.login.strip_suffix("[bot]") == Some(slug)
                });
                let (record, key) = parse_marker(&first.body).filter(|_| by_us)?;
                Some(SeenThread {
                    id: t.id.clone(),
                    record,
                    key,
                    path: t.path.clone(),
                    line: t.line,
                    start_line: t.start_line,
                    resolved: t.is_resolved,
                })
            })
            .collect();
        let mut read = self.lock();
        read.threads = Some(ours);
        read.threads_cut = cut;
    }

    /// Whether every thread of the PR was read: only then may a new one be posted.
    pub(crate) fn threads_whole(&self) -> bool {
        !self.lock().threads_cut
    }

    pub(crate) fn saw_versions(&self, versions: FileVersions) {
        self.lock().versions.extend(versions);
    }

    pub(crate) fn saw_diff(&self, diff: Diff) {
        self.lock().diff = Some(diff);
    }

    /// The threads, when they were read.
    pub(crate) fn threads(&self) -> Option<Vec<SeenThread>> {
        self.lock().threads.clone()
    }

    pub(crate) fn diff(&self) -> Option<Diff> {
        self.lock().diff.clone()
    }

    pub(crate) fn versions(&self) -> FileVersions {
        self.lock().versions.clone()
    }
}
