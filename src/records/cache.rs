//! What the process already knows of each records branch: the commit it was last seen at
//! (with the ref's `ETag`, so the next look is a conditional request), its tree, and the
//! file contents read or written, each tied to the blob it came from. Git objects never
//! change, so a commit seen once is known for good; only the ref is asked again, which is
//! what keeps every replica correct. Bounded: a branch keeps at most
//! [`MAX_BRANCH_BYTES`] of file text, the process at most [`MAX_BRANCHES`] branches.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use super::snapshot::{Files, Snapshot};
use crate::engine::layout::{shard_at, shard_path, IndexMap, INDEX_PATH, NEXT_PATH};
use crate::engine::record::{shards, Index};
use crate::ids::{AuditId, CommitSha, ObjectSha, PrNumber, RepoName};

pub(crate) const MAX_BRANCHES: usize = 256;
pub(crate) const MAX_BRANCH_BYTES: usize = 32 * 1024 * 1024;

/// A file's text and the blob it is (`None`: written by us, blob SHA not asked for).
#[derive(Debug, Clone)]
pub(super) struct Known {
    pub(crate) sha: Option<ObjectSha>,
    pub(crate) text: Arc<str>,
}

/// One branch at one commit.
#[derive(Debug, Clone)]
pub(super) struct Branch {
    pub(crate) etag: Option<String>,
    pub(crate) commit: CommitSha,
    pub(crate) parents: Vec<CommitSha>,
    pub(crate) tree: Option<ObjectSha>,
    pub(crate) blobs: Arc<BTreeMap<String, Option<ObjectSha>>>,
    pub(crate) contents: HashMap<String, Known>,
    /// Read by path (layout version 2): the paths asked, found or not (see [`Snapshot`]).
    pub(crate) probed: Option<Arc<BTreeSet<String>>>,
    /// The layout version.
    pub(crate) layout: u32,
    /// The last read found the branch moved by someone else (another replica): the next
    /// read likely will too, so the first reads ask for the files ahead.
    pub(crate) moved: bool,
}

impl Branch {
    /// The text of `path` at this commit, if known.
    pub(crate) fn text(&self, path: &str) -> Option<&Arc<str>> {
        let blob = self.blobs.get(path)?;
        self.contents
            .get(path)
            .filter(|k| &k.sha == blob)
            .map(|k| &k.text)
    }

    /// What a read by path found of `path` at this commit: its blob and text, or nothing.
    pub(crate) fn learn(&mut self, path: &str, found: Option<(ObjectSha, &str)>) {
        Arc::make_mut(self.probed.get_or_insert_with(Default::default)).insert(path.to_owned());
        if let Some((sha, text)) = found {
            Arc::make_mut(&mut self.blobs).insert(path.to_owned(), Some(sha.clone()));
            let known = Known {
                sha: Some(sha),
                text: text.into(),
            };
            self.contents.insert(path.to_owned(), known);
        }
    }

    fn bytes(&self) -> usize {
        self.contents.values().map(|k| k.text.len()).sum()
    }

    /// Keeps the cache bounded: drops what can be read again (texts with a known blob).
    fn trim(&mut self) {
        if self.bytes() > MAX_BRANCH_BYTES {
            self.contents.retain(|_, k| k.sha.is_none());
        }
    }
}

#[derive(Default)]
pub struct RecordsCache {
    branches: Mutex<HashMap<String, Arc<Branch>>>,
}

fn key(repo: &RepoName, branch: &str) -> String {
    format!("{}\n{branch}", repo.as_str().to_ascii_lowercase())
}

impl RecordsCache {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Branch>>> {
        self.branches
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn get(&self, repo: &RepoName, branch: &str) -> Option<Arc<Branch>> {
        self.map().get(&key(repo, branch)).cloned()
    }

    /// The text of `path` at the commit the process last knew the branch at, if it knows
    /// it: a guess at what is there now, for reads asked ahead, never for a decision.
    pub(crate) fn known_file(&self, repo: &RepoName, branch: &str, path: &str) -> Option<Arc<str>> {
        self.get(repo, branch)?.text(path).cloned()
    }

    /// The record the index mapped PR `pr` to at the commit this process last knew the
    /// branch at, when it knows: the PR's shard on layout version 2, `index.json` on 1 (a
    /// guess, as [`Self::known_file`]; never the whole index assembled).
    pub(crate) fn known_pull(
        &self,
        repo: &RepoName,
        branch: &str,
        pr: PrNumber,
    ) -> Option<AuditId> {
        let known = self.get(repo, branch)?;
        let key = pr.0.to_string();
        if known.layout >= 2 {
            let text = known.text(&shard_path(IndexMap::Pulls, &key))?;
            let shard: BTreeMap<String, AuditId> = serde_json::from_str(text).ok()?;
            return shard.get(&key).cloned();
        }
        Index::parse(known.text(INDEX_PATH)?)
            .ok()?
            .record_for_pull(pr)
            .cloned()
    }

    /// The paths `wanted` would name if the branch held what this process last knew of it
    /// (a guess at what to ask ahead, see `read::likely_moved`), the index assembled from
    /// the files named, as a read assembles it.
    pub(crate) fn likely_paths(
        &self,
        repo: &RepoName,
        branch: &str,
        wanted: &impl super::Wanted,
    ) -> Vec<String> {
        let Some(known) = self.get(repo, branch) else {
            return wanted.named(&Files::new()).unwrap_or_default();
        };
        let mut files = Files::new();
        let mut named = wanted.named(&files).unwrap_or_default();
        for _ in 0..super::wanted::MAX_LOAD_ROUNDS {
            for path in &named {
                let path = if path == INDEX_PATH && known.layout >= 2 {
                    NEXT_PATH
                } else {
                    path
                };
                if let Some(text) = known.text(path) {
                    files.insert(path.to_owned(), text.to_string());
                }
            }
            if let Some(next) = files.get(NEXT_PATH) {
                let read = files.iter().filter(|(p, _)| shard_at(p).is_some());
                if let Ok(index) = shards::assemble(next, read) {
                    files.insert(INDEX_PATH.to_owned(), index.to_json());
                }
            }
            named = wanted.named(&files).unwrap_or_default();
        }
        named
    }

    /// Whether this process knows what `paths` hold at the commit it last knew the branch
    /// at (listed whole, or each asked by path): a branch it does not know, it does not.
    pub(crate) fn knows(&self, repo: &RepoName, branch: &str, paths: &[String]) -> bool {
        let Some(known) = self.get(repo, branch) else {
            return paths.is_empty();
        };
        match &known.probed {
            None => true,
            Some(probed) => paths.iter().all(|p| probed.contains(p)),
        }
    }

    /// The first reads of a delivery found the branch at `head`: whether someone else
    /// moved it since this process last knew it, which the next delivery's first reads
    /// go by (see `read::likely_moved`).
    pub(crate) fn saw_head(&self, repo: &RepoName, branch: &str, head: Option<&CommitSha>) {
        let mut map = self.map();
        if let Some(c) = map.get_mut(&key(repo, branch)) {
            let moved = Some(&c.commit) != head;
            if c.moved != moved {
                Arc::make_mut(c).moved = moved;
            }
        }
    }

    pub(super) fn forget(&self, repo: &RepoName, branch: &str) {
        self.map().remove(&key(repo, branch));
    }

    pub(super) fn put(&self, repo: &RepoName, branch: &str, mut entry: Branch) {
        entry.trim();
        let mut map = self.map();
        if map.len() >= MAX_BRANCHES && !map.contains_key(&key(repo, branch)) {
            map.clear();
        }
        map.insert(key(repo, branch), Arc::new(entry));
    }

    /// Records a commit we made on top of `base`: its tree is `base`'s with `written`
    /// replaced, so nothing of it needs reading back. Ignored when the cache has already
    /// moved past `base` (another delivery wrote since).
    pub(super) fn committed(
        &self,
        repo: &RepoName,
        branch: &str,
        base: &Snapshot,
        written: &Files,
        commit: &CommitSha,
        tree: &ObjectSha,
    ) {
        let cached = self.get(repo, branch);
        if let Some(c) = &cached {
            if Some(&c.commit) != base.commit.as_ref() {
                return;
            }
        }
        // Unknown before: someone else may be writing too, until a look says otherwise.
        let moved = cached.as_ref().is_none_or(|c| c.moved);
        let mut contents = cached.map(|c| c.contents.clone()).unwrap_or_default();
        for (path, text) in &base.files {
            let sha = base.blobs.get(path).cloned().flatten();
            contents.insert(
                path.clone(),
                Known {
                    sha,
                    text: text.as_str().into(),
                },
            );
        }
        // The index a version-2 read assembled is no file of the branch.
        if base.probed.is_some() {
            contents.remove(INDEX_PATH);
        }
        let mut blobs = (*base.blobs).clone();
        let mut probed = base.probed.as_deref().cloned();
        for (path, text) in written {
            blobs.insert(path.clone(), None);
            if let Some(p) = &mut probed {
                p.insert(path.clone());
            }
            contents.insert(
                path.clone(),
                Known {
                    sha: None,
                    text: text.as_str().into(),
                },
            );
        }
        // A file whose blob is not known must have its text here, or a later read could not
        // load it; that happens when another delivery replaced the entry of `base` while
        // this one wrote. Then the next read asks GitHub instead.
        let unreadable = blobs
            .iter()
            .any(|(p, s)| s.is_none() && contents.get(p).is_none_or(|k| k.sha.is_some()));
        if unreadable {
            self.forget(repo, branch);
            return;
        }
        self.put(
            repo,
            branch,
            Branch {
                etag: None,
                commit: commit.clone(),
                parents: base.commit.iter().cloned().collect(),
                tree: Some(tree.clone()),
                blobs: Arc::new(blobs),
                contents,
                probed: probed.map(Arc::new),
                // A branch this process created holds this build's layout.
                layout: match base.commit {
                    None => crate::engine::layout::LAYOUT_VERSION,
                    Some(_) => base.layout,
                },
                moved,
            },
        );
    }
}
