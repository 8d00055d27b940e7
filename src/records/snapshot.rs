//! The records branch as one read saw it: the paths at a commit and the files read. The
//! reader makes it and the cache keeps what it holds, so it sits below both.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::ids::{CommitSha, ObjectSha};

/// Path -> text content.
pub type Files = BTreeMap<String, String>;

/// The records branch at one commit: which paths exist, and the content of those read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// `None`: the branch does not exist yet.
    pub commit: Option<CommitSha>,
    /// The parents of `commit` (one on a linear records branch, none for its first commit).
    pub parents: Vec<CommitSha>,
    /// The files read, by path.
    pub files: Files,
    /// The root tree of `commit`, the base of the next commit's tree.
    pub(super) tree: Option<ObjectSha>,
    /// Every blob on the branch, read or not, with its SHA (`None` once written by us and
    /// not read back).
    pub(super) blobs: Arc<BTreeMap<String, Option<ObjectSha>>>,
    /// Layout version 2's reads go by path: the paths asked (found or not), `blobs` then
    /// holding those found. `None`: `blobs` is the branch's whole listing.
    pub(super) probed: Option<Arc<BTreeSet<String>>>,
    /// The branch's layout version (`0`: no branch yet).
    pub(super) layout: u32,
}

impl Snapshot {
    /// Whether `path` exists on the branch, whether or not it was read (on a branch read by
    /// path: whether it was asked for and found).
    #[must_use]
    pub fn contains(&self, path: &str) -> bool {
        self.blobs.contains_key(path)
    }

    /// Whether `path` is known not to exist: listed without it, or asked for and not found.
    #[must_use]
    pub fn is_absent(&self, path: &str) -> bool {
        !self.contains(path) && self.probed.as_ref().is_none_or(|p| p.contains(path))
    }

    /// The branch's layout version (`0`: no branch yet).
    #[must_use]
    pub fn layout(&self) -> u32 {
        self.layout
    }

    /// On a branch read by path, the paths asked (found or not); `None`: listed whole.
    #[must_use]
    pub fn probed(&self) -> Option<&BTreeSet<String>> {
        self.probed.as_deref()
    }

    /// Every file path on the branch (on a branch read by path: those found).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.blobs.keys().map(String::as_str)
    }

    /// The blob SHA of `path` on the branch, when it exists and was not written by us since.
    pub(crate) fn blob_sha(&self, path: &str) -> Option<&ObjectSha> {
        self.blobs.get(path).and_then(Option::as_ref)
    }

    /// A file's content, if it was read.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }
}

/// New content by path; other files stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub files: BTreeMap<String, String>,
}
