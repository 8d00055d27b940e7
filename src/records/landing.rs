//! One attempt's commit landing on the records branch: a `createCommitOnBranch` on the
//! head it was decided on, or, for a new branch, a tree, a commit and a ref create; and,
//! when an answer was lost, whether the commit landed after all.

use std::collections::BTreeMap;
use std::time::Duration;

use super::graphql::{commit_on_branch, OnBranch};
use super::read::{read_ref, repo_path};
use super::snapshot::Snapshot;
use super::wire::{self, CompareBody, NewCommit, NewEntry, NewRef, NewTree, Sha};
use crate::github::{api::status_error, Api, ApiResponse, Call, GitHubError};
use crate::ids::{CommitSha, ObjectSha, PrNumber, RepoName};

/// Tree and commit. Repeating these is harmless (objects no ref points at are never
/// seen), so they may be retried like reads.
async fn write_objects(
    api: &Api,
    repo: &RepoName,
    snapshot: &Snapshot,
    files: &BTreeMap<String, String>,
    message: &str,
) -> Result<(ObjectSha, CommitSha), GitHubError> {
    let tree = NewTree {
        base_tree: snapshot.tree.as_ref().map(ObjectSha::as_str),
        tree: files
            .iter()
            .map(|(path, content)| NewEntry {
                path,
                mode: "100644",
                kind: "blob",
                content,
            })
            .collect(),
    };
    let call = Call::post(wire::POST_TREE, repo_path(repo, "git/trees"), &tree).idempotent(true);
    let tree: Sha = api.json(call).await?;
    let tree = wire::object_sha(wire::POST_TREE, &tree.sha)?;
    let commit = NewCommit {
        message,
        tree: tree.as_str(),
        parents: snapshot.commit.iter().map(CommitSha::as_str).collect(),
    };
    let call =
        Call::post(wire::POST_COMMIT, repo_path(repo, "git/commits"), &commit).idempotent(true);
    let commit: Sha = api.json(call).await?;
    Ok((tree, wire::commit_sha(wire::POST_COMMIT, &commit.sha)?))
}

/// One attempt's commit: in one call on an existing branch, in three on a new one.
pub(super) async fn write(
    api: &Api,
    repo: &RepoName,
    (branch, body_of): (&str, Option<PrNumber>),
    snapshot: &Snapshot,
    files: &BTreeMap<String, String>,
    message: &str,
) -> Result<OnBranch, GitHubError> {
    if let Some(parent) = &snapshot.commit {
        let on = (branch, parent);
        return commit_on_branch(api, repo, on, files, message, body_of).await;
    }
    // A tree and a commit before the ref: not begun unless all three can go in time.
    if !api.ensure_booked(3) {
        return Err(GitHubError::RateLimited {
            route: wire::POST_TREE,
            wait: Duration::ZERO,
        });
    }
    let (tree, commit) = write_objects(api, repo, snapshot, files, message).await?;
    Ok(match create_branch(api, repo, branch, &commit).await? {
        Created::Done => OnBranch::Done {
            commit,
            tree,
            pull_body: None,
        },
        Created::Conflict(err) => OnBranch::Stale(err),
    })
}

enum Created {
    Done,
    Conflict(GitHubError),
}

/// The branch's first commit: a ref create, which fails when someone created it first. Not
/// retried blindly: an answer lost on the way may hide a success, which is checked instead.
async fn create_branch(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    to: &CommitSha,
) -> Result<Created, GitHubError> {
    let body = NewRef {
        name: format!("refs/heads/{branch}"),
        sha: to.as_str(),
    };
    let call = Call::post(wire::POST_REF, repo_path(repo, "git/refs"), &body);
    let answer = api.send(call.idempotent(false)).await;
    let route = wire::POST_REF;
    match answer {
        Ok(r) if r.is_success() => Ok(Created::Done),
        Ok(r) if r.status == 422 => Ok(Created::Conflict(status_error(route, &r))),
        Ok(r) if r.status >= 500 => landed_or(api, repo, branch, to, status_error(route, &r)).await,
        Err(e @ GitHubError::Transport { .. }) => landed_or(api, repo, branch, to, e).await,
        Ok(r) => Err(status_error(route, &r)),
        Err(e) => Err(e),
    }
}

/// After an unknown outcome: done if the branch holds our commit (it may already have
/// moved past it), otherwise a conflict to apply again.
async fn landed_or(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    ours: &CommitSha,
    err: GitHubError,
) -> Result<Created, GitHubError> {
    let Some(head) = read_ref(api, repo, branch).await? else {
        return Ok(Created::Conflict(err));
    };
    if &head == ours || contains(api, repo, &head, ours).await? {
        Ok(Created::Done)
    } else {
        Ok(Created::Conflict(err))
    }
}

/// Whether `ours` is in the history of `head` (GitHub's compare `ours...head` is `ahead`
/// or `identical`). A commit GitHub no longer knows is in no history.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn contains(
    api: &Api,
    repo: &RepoName,
    head: &CommitSha,
    ours: &CommitSha,
) -> Result<bool, GitHubError> {
    let path = repo_path(repo, &format!("compare/{ours}...{head}"));
    let r: ApiResponse = api.send(Call::get(wire::COMPARE, path)).await?;
    match r.status {
        404 => Ok(false),
        s if (200..300).contains(&s) => {
            let body: CompareBody = r.json(wire::COMPARE)?;
            Ok(matches!(body.status.as_str(), "ahead" | "identical"))
        }
        _ => Err(status_error(wire::COMPARE, &r)),
    }
}
