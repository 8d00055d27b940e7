//! Comments, reactions and issues.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    path, User, LIST_COMMENTS, LIST_ISSUES, LIST_REACTIONS, PATCH_ISSUE, POST_COMMENT, POST_ISSUE,
    POST_REACTION,
};
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommentId, IssueNumber, PrNumber, RepoName};

/// The body of a comment create.
#[derive(Debug, Serialize)]
struct NewComment<'a> {
    body: &'a str,
}

/// The body of a reaction create.
#[derive(Debug, Serialize)]
struct NewReaction<'a> {
    content: &'a str,
}

/// The body of an issue create.
#[derive(Debug, Serialize)]
struct NewIssue<'a> {
    title: &'a str,
    body: &'a str,
    labels: [&'a str; 1],
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn create_comment(
    api: &Api,
    repo: &RepoName,
    pr: PrNumber,
    body: &str,
) -> Result<CommentId, GitHubError> {
    Ok(create_comment_at(api, repo, pr, body).await?.0)
}

/// As [`create_comment`], also giving the comment's `html_url` for people to follow.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn create_comment_at(
    api: &Api,
    repo: &RepoName,
    pr: PrNumber,
    body: &str,
) -> Result<(CommentId, Option<String>), GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        id: CommentId,
        #[serde(default)]
        html_url: Option<String>,
    }
    let c: Created = api
        .json(Call::post(
            POST_COMMENT,
            path(repo, &format!("issues/{}/comments", pr.0)),
            &NewComment { body },
        ))
        .await?;
    Ok((c.id, c.html_url))
}

/// Comments of an issue updated since `since`, every page, as (author login, body). The
/// issue-comments list has no sort order: `since` is how to ask for recent ones.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn comments_since(
    api: &Api,
    repo: &RepoName,
    pr: PrNumber,
    since: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<(String, String)>, GitHubError> {
    #[derive(Deserialize)]
    struct C {
        #[serde(default)]
        body: Option<String>,
        user: User,
    }
    let since = since.format("%Y-%m-%dT%H:%M:%SZ");
    let path = path(
        repo,
        &format!("issues/{}/comments?since={since}&per_page=100", pr.0),
    );
    let mut out = Vec::new();
    for page in crate::github::pages::get_all(api, LIST_COMMENTS, &path).await? {
        let list: Vec<C> = page.json(LIST_COMMENTS)?;
        out.extend(
            list.into_iter()
                .map(|c| (c.user.login, c.body.unwrap_or_default())),
        );
    }
    Ok(out)
}

/// GitHub answers 200 for a reaction that exists already, so repeating it is harmless.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn react(
    api: &Api,
    repo: &RepoName,
    comment: CommentId,
    content: &str,
) -> Result<(), GitHubError> {
    let call = Call::post(
        POST_REACTION,
        path(repo, &format!("issues/comments/{}/reactions", comment.0)),
        &NewReaction { content },
    )
    .idempotent(true);
    api.send_ok(call).await?;
    Ok(())
}

/// Whether `login` reacted `content` to the comment (the first page, which holds it: an
/// App's reaction is one among the few of that content).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn reacted_by(
    api: &Api,
    repo: &RepoName,
    comment: CommentId,
    content: &str,
    login: &str,
) -> Result<bool, GitHubError> {
    #[derive(Deserialize)]
    struct Reaction {
        user: Option<User>,
    }
    let content = query_value(content);
    let reactions: Vec<Reaction> = api
        .json(Call::get(
            LIST_REACTIONS,
            path(
                repo,
                &format!(
                    "issues/comments/{}/reactions?content={content}&per_page=100",
                    comment.0
                ),
            ),
        ))
        .await?;
    Ok(reactions
        .iter()
        .filter_map(|r| r.user.as_ref())
        .any(|u| u.login.eq_ignore_ascii_case(login)))
}

/// [`react`], telling whether the reaction is new (201) or was there already (200).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn react_is_new(
    api: &Api,
    repo: &RepoName,
    comment: CommentId,
    content: &str,
) -> Result<bool, GitHubError> {
    let call = Call::post(
        POST_REACTION,
        path(repo, &format!("issues/comments/{}/reactions", comment.0)),
        &NewReaction { content },
    )
    .idempotent(true);
    Ok(api.send_ok(call).await?.status == 201)
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn create_issue(
    api: &Api,
    repo: &RepoName,
    title: &str,
    body: &str,
    label: &str,
) -> Result<IssueNumber, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        number: IssueNumber,
    }
    let c: Created = api
        .json(Call::post(
            POST_ISSUE,
            path(repo, "issues"),
            &NewIssue {
                title,
                body,
                labels: [label],
            },
        ))
        .await?;
    Ok(c.number)
}

/// The newest issue labelled `label` (open or closed, among the latest 100) whose body holds
/// `marker`: an issue opened before a failure that GitHub then redelivered. The list
/// endpoint, unlike search, sees an issue as soon as it exists.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn find_issue(
    api: &Api,
    repo: &RepoName,
    label: &str,
    marker: &str,
) -> Result<Option<IssueNumber>, GitHubError> {
    Ok(find_marked(api, repo, label, marker)
        .await?
        .map(|i| i.number))
}

/// An issue as the listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MarkedIssue {
    pub(crate) number: IssueNumber,
    pub(crate) open: bool,
    pub(crate) body: String,
}

/// [`find_issue`], with the issue's state and body.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn find_marked(
    api: &Api,
    repo: &RepoName,
    label: &str,
    marker: &str,
) -> Result<Option<MarkedIssue>, GitHubError> {
    #[derive(Deserialize)]
    struct Listed {
        number: IssueNumber,
        #[serde(default)]
        state: Option<String>,
        #[serde(default)]
        body: Option<String>,
        #[serde(default)]
        pull_request: Option<Value>,
    }
    let list: Vec<Listed> = api
        .json(Call::get(
            LIST_ISSUES,
            path(
                repo,
                &format!(
                    "issues?labels={}&state=all&sort=created&direction=desc&per_page=100",
                    query_value(label)
                ),
            ),
        ))
        .await?;
    Ok(list
        .into_iter()
        .find(|i| i.pull_request.is_none() && i.body.as_deref().is_some_and(|b| b.contains(marker)))
        .map(|i| MarkedIssue {
            number: i.number,
            open: i.state.as_deref() != Some("closed"),
            body: i.body.unwrap_or_default(),
        }))
}

/// The body of an issue update: its text and whether it is open.
#[derive(Debug, Serialize)]
struct IssuePatch<'a> {
    body: &'a str,
    state: &'static str,
}

/// Sets issue `number`'s body, and opens or closes it.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn update_issue(
    api: &Api,
    repo: &RepoName,
    number: IssueNumber,
    body: &str,
    open: bool,
) -> Result<(), GitHubError> {
    let patch = IssuePatch {
        body,
        state: if open { "open" } else { "closed" },
    };
    api.send_ok(Call::patch(
        PATCH_ISSUE,
        path(repo, &format!("issues/{}", number.0)),
        &patch,
    ))
    .await?;
    Ok(())
}

/// Percent-encodes a query value (everything but RFC 3986 unreserved characters).
fn query_value(v: &str) -> String {
    crate::github::encode::component(v)
}

#[cfg(test)]
mod tests {
    use super::query_value;

    #[test]
    fn query_values_keep_only_unreserved_characters() {
        for (raw, encoded) in [
            ("tech-debt", "tech-debt"),
            ("tech debt", "tech%20debt"),
            ("a,b&c=d+e#f", "a%2Cb%26c%3Dd%2Be%23f"),
            ("dette-ã", "dette-%C3%A3"),
        ] {
            assert_eq!(query_value(raw), encoded, "{raw}");
        }
    }
}
