//! The reads a comment's command decides on, as one GraphQL query: the configuration file
//! at the default branch, where the records branch is, the pull request, and the check
//! runs on its head. Four REST calls become one (about 1 point of the rate limit). Each
//! part is optional in the answer: a part GitHub does not give (or gives in a shape this
//! module does not trust) is left out, and the caller reads it through REST as before.

use serde::Deserialize;
use serde_json::json;

use crate::github::pull_commits::{page_of, CommitPage};
use crate::github::records_listing::{records_of, RefNode};
pub use crate::github::records_listing::{RecordFiles, RecordsHead};
use crate::github::rest::{AppRef, CheckOutput, CheckRunInfo, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CheckRunId, CommitSha, NodeId, PrNumber, RepoName};

pub const ROUTE: &str = "POST /graphql FirstReads";

/// The query, as sent (public so that the fakes are tested with the app's text).
pub const FIRST_READS: &str = "query FirstReads($owner: String!, $name: String!, $number: Int!, $config: String!, $records: String!, $files: Boolean!, $listing: Boolean!, $index: String!, $record: String!, $withRecord: Boolean!, $patterns: String!, $withCommits: Boolean!) {
  repository(owner: $owner, name: $name) {
    id
    config: object(expression: $config) {
      __typename
      ... on Blob {
        oid
        text
        isTruncated
      }
    }
    records: ref(qualifiedName: $records) {
      target {
        __typename
        oid
        ... on Commit {
          tree {
            oid
            entries @include(if: $listing) {
              name
              type
              oid
              object {
                ... on Tree {
                  entries {
                    name
                    type
                    oid
                    object {
                      ... on Tree {
                        entries {
                          name
                          type
                          oid
                        }
                      }
                    }
                  }
                }
              }
            }
          }
          parents(first: 2) {
            nodes {
              oid
            }
          }
          index: file(path: $index) @include(if: $files) {
            ...RecordFile
          }
          record: file(path: $record) @include(if: $withRecord) {
            ...RecordFile
          }
          patterns: file(path: $patterns) @include(if: $files) {
            ...RecordFile
          }
        }
      }
    }
    pullRequest(number: $number) {
      id
      number
      state
      merged
      title
      body
      headRefOid
      baseRefName
      author {
        __typename
        login
      }
      implementers: commits(first: 100) @include(if: $withCommits) {
        ...CommitIdentities
      }
      commits(last: 1) {
        nodes {
          commit {
            oid
            checkSuites(first: 100) {
              pageInfo {
                hasNextPage
              }
              nodes {
                app {
                  slug
                }
                checkRuns(first: 100, filterBy: {checkType: LATEST}) {
                  pageInfo {
                    hasNextPage
                  }
                  nodes {
                    id
                    databaseId
                    name
                    status
                    conclusion
                    externalId
                    summary
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

fragment RecordFile on TreeEntry {
  oid
  object {
    __typename
    ... on Blob {
      text
      isTruncated
    }
  }
}

fragment CommitIdentities on PullRequestCommitConnection {
  pageInfo {
    hasNextPage
    endCursor
  }
  nodes {
    commit {
      oid
      author {
        user {
          login
        }
      }
      committer {
        user {
          login
        }
      }
    }
  }
}";

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
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers other than a GraphQL response;
/// errors inside the answer only leave their part out.
pub async fn first_reads(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    default_branch: &str,
    records_branch: &str,
    config_path: &str,
    (files, with_commits): (Option<RecordFiles<'_>>, bool),
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
        "withCommits": with_commits,
    });
    let answer = api.graphql(ROUTE, FIRST_READS, variables, true).await?;
    let data: Data = match serde_json::from_value(answer.data) {
        Ok(data) => data,
        Err(e) => {
            tracing::warn!(error = %e, "first reads answer not understood; reading through REST");
            return Ok(FirstReads::default());
        }
    };
    let Some(repository) = data.repository else {
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
        pull: if failed("pullRequest") {
            None
        } else {
            repository.pull_request.and_then(pull_of)
        },
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
    commits: Nodes<CommitNode>,
    /// The commits' linked accounts (`...CommitIdentities`), when asked.
    #[serde(default)]
    implementers: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Login {
    #[serde(rename = "__typename")]
    typename: String,
    login: String,
}

#[derive(Deserialize)]
struct Nodes<T> {
    nodes: Vec<T>,
}

#[derive(Deserialize)]
struct CommitNode {
    commit: HeadCommit,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadCommit {
    oid: String,
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
