//! A records commit in one call: GraphQL's `createCommitOnBranch`, a compare-and-swap on
//! `expectedHeadOid` that GitHub signs, instead of tree → commit → ref. When its answer is
//! lost, the branch's history says whether it landed: GitHub names the commit, so each
//! attempt carries a nonce in its message to be recognised by.

use std::collections::BTreeMap;

use base64::Engine;
use rand::Rng;
use serde::Deserialize;
use serde_json::json;

use super::wire;
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, ObjectSha, PrNumber, RepoName};

pub(super) const COMMIT_ROUTE: &str = "POST /graphql RecordsCommit";
pub(super) const LANDED_ROUTE: &str = "POST /graphql RecordsLanded";

/// The records commit, as sent (public so that the fakes are tested with the app's text).
pub const RECORDS_COMMIT: &str = "mutation RecordsCommit($input: CreateCommitOnBranchInput!, $pull: Int! = 0, $withPull: Boolean! = false) {
  createCommitOnBranch(input: $input) {
    commit {
      oid
      tree {
        oid
      }
    }
    ref {
      repository {
        pullRequest(number: $pull) @include(if: $withPull) {
          body
        }
      }
    }
  }
}";

/// The look at the branch after a commit's answer was lost.
pub const RECORDS_LANDED: &str =
    "query RecordsLanded($owner: String!, $name: String!, $ref: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      target {
        oid
        ... on Commit {
          history(first: 50, after: $after) {
            pageInfo {
              hasNextPage
              endCursor
            }
            nodes {
              oid
              message
              tree {
                oid
              }
            }
          }
        }
      }
    }
  }
  rateLimit {
    cost
    remaining
  }
}";

/// The trailer that names one attempt's commit.
const WRITE_TRAILER: &str = "Auditloop-Write";

/// How far back a lost commit is looked for (50 commits a page) before giving up with an
/// error, so that the delivery is tried again rather than the change applied twice.
const LANDED_PAGES: usize = 10;

/// One attempt's outcome, however the commit was made.
pub(super) enum OnBranch {
    Done {
        commit: CommitSha,
        tree: ObjectSha,
        /// The body of the pull request asked for, read back with the commit, and when
        /// the commit was sent.
        pull_body: Option<(String, tokio::time::Instant)>,
    },
    /// Not applied: the branch is not where the snapshot saw it (or is gone); apply again
    /// on what it holds.
    Stale(GitHubError),
}

/// A fresh nonce for one attempt.
fn nonce() -> String {
    format!("{:032x}", rand::thread_rng().gen::<u128>())
}

/// GitHub's two message parts: the first line, then the rest with the attempt's trailer.
fn headline_and_body(message: &str, nonce: &str) -> (String, String) {
    let (headline, rest) = message.split_once('\n').unwrap_or((message, ""));
    let trailer = format!("{WRITE_TRAILER}: {nonce}");
    let rest = rest.trim();
    let body = if rest.is_empty() {
        trailer
    } else {
        format!("{rest}\n\n{trailer}")
    };
    (headline.to_owned(), body)
}

#[derive(Deserialize)]
struct Oid {
    oid: String,
}

#[derive(Deserialize)]
struct CreatedCommit {
    oid: String,
    tree: Oid,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    create_commit_on_branch: Option<Created>,
}

#[derive(Deserialize)]
struct Created {
    commit: Option<CreatedCommit>,
    #[serde(rename = "ref", default)]
    reference: Option<MadeRef>,
}

#[derive(Deserialize)]
struct MadeRef {
    repository: Option<MadeRepository>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MadeRepository {
    #[serde(default)]
    pull_request: Option<MadePull>,
}

#[derive(Deserialize)]
struct MadePull {
    body: String,
}

/// Commits `files` (path → new text) on `branch`, which must be at `parent`. A lost answer
/// is looked into (see [`landed`]); only an answer that cannot have been a success is an
/// error.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails, answers something else, or a lost commit cannot be
/// found or ruled out.
pub(super) async fn commit_on_branch(
    api: &Api,
    repo: &RepoName,
    (branch, parent): (&str, &CommitSha),
    files: &BTreeMap<String, String>,
    message: &str,
    body_of: Option<PrNumber>,
) -> Result<OnBranch, GitHubError> {
    let nonce = nonce();
    let (headline, body) = headline_and_body(message, &nonce);
    let b64 = base64::engine::general_purpose::STANDARD;
    let additions: Vec<_> = files
        .iter()
        .map(|(path, text)| json!({"path": path, "contents": b64.encode(text)}))
        .collect();
    let input = json!({
        "branch": {"repositoryNameWithOwner": format!("{}/{}", repo.owner(), repo.name()), "branchName": branch},
        "expectedHeadOid": parent.as_str(),
        "message": {"headline": headline, "body": body},
        "fileChanges": {"additions": additions},
    });
    let variables = json!({
        "input": input,
        "pull": body_of.map_or(0, |p| p.0),
        "withPull": body_of.is_some(),
    });
    let sent_at = tokio::time::Instant::now();
    let sent = api
        .graphql(COMMIT_ROUTE, RECORDS_COMMIT, variables, false)
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(e @ GitHubError::Transport { .. }) => {
            return lost(api, repo, branch, parent, &nonce, e).await
        }
        Err(e) if e.status().is_some_and(|s| s >= 500) => {
            return lost(api, repo, branch, parent, &nonce, e).await
        }
        Err(e) => return Err(e),
    };
    for kind in ["STALE_DATA", "NOT_FOUND"] {
        if let Some(err) = answer.error_of(kind) {
            let mut message = err.message.clone();
            message.truncate(300);
            return Ok(OnBranch::Stale(GitHubError::Status {
                route: COMMIT_ROUTE,
                status: 422,
                message: format!("{kind}: {message}"),
            }));
        }
    }
    // An error that struck only the pull request read back leaves the commit made: the
    // body is then read as before.
    let pull_failed = answer
        .errors
        .iter()
        .any(|e| e.path.iter().any(|p| p == "pullRequest"));
    let mut answer = answer;
    if pull_failed {
        answer
            .errors
            .retain(|e| !e.path.iter().any(|p| p == "pullRequest"));
    }
    let payload: Payload = answer.decode(COMMIT_ROUTE)?;
    let created = payload
        .create_commit_on_branch
        .ok_or_else(|| GitHubError::Decode {
            route: COMMIT_ROUTE,
            message: "no commit in the answer".into(),
        })?;
    let made = created.commit.ok_or_else(|| GitHubError::Decode {
        route: COMMIT_ROUTE,
        message: "no commit in the answer".into(),
    })?;
    let pull_body = created
        .reference
        .and_then(|r| r.repository)
        .and_then(|r| r.pull_request)
        .map(|p| (p.body, sent_at))
        .filter(|_| !pull_failed);
    Ok(OnBranch::Done {
        commit: wire::commit_sha(COMMIT_ROUTE, &made.oid)?,
        tree: wire::object_sha(COMMIT_ROUTE, &made.tree.oid)?,
        pull_body,
    })
}

async fn lost(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    parent: &CommitSha,
    nonce: &str,
    err: GitHubError,
) -> Result<OnBranch, GitHubError> {
    tracing::info!(branch, "records commit answer lost; looking for it");
    Ok(match landed(api, repo, branch, parent, nonce).await? {
        Some((commit, tree)) => OnBranch::Done {
            commit,
            tree,
            pull_body: None,
        },
        None => OnBranch::Stale(err),
    })
}

#[derive(Deserialize)]
struct Landed {
    repository: Option<Repository>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Repository {
    #[serde(rename = "ref")]
    reference: Option<Ref>,
}

#[derive(Deserialize)]
struct Ref {
    target: Target,
}

#[derive(Deserialize)]
struct Target {
    history: Option<History>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct History {
    page_info: PageInfo,
    nodes: Vec<Node>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

#[derive(Deserialize)]
struct Node {
    oid: String,
    message: String,
    tree: Oid,
}

/// Whether the commit made with `nonce` on `parent` is on `branch`: the history from the
/// head down to `parent` is searched for it. `None` when `parent` (or the branch's end)
/// comes first: the compare-and-swap then did not let it land.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails, or neither is found within [`LANDED_PAGES`].
async fn landed(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    parent: &CommitSha,
    nonce: &str,
) -> Result<Option<(CommitSha, ObjectSha)>, GitHubError> {
    let mark = format!("{WRITE_TRAILER}: {nonce}");
    let mut after: Option<String> = None;
    for _ in 0..LANDED_PAGES {
        let variables = json!({
            "owner": repo.owner(),
            "name": repo.name(),
            "ref": format!("refs/heads/{branch}"),
            "after": after,
        });
        let answer = api
            .graphql(LANDED_ROUTE, RECORDS_LANDED, variables, true)
            .await?;
        let found: Landed = answer.decode(LANDED_ROUTE)?;
        let Some(history) = found
            .repository
            .and_then(|r| r.reference)
            .and_then(|r| r.target.history)
        else {
            return Ok(None);
        };
        for node in history.nodes {
            if node.oid == parent.as_str() {
                return Ok(None);
            }
            if node.message.lines().any(|l| l.trim() == mark) {
                return Ok(Some((
                    wire::commit_sha(LANDED_ROUTE, &node.oid)?,
                    wire::object_sha(LANDED_ROUTE, &node.tree.oid)?,
                )));
            }
        }
        match history.page_info.end_cursor {
            Some(cursor) if history.page_info.has_next_page => after = Some(cursor),
            _ => return Ok(None),
        }
    }
    Err(GitHubError::Decode {
        route: LANDED_ROUTE,
        message: format!("neither the records commit nor its parent within {LANDED_PAGES} pages"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_follows_the_message() {
        assert_eq!(
            headline_and_body("AUD-1: created [skip ci]", "ab"),
            (
                "AUD-1: created [skip ci]".into(),
                "Auditloop-Write: ab".into()
            )
        );
        assert_eq!(
            headline_and_body("two\n\nlines [skip ci]", "ab"),
            (
                "two".into(),
                "lines [skip ci]\n\nAuditloop-Write: ab".into()
            )
        );
        assert_ne!(nonce(), nonce());
        assert_eq!(nonce().len(), 32);
    }
}
