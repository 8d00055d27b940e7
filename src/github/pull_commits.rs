//! The accounts GitHub links to a pull request's commits, as author or committer: who wrote
//! what is audited (docs/reference.md#independence-of-the-auditor). The first page comes
//! with the first reads of a report (`FirstReads`); a pull request of more than 100
//! commits is read on, page by page (`PullCommits`).

use serde::Deserialize;
use serde_json::{json, Value};

use crate::engine::transition::CommitIdentity;
use crate::github::{Api, GitHubError};
use crate::ids::{Login, PrNumber, RepoName};

pub(crate) const ROUTE: &str = "POST /graphql PullCommits";

/// The query for the pages after the first, as sent.
pub(crate) const PULL_COMMITS: &str = concat!(
    "query PullCommits($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      commits(first: 100, after: $after) {
        ...CommitIdentities
      }
    }
  }
}

",
    include_str!("commit_identities.graphql")
);

/// GitHub lists at most this many commits of a pull request.
const MOST_PAGES: usize = 3;

/// One page of a pull request's commits, as the identities on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitPage {
    pub(crate) identities: Vec<CommitIdentity>,
    /// The cursor to read on from, when more commits follow.
    pub(crate) next: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Connection {
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
    commit: Commit,
}

#[derive(Deserialize)]
struct Commit {
    oid: String,
    author: Option<Actor>,
    committer: Option<Actor>,
}

#[derive(Deserialize)]
struct Actor {
    user: Option<User>,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

/// The page a `...CommitIdentities` selection answered; `None` when it is not in that shape.
pub(crate) fn page_of(connection: &Value) -> Option<CommitPage> {
    let c: Connection = serde_json::from_value(connection.clone()).ok()?;
    let mut identities = Vec::new();
    for node in c.nodes {
        let linked = [(node.commit.author, false), (node.commit.committer, true)];
        for (actor, committer) in linked {
            let login = actor.and_then(|a| a.user).map(|u| u.login);
            if let Some(login) = login.and_then(|l| Login::new(l).ok()) {
                identities.push(CommitIdentity {
                    oid: node.commit.oid.clone(),
                    login,
                    committer,
                });
            }
        }
    }
    let next = c.page_info.end_cursor.filter(|_| c.page_info.has_next_page);
    Some(CommitPage { identities, next })
}

/// Every page of the pull request's commits, from the first: when the first reads did not
/// bring it.
///
/// # Errors
///
/// As [`read_on`].
pub(crate) async fn read_all(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
) -> Result<Vec<CommitIdentity>, GitHubError> {
    read_from(api, repo, number, (Vec::new(), None)).await
}

/// The commits after `first`'s page, read on until the last (GitHub lists 250 at most).
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails, or answers a page in a shape this module does not read.
pub(crate) async fn read_on(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    first: CommitPage,
) -> Result<Vec<CommitIdentity>, GitHubError> {
    match first.next {
        Some(after) => read_from(api, repo, number, (first.identities, Some(after))).await,
        None => Ok(first.identities),
    }
}

/// Pages from `after` (`None`: the first) on, added to `so_far`.
async fn read_from(
    api: &Api,
    repo: &RepoName,
    number: PrNumber,
    (so_far, after): (Vec<CommitIdentity>, Option<String>),
) -> Result<Vec<CommitIdentity>, GitHubError> {
    let mut out = so_far;
    let mut next = after;
    for page in 0..MOST_PAGES {
        if page > 0 && next.is_none() {
            break;
        }
        let after = next.take();
        let variables = json!({
            "owner": repo.owner(),
            "name": repo.name(),
            "number": number.0,
            "after": after,
        });
        let answer = api.graphql(ROUTE, PULL_COMMITS, variables, true).await?;
        let page = answer
            .data
            .pointer("/repository/pullRequest/commits")
            .filter(|_| answer.errors.is_empty())
            .and_then(page_of)
            .ok_or_else(|| GitHubError::Decode {
                route: ROUTE,
                message: "no page of commits in the answer".into(),
            })?;
        out.extend(page.identities);
        next = page.next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_names_each_linked_author_and_committer_and_no_unlinked_one() {
        let page = json!({
            "pageInfo": {"hasNextPage": true, "endCursor": "c1"},
            "nodes": [
                {"commit": {"oid": "a".repeat(40), "author": {"user": {"login": "alice"}}, "committer": {"user": {"login": "web-flow"}}}},
                {"commit": {"oid": "b".repeat(40), "author": {"user": null}, "committer": null}}
            ]
        });
        let page = page_of(&page).unwrap();
        assert_eq!(page.next.as_deref(), Some("c1"));
        let names: Vec<(&str, bool)> = page
            .identities
            .iter()
            .map(|i| (i.login.as_str(), i.committer))
            .collect();
        assert_eq!(names, [("alice", false), ("web-flow", true)]);
        assert!(page_of(&json!({"nodes": 3})).is_none());
    }
}
