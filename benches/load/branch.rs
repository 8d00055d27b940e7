//! The records branch as the fake holds it, read as the app lays it out
//! (docs/reference.md#layout-version-2), through the engine's own paths: the index
//! assembled from `next.json` and every shard, each record in its bucket. A version-1
//! branch (one `index.json`) is read too, as the app reads it.

use std::collections::BTreeMap;

use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::{
    record_path, shard_at, shard_path, IndexMap, INDEX_PATH, LAYOUT_PATH, NEXT_PATH,
};
use auditloop::engine::record::shards::{assemble, layout_json, split};
use auditloop::engine::record::Index;
use auditloop_fake_github::git::GitRepo;

/// One commit of a repository's git data: its flattened tree and the blobs it names.
pub struct Tree<'g> {
    git: &'g GitRepo,
    files: &'g BTreeMap<String, String>,
}

impl<'g> Tree<'g> {
    /// The tree of `commit`.
    pub fn at(git: &'g GitRepo, commit: &str) -> Option<Tree<'g>> {
        Some(Tree {
            git,
            files: git.tree_of(commit)?,
        })
    }

    /// The tree at the head of the ref `name` (`heads/...`).
    pub fn head(git: &'g GitRepo, name: &str) -> Option<Tree<'g>> {
        Tree::at(git, git.refs.get(name)?)
    }

    /// The text of `path`.
    pub fn text(&self, path: &str) -> Option<&'g String> {
        self.git.blobs.get(self.files.get(path)?)
    }

    /// Whether the branch is in layout version 2 (it has `next.json`).
    fn sharded(&self) -> bool {
        self.files.contains_key(NEXT_PATH)
    }

    /// The whole index: `next.json` and every shard assembled, or a version-1 `index.json`.
    pub fn index(&self) -> Result<Index, String> {
        if !self.sharded() {
            let text = self
                .text(INDEX_PATH)
                .ok_or("neither next.json nor index.json")?;
            return Index::parse(text).map_err(|e| format!("{INDEX_PATH}: {e}"));
        }
        let next = self.text(NEXT_PATH).ok_or("no next.json")?;
        let shards = self
            .files
            .range::<str, _>((
                std::ops::Bound::Included("index/"),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(p, _)| p.starts_with("index/"))
            .filter(|(p, _)| shard_at(p).is_some())
            .map(|(p, blob)| (p, self.git.blobs.get(blob)));
        let mut texts = Vec::new();
        for (path, text) in shards {
            texts.push((path, text.ok_or_else(|| format!("{path}: no blob"))?));
        }
        assemble(next, texts)
    }

    /// The record `key` names in `map`, read from its one shard.
    pub fn lookup(&self, map: IndexMap, key: &str) -> Option<AuditId> {
        if !self.sharded() {
            let index = self.index().ok()?;
            let whole = match map {
                IndexMap::WorkUnits => index.work_units,
                IndexMap::Pulls => index.pulls,
                IndexMap::Invocations => index.invocations,
                IndexMap::Receipts => index.receipts,
                IndexMap::Tasks => index.tasks,
            };
            return whole.get(key).cloned();
        }
        let text = self.text(&shard_path(map, key))?;
        let shard: BTreeMap<String, AuditId> = serde_json::from_str(text).ok()?;
        shard.get(key).cloned()
    }

    /// The record of pull request `pr`.
    pub fn pull(&self, pr: u64) -> Option<AuditId> {
        self.lookup(IndexMap::Pulls, &pr.to_string())
    }

    /// The text of record `id`, where the branch's layout keeps it.
    pub fn record(&self, id: &AuditId) -> Option<&'g String> {
        if self.sharded() {
            self.text(&record_path(id))
        } else {
            self.text(&auditloop::engine::layout::v1::record_path(id))
        }
    }
}

/// The record id of pull request `pr` on `repo`'s records branch at its head.
pub fn pull_record(git: &GitRepo, branch: &str, pr: u64) -> Option<AuditId> {
    Tree::head(git, branch)?.pull(pr)
}

/// The text of pull request `pr`'s record at the head of `branch`.
pub fn pull_record_text(git: &GitRepo, branch: &str, pr: u64) -> Option<String> {
    let tree = Tree::head(git, branch)?;
    tree.record(&tree.pull(pr)?).cloned()
}

/// The files that give a version-2 branch, whose index is `index`, `records - 1` more
/// records beside AUD-1: each a copy of AUD-1's `record` text under its own id, bound to
/// pull request `10_000 + i` with its work unit, one invocation and one receipt, every key
/// in its shard. Returned with the index they make (`next.json` and every shard written
/// whole, so none is left out of date).
pub fn seeded(index: &Index, record: &str, records: u64) -> (Vec<(String, String)>, Index) {
    let mut index = index.clone();
    let extra = records.saturating_sub(1);
    let mut files = Vec::new();
    for n in 2..=extra + 1 {
        let id = AuditId::from_number(n);
        let pr = 10_000 + n - 2;
        index.pulls.insert(pr.to_string(), id.clone());
        index.work_units.insert(format!("pr:{pr}"), id.clone());
        index
            .invocations
            .insert(format!("ci-run-{pr}-1"), id.clone());
        index.receipts.insert(format!("r-{pr}-1"), id.clone());
        files.push((record_path(&id), record.replace("AUD-1", id.as_str())));
    }
    index.next = index.next.max(extra + 2);
    files.push((LAYOUT_PATH.to_owned(), layout_json()));
    files.extend(split(&index));
    (files, index)
}
