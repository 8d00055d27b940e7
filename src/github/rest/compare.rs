//! What changed between two commits, from one `GET /repos/{owner}/{repo}/compare/{basehead}`
//! (the packet's `changed_since`, docs/reference.md#the-audit-packet). GitHub lists at most
//! [`COMPARE_FILES_LIMIT`] files of a comparison, on its first page, and says nothing of
//! the rest: a full list is a truncated one.

use serde::Deserialize;

use super::{path, COMPARE};
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

/// The most files GitHub's compare lists, however many changed.
pub(crate) const COMPARE_FILES_LIMIT: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ChangedFile {
    pub(crate) filename: String,
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) previous_filename: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct Comparison {
    /// `ahead`, `behind`, `diverged` or `identical`.
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) files: Vec<ChangedFile>,
}

/// The comparison `base...head`, `None` when GitHub knows no such commits (a head pushed
/// away and collected). One page of one commit: the files come on the first page whatever
/// its size, and the commits are not wanted.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn compare(
    api: &Api,
    repo: &RepoName,
    base: &CommitSha,
    head: &CommitSha,
) -> Result<Option<Comparison>, GitHubError> {
    let call = Call::get(
        COMPARE,
        path(repo, &format!("compare/{base}...{head}?per_page=1")),
    );
    let r = api.send(call).await?;
    if matches!(r.status, 404 | 422) {
        return Ok(None);
    }
    if !r.is_success() {
        return Err(status_error(COMPARE, &r));
    }
    r.json(COMPARE).map(Some)
}
