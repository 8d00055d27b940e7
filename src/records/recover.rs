//! Recreating a records branch that disappeared, at a records commit the app named before
//! (a check run's `external_id`), so its history continues instead of starting over.

use serde::Deserialize;

use super::wire::repo_path;
use super::wire::{self, NewRef};
use crate::github::{api::status_error, Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

#[derive(Deserialize)]
struct CommitMessage {
    #[serde(default)]
    message: String,
}

/// Whether `sha` is a commit of `repo` that the app wrote on a records branch (its
/// message has a line ending in `[skip ci]`, as every records commit's does).
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn is_records_commit(
    api: &Api,
    repo: &RepoName,
    sha: &CommitSha,
) -> Result<bool, GitHubError> {
    let path = repo_path(repo, &format!("git/commits/{sha}"));
    let r = api.send(Call::get(wire::GET_COMMIT, path)).await?;
    match r.status {
        404 | 409 | 422 => Ok(false),
        s if (200..300).contains(&s) => {
            let body: CommitMessage = r.json(wire::GET_COMMIT)?;
            Ok(body
                .message
                .lines()
                .any(|l| l.trim_end().ends_with("[skip ci]")))
        }
        _ => Err(status_error(wire::GET_COMMIT, &r)),
    }
}

/// Creates `branch` at `sha`. `false` when it exists already (someone recreated it first),
/// which the caller's next read sees.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn create_branch(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    sha: &CommitSha,
) -> Result<bool, GitHubError> {
    wire::check_branch(branch)?;
    let body = NewRef {
        name: format!("refs/heads/{branch}"),
        sha: sha.as_str(),
    };
    let call = Call::post(wire::POST_REF, repo_path(repo, "git/refs"), &body).idempotent(false);
    let r = api.send(call).await?;
    match r.status {
        s if (200..300).contains(&s) => Ok(true),
        422 => Ok(false),
        _ => Err(status_error(wire::POST_REF, &r)),
    }
}
