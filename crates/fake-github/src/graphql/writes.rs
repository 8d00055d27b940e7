//! The GraphQL mutations of the app's `BodyAndReaction`: `updatePullRequest` (the body
//! only) and `addReaction`, on the same state as REST's `PATCH /pulls/N` and
//! `POST …/reactions`, found by the node ids the REST objects carry.

use serde_json::{json, Map, Value};

use super::obj::{only, FieldError, Obj, Resolved};
use super::world::World;

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Mutation", "updatePullRequest", &["input"]),
    ("Mutation", "addReaction", &["input"]),
    ("UpdatePullRequestPayload", "pullRequest", &[]),
    ("AddReactionPayload", "reaction", &[]),
    ("Reaction", "content", &[]),
];

/// GraphQL's reaction contents and REST's names for them.
const CONTENTS: &[(&str, &str)] = &[
    ("THUMBS_UP", "+1"),
    ("THUMBS_DOWN", "-1"),
    ("LAUGH", "laugh"),
    ("HOORAY", "hooray"),
    ("CONFUSED", "confused"),
    ("HEART", "heart"),
    ("ROCKET", "rocket"),
    ("EYES", "eyes"),
];

pub(super) fn unresolved(id: &str) -> FieldError {
    let message = format!("Could not resolve to a node with the global id of '{id}'");
    FieldError::github("NOT_FOUND", message, true)
}

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    let input = args.get("input").cloned().unwrap_or(Value::Null);
    Some(match (obj, field) {
        (Obj::Mutation, "updatePullRequest") => update_pull(state, &input),
        (Obj::Mutation, "addReaction") => add_reaction(state, &input),
        (Obj::UpdatedPull { repo, number }, "pullRequest") => {
            Ok(Resolved::Object(Obj::PullRequest {
                repo: repo.clone(),
                number: *number,
            }))
        }
        (Obj::AddedReaction(content), "reaction") => {
            Ok(Resolved::Object(Obj::Reaction(content.clone())))
        }
        (Obj::Reaction(content), "content") => Ok(Resolved::Leaf(json!(content))),
        _ => return None,
    })
}

fn update_pull(state: &mut dyn World, input: &Value) -> Result<Resolved, FieldError> {
    only(input, &["pullRequestId", "body"], "UpdatePullRequestInput")?;
    let id = input["pullRequestId"].as_str().unwrap_or_default();
    let (repo, number) = pull_by_node(state, id).ok_or_else(|| unresolved(id))?;
    let pr = state.pull_mut(&repo, number).expect("found");
    if let Some(body) = input.get("body").filter(|b| !b.is_null()) {
        pr["body"] = body.clone();
    }
    Ok(Resolved::Object(Obj::UpdatedPull { repo, number }))
}

/// The repository and number of the pull request whose node id is `id`.
pub(super) fn pull_by_node(state: &dyn World, id: &str) -> Option<(String, u64)> {
    state.repositories().into_iter().find_map(|repo| {
        let number = state
            .pulls(&repo)
            .into_iter()
            .find(|pr| pr["node_id"] == id)?["number"]
            .as_u64()?;
        Some((repo, number))
    })
}

fn add_reaction(state: &mut dyn World, input: &Value) -> Result<Resolved, FieldError> {
    only(input, &["subjectId", "content"], "AddReactionInput")?;
    let id = input["subjectId"].as_str().unwrap_or_default();
    // The node ids the fake's comments carry (`crate::objects::node_id`).
    let comment = id
        .strip_prefix("IC_kwDO")
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| unresolved(id))?;
    let content = input["content"].as_str().unwrap_or_default();
    let Some((_, rest)) = CONTENTS.iter().find(|(g, _)| *g == content) else {
        return Err(FieldError::unserved(&format!("the reaction {content}")));
    };
    state.react(comment, rest);
    Ok(Resolved::Object(Obj::AddedReaction(content.to_owned())))
}
