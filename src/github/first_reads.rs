//! The reads a comment's command decides on, as one GraphQL query: the configuration file
//! at the default branch, where the records branch is, the pull request, and the check
//! runs on its head. Four REST calls become one (about 1 point of the rate limit). Each
//! part is optional in the answer: a part GitHub does not give (or gives in a shape this
//! module does not trust) is left out, and the caller reads it through REST as before.

use serde::Deserialize;
use serde_json::json;

use crate::engine::ledger::late::FileVersions;
use crate::github::file_versions;

pub(crate) use crate::github::first_reads_extra::ThreadNode;
pub use crate::github::first_reads_extra::{document, with_more, Extra};
use crate::github::first_reads_extra::{Nodes, ThreadPage};
use crate::github::pull_commits::{page_of, CommitPage};
use crate::github::records_listing::{records_of, RefNode};
pub use crate::github::records_listing::{RecordFiles, RecordsHead};
use crate::github::rest::{AppRef, CheckOutput, CheckRunInfo, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CheckRunId, CommitSha, NodeId, PrNumber, RepoName};

pub const ROUTE: &str = "POST /graphql FirstReads";

pub use crate::github::first_reads_extra::FIRST_READS;

/// The configuration file as the query found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigBlob {
    /// No such file (or not a file) on the default branch.
    Missing,
    /// Its blob and text.
    Found { oid: String, text: String },
}

/// What the query brought; `None` parts are read through REST by whoever needs them.
#[derive(Debug, Default)]
pub struct FirstReads {
    pub config: Option<ConfigBlob>,
    /// `Some(None)`: the records branch does not exist.
    pub records: Option<Option<RecordsHead>>,
    pub pull: Option<Pull>,
    /// The latest runs on the pull request's head, every one of them.
    pub runs: Option<(CommitSha, Vec<CheckRunInfo>)>,
    /// The repository's GraphQL id, what a check run is created in through GraphQL.
    pub(crate) repository: Option<NodeId>,
    /// The first page of the accounts linked to the pull request's commits, when asked.
    pub(crate) commits: Option<CommitPage>,
    /// The pull request's newest 40 review threads, when asked.
    pub(crate) threads: Option<ThreadPage>,
    /// The open PRs of this repository whose head is the PR's head, when asked: what the
    /// gate combines, read here instead of through REST after the commit.
    pub(crate) sharing: Option<(CommitSha, Vec<Pull>)>,
    /// The blobs of the files asked for at the candidates asked for.
    pub(crate) versions: Option<FileVersions>,
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers other than a GraphQL response;
/// errors inside the answer only leave their part out.
///
/// The document is [`document`]'s, with `files.more` aliased into the records commit.
pub async fn first_reads(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    default_branch: &str,
    records_branch: &str,
    config_path: &str,
    (files, extra): (Option<RecordFiles<'_>>, Extra<'_>),
) -> Result<FirstReads, GitHubError> {
    let variables = json!({
        "owner": repo.owner(),
        "name": repo.name(),
        "number": number.0,
        "config": format!("{default_branch}:{config_path}"),
        "records": format!("refs/heads/{records_branch}"),
        "files": files.is_some(),
        "listing": files.is_some_and(|f| f.listing),
        "index": files.map_or("", |f| f.index),
        "record": files.and_then(|f| f.record).unwrap_or_default(),
        "withRecord": files.is_some_and(|f| f.record.is_some()),
        "patterns": files.map_or("", |f| f.patterns),
        "withCommits": extra.with_commits,
        "withThreads": extra.with_threads,
        "withSharing": extra.with_sharing,
    });
    let answer = api
        .graphql(
            ROUTE,
            &with_more(document(extra.versions), files),
            variables,
            true,
        )
        .await?;
    let versions = (!extra.versions.is_empty())
        .then(|| answer.data.get("repository"))
        .flatten()
        .filter(|r| r.is_object())
        .map(|r| file_versions::from_answer(r, extra.versions));
    let data: Data = match serde_json::from_value(answer.data) {
        Ok(data) => data,
        Err(e) => {
            tracing::warn!(error = %e, "first reads answer not understood; reading through REST");
            return Ok(FirstReads::default());
        }
    };
    let Some(mut repository) = data.repository else {
        return Ok(FirstReads::default());
    };
    // A part is trusted only when no error names it: GitHub nulls a field it failed on.
    let failed = |part: &str| {
        answer.errors.iter().any(|e| {
            e.path.is_empty() || e.path.get(1).and_then(serde_json::Value::as_str) == Some(part)
        })
    };
    let repository_id = repository.id.clone().and_then(|id| NodeId::new(id).ok());
    Ok(FirstReads {
        repository: repository_id,
        config: (!failed("config"))
            .then(|| config_of(repository.config))
            .flatten(),
        records: (!failed("records"))
            .then(|| records_of(repository.records, files))
            .flatten(),
        runs: if failed("pullRequest") {
            None
        } else {
            repository.pull_request.as_ref().and_then(runs_of)
        },
        commits: if failed("pullRequest") {
            None
        } else {
            let part = repository.pull_request.as_ref();
            part.and_then(|p| p.implementers.as_ref()).and_then(page_of)
        },
        sharing: if failed("pullRequest") {
            None
        } else {
            repository.pull_request.as_mut().and_then(sharing_of)
        },
        threads: if failed("pullRequest") {
            None
        } else {
            let part = repository.pull_request.as_ref();
            part.and_then(|p| p.threads.clone())
        },
        pull: if failed("pullRequest") {
            None
        } else {
            repository.pull_request.and_then(pull_of)
        },
        versions,
    })
}

fn config_of(object: Option<Object>) -> Option<ConfigBlob> {
    match object {
        None => Some(ConfigBlob::Missing),
        Some(o) if o.typename != "Blob" => Some(ConfigBlob::Missing),
        // A binary or truncated file is read through REST, which says what is wrong.
        Some(Object {
            oid: Some(oid),
            text: Some(text),
            is_truncated: Some(false),
            ..
        }) => Some(ConfigBlob::Found { oid, text }),
        Some(_) => None,
    }
}

fn pull_of(p: PullNode) -> Option<Pull> {
    Some(Pull {
        number: PrNumber(p.number),
        open: p.state == "OPEN",
        merged: p.merged || p.state == "MERGED",
        body: p.body,
        // As REST names them: a deleted account is GitHub's `ghost`, and a bot's login ends
        // with `[bot]` (GraphQL's `Bot.login` does not).
        author: match p.author {
            None => "ghost".to_owned(),
            Some(a) if a.typename == "Bot" => format!("{}[bot]", a.login),
            Some(a) => a.login,
        },
        head_sha: CommitSha::new(p.head_ref_oid).ok()?,
        base_ref: p.base_ref_name,
        node_id: p.id.and_then(|id| NodeId::new(id).ok()),
        title: p.title,
    })
}

/// The open PRs of the repository on the head, as `GET …/commits/{sha}/pulls` keeps them
/// (one from a fork is not listed there), when they were asked and the last commit is
/// the head.
fn sharing_of(p: &mut PullNode) -> Option<(CommitSha, Vec<Pull>)> {
    let commit = p.commits.nodes.last_mut()?;
    let nodes = commit.commit.sharing.take()?.nodes;
    let head = CommitSha::new(p.head_ref_oid.clone()).ok()?;
    let ok = commit.commit.oid == p.head_ref_oid;
    let pulls = nodes
        .into_iter()
        .filter(|n| !n.is_cross_repository)
        .filter_map(pull_of)
        .filter(|s| s.open && s.head_sha == head)
        .collect();
    ok.then_some((head, pulls))
}

/// The head's runs, when the answer holds all of them (a page cut short is read through
/// REST) and its last commit is the head.
fn runs_of(p: &PullNode) -> Option<(CommitSha, Vec<CheckRunInfo>)> {
    let commit = &p.commits.nodes.last()?.commit;
    if commit.oid != p.head_ref_oid || commit.check_suites.page_info.has_next_page {
        return None;
    }
    let mut runs = Vec::new();
    for suite in &commit.check_suites.nodes {
        if suite.check_runs.page_info.has_next_page {
            return None;
        }
        for run in &suite.check_runs.nodes {
            runs.push(CheckRunInfo {
                id: CheckRunId(run.database_id?),
                node_id: run.id.clone().and_then(|id| NodeId::new(id).ok()),
                name: run.name.clone(),
                status: run.status.to_ascii_lowercase(),
                conclusion: run.conclusion.as_deref().map(str::to_ascii_lowercase),
                external_id: run.external_id.clone().filter(|s| !s.is_empty()),
                app: suite.app.as_ref().map(|a| AppRef {
                    slug: Some(a.slug.clone()),
                }),
                output: Some(CheckOutput {
                    summary: run.summary.clone(),
                }),
            });
        }
    }
    Some((CommitSha::new(commit.oid.clone()).ok()?, runs))
}

#[derive(Deserialize)]
struct Data {
    repository: Option<RepositoryNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RepositoryNode {
    #[serde(default)]
    id: Option<String>,
    config: Option<Object>,
    records: Option<RefNode>,
    pull_request: Option<PullNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Object {
    #[serde(rename = "__typename")]
    typename: String,
    oid: Option<String>,
    text: Option<String>,
    is_truncated: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullNode {
    #[serde(default)]
    id: Option<String>,
    number: u64,
    state: String,
    merged: bool,
    title: String,
    body: String,
    head_ref_oid: String,
    base_ref_name: String,
    author: Option<Login>,
    /// Absent where the node is another PR listed on a commit.
    #[serde(default)]
    commits: Nodes<CommitNode>,
    #[serde(default)]
    is_cross_repository: bool,
    /// The commits' linked accounts (`...CommitIdentities`), when asked.
    #[serde(default)]
    implementers: Option<serde_json::Value>,
    #[serde(default)]
    threads: Option<ThreadPage>,
}

#[derive(Deserialize)]
struct Login {
    #[serde(rename = "__typename")]
    typename: String,
    login: String,
}

#[derive(Deserialize)]
struct CommitNode {
    commit: HeadCommit,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadCommit {
    oid: String,
    #[serde(default)]
    sharing: Option<Nodes<PullNode>>,
    check_suites: Page<Suite>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page<T> {
    page_info: PageInfo,
    nodes: Vec<T>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    has_next_page: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Suite {
    app: Option<App>,
    check_runs: Page<Run>,
}

#[derive(Deserialize)]
struct App {
    slug: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    #[serde(default)]
    id: Option<String>,
    database_id: Option<u64>,
    name: String,
    status: String,
    conclusion: Option<String>,
    external_id: Option<String>,
    summary: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_kept_only_in_a_shape_that_is_trusted() {
        assert_eq!(config_of(None), Some(ConfigBlob::Missing));
        let tree = Object {
            typename: "Tree".into(),
            oid: None,
            text: None,
            is_truncated: None,
        };
        assert_eq!(config_of(Some(tree)), Some(ConfigBlob::Missing));
        let binary = Object {
            typename: "Blob".into(),
            oid: Some("a".into()),
            text: None,
            is_truncated: Some(false),
        };
        assert_eq!(config_of(Some(binary)), None);
    }
}
