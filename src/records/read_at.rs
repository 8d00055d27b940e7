//! Reads of the records at a commit that need not be the branch head, for the lineage
//! check: never cached, since it must see what GitHub holds.

use std::sync::Arc;

use super::cache::Branch;
use super::read::{load, read_tree_of, repo_path};
use super::snapshot::Snapshot;
use super::wanted::Wanted;
use super::wire::{self, CommitBody, TreeBody};
use crate::github::{api::status_error, Api, Call, GitHubError};
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
    let (tree, parents, blobs) = read_tree_of(api, repo, &commit).await?;
    let mut branch_state = Branch {
        etag: None,
        commit,
        parents,
        tree: Some(tree),
        blobs: Arc::new(blobs),
        contents: std::collections::HashMap::default(),
        moved: false,
    };
    let files = load(api, repo, &mut branch_state, wanted, None).await?;
    Ok(Snapshot {
        commit: Some(branch_state.commit),
        parents: branch_state.parents,
        files,
        tree: branch_state.tree,
        blobs: branch_state.blobs,
    })
}

/// The blob SHA of `path` at records commit `commit`, without reading any blob: `Ok(None)`
/// when the commit is unknown to GitHub or holds no such file.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn blob_at(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
    path: &str,
) -> Result<Option<ObjectSha>, GitHubError> {
    let call = Call::get(
        wire::GET_COMMIT,
        repo_path(repo, &format!("git/commits/{commit}")),
    );
    let r = api.send(call).await?;
    if matches!(r.status, 404 | 409 | 422) {
        return Ok(None);
    }
    if !r.is_success() {
        return Err(status_error(wire::GET_COMMIT, &r));
    }
    let body: CommitBody = r.json(wire::GET_COMMIT)?;
    let tree_sha = wire::object_sha(wire::GET_COMMIT, &body.tree.sha)?;
    let call = Call::get(
        wire::GET_TREE,
        repo_path(repo, &format!("git/trees/{tree_sha}?recursive=1")),
    );
    let tree: TreeBody = api.json(call).await?;
    Ok(wire::blob_paths(tree)?.remove(path))
}
