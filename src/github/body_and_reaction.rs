//! The two writes that follow a command's records commit, the PR body's update and the
//! command's +1, as one GraphQL mutation: one call instead of two. Both are idempotent
//! (the same body again, a reaction that exists already), so a lost answer is simply sent
//! again. Either part failing fails the whole, and the delivery is retried.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::github::{Api, GitHubError};
use crate::ids::NodeId;

pub const ROUTE: &str = "POST /graphql BodyAndReaction";

/// The mutation, as sent (public so that the fakes are tested with the app's text).
pub const BODY_AND_REACTION: &str =
    "mutation BodyAndReaction($pull: ID!, $body: String!, $comment: ID!) {
  body: updatePullRequest(input: {pullRequestId: $pull, body: $body}) {
    pullRequest {
      id
    }
  }
  reaction: addReaction(input: {subjectId: $comment, content: THUMBS_UP}) {
    reaction {
      content
    }
  }
}";

#[derive(Deserialize)]
struct Data {
    body: Option<Value>,
    reaction: Option<Value>,
}

/// Sets the body of PR `pull` and gives comment `comment` a +1.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, or either part did not happen.
pub async fn set_body_and_react(
    api: &Api,
    pull: &NodeId,
    body: &str,
    comment: &NodeId,
) -> Result<(), GitHubError> {
    let variables = json!({"pull": pull.as_str(), "body": body, "comment": comment.as_str()});
    let data: Data = api
        .graphql(ROUTE, BODY_AND_REACTION, variables, true)
        .await?
        .decode(ROUTE)?;
    match (data.body, data.reaction) {
        (Some(b), Some(r)) if !b.is_null() && !r.is_null() => Ok(()),
        _ => Err(GitHubError::Decode {
            route: ROUTE,
            message: "the body or the reaction is missing from the answer".into(),
        }),
    }
}
