//! The records branch as one read saw it: the paths at a commit and the files read. The
//! reader makes it and the cache keeps what it holds, so it sits below both.

use std::collections::BTreeMap;
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
}

impl Snapshot {
    /// Whether `path` exists on the branch, whether or not it was read.
    #[must_use]
    pub fn contains(&self, path: &str) -> bool {
        self.blobs.contains_key(path)
    }

    /// Every file path on the branch.
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
