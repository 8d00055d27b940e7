//! Pull requests: read one, set its body, find the open ones on a commit.

use serde::{Deserialize, Serialize};

use super::{path, GET_PULL, LIST_PULLS, PATCH_PULL, PULLS_FOR_COMMIT, PULL_FILES};
use crate::github::pages::Listing;
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, NodeId, PrNumber, RepoName};

#[derive(Debug, Clone, Deserialize)]
pub(super) struct User {
    pub(super) login: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Head {
    sha: CommitSha,
    #[serde(rename = "ref", default)]
    name: String,
}

#[derive(Debug, Clone, Deserialize)]
struct PullBody {
    number: PrNumber,
    state: String,
    #[serde(default)]
    merged: Option<bool>,
    #[serde(default)]
    merged_at: Option<String>,
    #[serde(default)]
    body: Option<String>,
    user: User,
    head: Head,
    base: Head,
    #[serde(default)]
    node_id: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// The body of a pull request update: only the description is ever changed.
#[derive(Debug, Serialize)]
struct BodyPatch<'a> {
    body: &'a str,
}

/// A pull request as auditloop reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pull {
    pub(crate) number: PrNumber,
    pub(crate) open: bool,
    pub(crate) merged: bool,
    pub(crate) body: String,
    pub author: String,
    pub head_sha: CommitSha,
    pub(crate) base_ref: String,
    /// Its GraphQL id, when GitHub gave one that looks like one: what a mutation names it by.
    pub(crate) node_id: Option<NodeId>,
    /// Its title (empty where the read that made it does not carry one).
    pub(crate) title: String,
}

impl From<PullBody> for Pull {
    fn from(p: PullBody) -> Self {
        Pull {
            number: p.number,
            open: p.state == "open",
            merged: p.merged.unwrap_or(false) || p.merged_at.is_some(),
            body: p.body.unwrap_or_default(),
            author: p.user.login,
            head_sha: p.head.sha,
            base_ref: p.base.name,
            node_id: p.node_id.and_then(|id| NodeId::new(id).ok()),
            title: p.title.unwrap_or_default(),
        }
    }
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub async fn get_pull(api: &Api, repo: &RepoName, number: PrNumber) -> Result<Pull, GitHubError> {
    let body: PullBody = api
        .json(Call::get(
            GET_PULL,
            path(repo, &format!("pulls/{}", number.0)),
        ))
        .await?;
    Ok(body.into())
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn set_pull_body(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    body: &str,
) -> Result<(), GitHubError> {
    api.send_ok(Call::patch(
        PATCH_PULL,
        path(repo, &format!("pulls/{}", number.0)),
        &BodyPatch { body },
    ))
    .await?;
    Ok(())
}

/// Open pull requests whose head is `sha` (for fork PRs too, which check payloads omit).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn open_pulls_for_commit(
    api: &Api,
    repo: &RepoName,
    sha: &CommitSha,
) -> Result<Vec<Pull>, GitHubError> {
    let list: Vec<PullBody> = api
        .json(Call::get(
            PULLS_FOR_COMMIT,
            path(repo, &format!("commits/{sha}/pulls")),
        ))
        .await?;
    Ok(list
        .into_iter()
        .map(Pull::from)
        .filter(|p| p.open && p.head_sha == *sha)
        .collect())
}

/// The repository's open pull requests, newest first, at most `max_pages` pages of 100.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn open_pulls(
    api: &Api,
    repo: &RepoName,
    max_pages: usize,
) -> Result<Vec<Pull>, GitHubError> {
    let mut pulls = Vec::new();
    let at = path(repo, "pulls?state=open&per_page=100");
    let mut listing = Listing::new(api, LIST_PULLS, &at, max_pages);
    while let Some(answer) = listing.next_page().await? {
        let page: Vec<PullBody> = answer.json(LIST_PULLS)?;
        pulls.extend(page.into_iter().map(Pull::from).filter(|p| p.open));
    }
    Ok(pulls)
}

/// A file of a pull request's diff, with its patch (none for a binary or too large file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct PullFile {
    pub(crate) filename: String,
    #[serde(default)]
    pub(crate) patch: Option<String>,
}

/// Pages of 100 a thread's files are looked for in: GitHub lists at most 3,000 files of a
/// pull request, and threads go on the files a run cites, which are rarely past the first.
pub(crate) const PULL_FILES_PAGES: usize = 3;

/// The pull request's files, read until every path of `wanted` is found (`None`: all of
/// them), at most [`PULL_FILES_PAGES`] pages.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn pull_files(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    wanted: Option<&[String]>,
) -> Result<Vec<PullFile>, GitHubError> {
    let at = path(repo, &format!("pulls/{}/files?per_page=100", number.0));
    let mut listing = Listing::new(api, PULL_FILES, &at, PULL_FILES_PAGES);
    let mut files: Vec<PullFile> = Vec::new();
    while let Some(answer) = listing.next_page().await? {
        let page: Vec<PullFile> = answer.json(PULL_FILES)?;
        files.extend(page);
        let found = |w: &String| files.iter().any(|f| &f.filename == w);
        if wanted.is_some_and(|w| w.iter().all(found)) {
            break;
        }
    }
    Ok(files)
}
