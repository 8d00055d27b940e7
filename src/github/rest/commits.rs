//! Whether two commits hold the same content, from one comparison: GitHub's compare names
//! the base commit's tree and, for each commit on the head's side, its tree.

use serde::Deserialize;

use super::{path, COMPARE};
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

#[derive(Deserialize)]
struct Tree {
    sha: String,
}

#[derive(Deserialize)]
struct GitCommit {
    tree: Tree,
}

#[derive(Deserialize)]
struct Commit {
    sha: String,
    commit: GitCommit,
}

#[derive(Deserialize)]
struct Comparison {
    base_commit: Commit,
    #[serde(default)]
    commits: Vec<Commit>,
}

/// Whether `head`'s git tree is byte for byte `base`'s (two trees with one SHA hold the
/// same bytes). `None` when the comparison cannot tell: a commit GitHub does not know, or
/// a head that is not among the (at most 250) commits the comparison lists, such as an
/// ancestor of `base`; the caller then treats the content as changed.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function does
/// not expect, or sends an answer that cannot be read.
pub(crate) async fn same_tree(
    api: &Api,
    repo: &RepoName,
    base: &CommitSha,
    head: &CommitSha,
) -> Result<Option<bool>, GitHubError> {
    let call = Call::get(COMPARE, path(repo, &format!("compare/{base}...{head}")));
    let r = api.send(call).await?;
    match r.status {
        404 | 422 => Ok(None),
        s if (200..300).contains(&s) => {
            let body: Comparison = r.json(COMPARE)?;
            let head_tree = body
                .commits
                .iter()
                .rev()
                .find(|c| c.sha == head.as_str())
                .map(|c| &c.commit.tree.sha);
            Ok(head_tree.map(|t| t == &body.base_commit.commit.tree.sha))
        }
        _ => Err(status_error(COMPARE, &r)),
    }
}
