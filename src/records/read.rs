//! Reading the records branch: ref, commit, recursive tree, then only the blobs the caller
//! wants, fetched concurrently. The cost does not grow with the number of records.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::try_join_all;

use super::wire::{self, BlobBody, CommitBody, RefBody, TreeBody};
use crate::github::{api::status_error, Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

/// Path -> text content.
pub type Files = BTreeMap<String, String>;

/// How many times `wanted` is asked again after new files arrive ("read the index, then
/// the record it names" takes two rounds).
pub const MAX_LOAD_ROUNDS: usize = 3;

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
    pub(super) tree: Option<CommitSha>,
    /// Every blob on the branch, read or not, with its SHA (`None` once written by us and
    /// not read back).
    pub(super) blobs: BTreeMap<String, Option<CommitSha>>,
}

impl Snapshot {
    /// Whether `path` exists on the branch, whether or not it was read.
    pub fn contains(&self, path: &str) -> bool {
        self.blobs.contains_key(path)
    }

    /// Every file path on the branch.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.blobs.keys().map(String::as_str)
    }

    /// The blob SHA of `path` on the branch, when it exists and was not written by us since.
    pub fn blob_sha(&self, path: &str) -> Option<&CommitSha> {
        self.blobs.get(path).and_then(Option::as_ref)
    }

    /// A file's content, if it was read.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }
}

pub(super) fn repo_path(repo: &RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}

/// The commit the branch points at, `None` when it does not exist.
pub async fn read_ref(
    api: &Api,
    repo: &RepoName,
    branch: &str,
) -> Result<Option<CommitSha>, GitHubError> {
    wire::check_branch(branch)?;
    let call = Call::get(
        wire::GET_REF,
        repo_path(repo, &format!("git/ref/{}", wire::head_path(branch))),
    );
    let r = api.send(call).await?;
    if r.status == 404 {
        return Ok(None);
    }
    if !r.is_success() {
        return Err(status_error(wire::GET_REF, &r));
    }
    let body: RefBody = r.json(wire::GET_REF)?;
    if body.object.kind != "commit" {
        return Err(GitHubError::Decode {
            route: wire::GET_REF,
            message: format!("heads/{branch} points at a {}", body.object.kind),
        });
    }
    wire::object_sha(wire::GET_REF, &body.object.sha).map(Some)
}

/// Reads the branch. `wanted(path, files_read_so_far)` picks the blobs to read; it is asked
/// again whenever a round brought new files, at most [`MAX_LOAD_ROUNDS`] rounds, so a
/// caller can read `index.json` and then the record the index names.
pub async fn read(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    wanted: impl Fn(&str, &Files) -> bool,
) -> Result<Snapshot, GitHubError> {
    wire::check_branch(branch)?;
    let Some(commit) = read_ref(api, repo, branch).await? else {
        return Ok(Snapshot::default());
    };
    read_at(api, repo, commit, &wanted).await
}

/// Reads the records as they were at `commit` (which need not be the branch head).
pub async fn read_at(
    api: &Api,
    repo: &RepoName,
    commit: CommitSha,
    wanted: &impl Fn(&str, &Files) -> bool,
) -> Result<Snapshot, GitHubError> {
    let path = repo_path(repo, &format!("git/commits/{commit}"));
    let body: CommitBody = api.json(Call::get(wire::GET_COMMIT, path)).await?;
    if body.sha != commit.as_str() {
        return Err(GitHubError::Decode {
            route: wire::GET_COMMIT,
            message: format!("asked for {commit}, got {}", body.sha),
        });
    }
    let tree_sha = wire::object_sha(wire::GET_COMMIT, &body.tree.sha)?;
    let path = repo_path(repo, &format!("git/trees/{tree_sha}?recursive=1"));
    let tree: TreeBody = api.json(Call::get(wire::GET_TREE, path)).await?;
    if tree.sha != tree_sha.as_str() {
        return Err(GitHubError::Decode {
            route: wire::GET_TREE,
            message: format!("asked for tree {tree_sha}, got {}", tree.sha),
        });
    }
    let blobs = wire::blob_paths(tree)?;
    let parents = body
        .parents
        .iter()
        .map(|p| wire::object_sha(wire::GET_COMMIT, &p.sha))
        .collect::<Result<_, _>>()?;
    let mut snapshot = Snapshot {
        commit: Some(commit),
        parents,
        files: Files::new(),
        tree: Some(tree_sha),
        blobs: blobs.into_iter().map(|(p, s)| (p, Some(s))).collect(),
    };
    for _ in 0..MAX_LOAD_ROUNDS {
        let round: BTreeSet<(&String, &CommitSha)> = snapshot
            .blobs
            .iter()
            .filter(|(p, _)| !snapshot.files.contains_key(*p) && wanted(p, &snapshot.files))
            .filter_map(|(p, s)| s.as_ref().map(|s| (p, s)))
            .collect();
        if round.is_empty() {
            break;
        }
        let loaded =
            try_join_all(round.into_iter().map(|(p, s)| load_blob(api, repo, p, s))).await?;
        snapshot.files.extend(loaded);
    }
    Ok(snapshot)
}

/// The blob SHA of `path` at records commit `commit`, without reading any blob: `Ok(None)`
/// when the commit is unknown to GitHub or holds no such file.
pub async fn blob_at(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
    path: &str,
) -> Result<Option<CommitSha>, GitHubError> {
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

async fn load_blob(
    api: &Api,
    repo: &RepoName,
    path: &str,
    sha: &CommitSha,
) -> Result<(String, String), GitHubError> {
    let call = Call::get(wire::GET_BLOB, repo_path(repo, &format!("git/blobs/{sha}")));
    let blob: BlobBody = api.json(call).await?;
    Ok((path.to_owned(), wire::blob_text(path, blob)?))
}
