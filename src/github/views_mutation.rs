//! What a command publishes after its records commit, as one GraphQL mutation: the PR
//! body's update, the command's +1, the check run created or updated (`createCheckRun`,
//! `updateCheckRun`, with the first batch of annotations), and the findings' review threads
//! posted, resolved and unresolved: one write where there were three and more. The document holds only the parts there are (GraphQL requires every declared
//! non-null variable, so a part left out is left out of the text). Either part failing
//! fails the whole, and the delivery is retried; a create is never sent twice on a lost
//! answer (it would leave a second run), the other parts are idempotent.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::github::{Api, GitHubError};
use crate::ids::{CheckRunId, NodeId};

pub const ROUTE: &str = "POST /graphql Views";

/// A check run written through GraphQL: its input (`CreateCheckRunInput` or
/// `UpdateCheckRunInput`, built by the caller in GraphQL's names).
#[derive(Debug, Clone)]
pub enum RunWrite {
    Create(Value),
    Update(Value),
}

/// The parts of one [`publish`]: each is sent only when present.
#[derive(Debug, Clone, Default)]
pub struct Views<'a> {
    /// The PR's node id and its new body.
    pub body: Option<(&'a NodeId, &'a str)>,
    /// The comment's node id, for its +1.
    pub reaction: Option<&'a NodeId>,
    pub run: Option<RunWrite>,
    /// Findings as review threads (docs/reference.md#review-threads).
    pub threads: Threads,
}

/// A review to post (its `AddPullRequestReviewInput`, in GraphQL's names) and the review
/// threads to resolve and unresolve.
#[derive(Debug, Clone, Default)]
pub struct Threads {
    pub review: Option<Value>,
    pub resolve: Vec<String>,
    pub unresolve: Vec<String>,
}

impl Threads {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.review.is_none() && self.resolve.is_empty() && self.unresolve.is_empty()
    }
}

impl Views<'_> {
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.body.is_none()
            && self.reaction.is_none()
            && self.run.is_none()
            && self.threads.is_empty()
    }
}

/// The thread parts of the document: a review, then each resolution by its alias.
fn thread_parts(
    threads: &Threads,
    declared: &mut Vec<String>,
    fields: &mut Vec<String>,
    variables: &mut Map<String, Value>,
) {
    if let Some(review) = &threads.review {
        declared.push("$review: AddPullRequestReviewInput!".into());
        fields.push("  review: addPullRequestReview(input: $review) {\n    pullRequestReview {\n      id\n    }\n  }".into());
        variables.insert("review".into(), review.clone());
    }
    let each = [
        ("r", "resolveReviewThread", &threads.resolve),
        ("u", "unresolveReviewThread", &threads.unresolve),
    ];
    for (prefix, mutation, ids) in each {
        for (i, id) in ids.iter().enumerate() {
            let name = format!("{prefix}{i}");
            declared.push(format!("${name}: ID!"));
            fields.push(format!(
                "  {name}: {mutation}(input: {{threadId: ${name}}}) {{\n    thread {{\n      id\n    }}\n  }}"
            ));
            variables.insert(name, json!(id));
        }
    }
}

/// The mutation for `views`, and its variables.
#[must_use]
pub fn document(views: &Views<'_>) -> (String, Value) {
    let mut declared: Vec<String> = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut variables = Map::new();
    if let Some((pull, body)) = views.body {
        declared.push("$pull: ID!, $body: String!".into());
        fields.push("  body: updatePullRequest(input: {pullRequestId: $pull, body: $body}) {\n    pullRequest {\n      id\n    }\n  }".into());
        variables.insert("pull".into(), json!(pull.as_str()));
        variables.insert("body".into(), json!(body));
    }
    if let Some(comment) = views.reaction {
        declared.push("$comment: ID!".into());
        fields.push("  reaction: addReaction(input: {subjectId: $comment, content: THUMBS_UP}) {\n    reaction {\n      content\n    }\n  }".into());
        variables.insert("comment".into(), json!(comment.as_str()));
    }
    match &views.run {
        Some(RunWrite::Create(input)) => {
            declared.push("$create: CreateCheckRunInput!".into());
            fields.push("  run: createCheckRun(input: $create) {\n    checkRun {\n      id\n      databaseId\n    }\n  }".into());
            variables.insert("create".into(), input.clone());
        }
        Some(RunWrite::Update(input)) => {
            declared.push("$update: UpdateCheckRunInput!".into());
            fields.push("  run: updateCheckRun(input: $update) {\n    checkRun {\n      id\n      databaseId\n    }\n  }".into());
            variables.insert("update".into(), input.clone());
        }
        None => {}
    }
    thread_parts(&views.threads, &mut declared, &mut fields, &mut variables);
    let text = format!(
        "mutation Views({}) {{\n{}\n}}",
        declared.join(", "),
        fields.join("\n")
    );
    (text, Value::Object(variables))
}

#[derive(Deserialize)]
struct Data {
    body: Option<Value>,
    reaction: Option<Value>,
    run: Option<RunPayload>,
    review: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunPayload {
    check_run: Option<RunNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunNode {
    id: String,
    database_id: Option<u64>,
}

/// Sends `views`; the check run written, by both its ids, when there was one.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, or a part did not happen.
pub async fn publish(
    api: &Api,
    views: &Views<'_>,
) -> Result<Option<(CheckRunId, NodeId)>, GitHubError> {
    let (text, variables) = document(views);
    let creates = matches!(views.run, Some(RunWrite::Create(_)));
    let data: Data = api
        .graphql(ROUTE, &text, variables, !creates)
        .await?
        .decode(ROUTE)?;
    let missing = |what: &str| GitHubError::Decode {
        route: ROUTE,
        message: format!("{what} is missing from the answer"),
    };
    if views.body.is_some() && data.body.as_ref().is_none_or(Value::is_null) {
        return Err(missing("the body"));
    }
    if views.reaction.is_some() && data.reaction.as_ref().is_none_or(Value::is_null) {
        return Err(missing("the reaction"));
    }
    if views.threads.review.is_some() && data.review.as_ref().is_none_or(Value::is_null) {
        return Err(missing("the review"));
    }
    if views.run.is_none() {
        return Ok(None);
    }
    let run = data
        .run
        .and_then(|r| r.check_run)
        .ok_or_else(|| missing("the check run"))?;
    let id = run
        .database_id
        .ok_or_else(|| missing("the run's databaseId"))?;
    let node = NodeId::new(run.id).map_err(|_| missing("a node id for the run"))?;
    Ok(Some((CheckRunId(id), node)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_declares_only_the_parts_it_holds() {
        let pull = NodeId::new("PR_kwDOA").unwrap();
        let (text, vars) = document(&Views {
            body: Some((&pull, "b")),
            reaction: None,
            run: Some(RunWrite::Update(json!({"checkRunId": "CR_1"}))),
            threads: Threads::default(),
        });
        assert!(
            text.starts_with(
                "mutation Views($pull: ID!, $body: String!, $update: UpdateCheckRunInput!) {"
            ),
            "{text}"
        );
        assert!(text.contains("updatePullRequest") && text.contains("updateCheckRun"));
        assert!(!text.contains("addReaction") && !text.contains("$comment"));
        assert_eq!(vars["update"]["checkRunId"], "CR_1");
        assert!(vars.get("comment").is_none());
    }
}
