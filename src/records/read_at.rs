//! Reads of the records at a commit that need not be the branch head, for the lineage
//! check: never cached, since it must see what GitHub holds.

use std::sync::Arc;

use super::by_path;
use super::cache::Branch;
use super::read::load;
use super::snapshot::Snapshot;
use super::wanted::Wanted;
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, ObjectSha, RepoName};

/// Reads the records as they were at `commit` (which need not be the branch head). Not
/// cached: it is asked only to check the branch's lineage, which must see what GitHub holds.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn read_at(
    api: &Api,
    repo: &RepoName,
    commit: CommitSha,
    wanted: &impl Wanted,
) -> Result<Snapshot, GitHubError> {
    // Read by path, its tree and parents are not needed (a version-1 branch is listed,
    // which reads them).
    let mut branch_state = Branch {
        etag: None,
        commit,
        parents: Vec::new(),
        tree: None,
        blobs: Arc::default(),
        contents: std::collections::HashMap::new(),
        probed: Some(Arc::default()),
        layout: 0,
        moved: false,
    };
    let files = load(api, repo, &mut branch_state, wanted, None, None).await?;
    Ok(Snapshot {
        commit: Some(branch_state.commit),
        parents: branch_state.parents,
        files,
        tree: branch_state.tree,
        blobs: branch_state.blobs,
        probed: branch_state.probed,
        layout: branch_state.layout,
    })
}

/// The blob SHA of `path` at records commit `commit`, read by path: `Ok(None)` when the
/// commit is unknown to GitHub or holds no such file.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub fails, or an answer cannot be read.
pub(crate) async fn blob_at(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
    path: &str,
) -> Result<Option<ObjectSha>, GitHubError> {
    let mut found = by_path::read(api, repo, commit, &[path.to_owned()]).await?;
    Ok(found.remove(path).flatten().map(|(sha, _)| sha))
}
