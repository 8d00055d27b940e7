//! The check-run mutations of the app's `Views` (`createCheckRun`, `updateCheckRun`) on
//! the same state as REST's `POST /check-runs` and `PATCH /check-runs/{id}`: GraphQL's
//! input turned into REST's fields, the run found by the node id REST's object carries.
//! Also what the app reads back with GraphQL around them: the repository's id, a run's
//! id, and the pull request `createCommitOnBranch`'s ref leads to.

use serde_json::{json, Map, Value};

use super::obj::{only, FieldError, Obj, Resolved};
use super::world::World;
use crate::objects as gh;

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Mutation", "createCheckRun", &["input"]),
    ("Mutation", "updateCheckRun", &["input"]),
    ("CreateCheckRunPayload", "checkRun", &[]),
    ("UpdateCheckRunPayload", "checkRun", &[]),
    ("CheckRun", "id", &[]),
    ("Repository", "id", &[]),
    ("CreateCommitOnBranchPayload", "ref", &[]),
    ("Ref", "repository", &[]),
];

/// The GraphQL id of repository `owner/name`, as the fake gives it.
pub fn repository_id(repo: &str) -> String {
    let n = repo
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    gh::node_id("R", n % 10_000_000_000)
}

/// The input fields the app sends; anything else is not modelled.
const CREATE: &[&str] = &[
    "repositoryId",
    "headSha",
    "name",
    "externalId",
    "status",
    "conclusion",
    "completedAt",
    "output",
    "actions",
];
const UPDATE: &[&str] = &[
    "repositoryId",
    "checkRunId",
    "name",
    "externalId",
    "status",
    "conclusion",
    "completedAt",
    "output",
    "actions",
];

fn lower(v: &Value) -> Value {
    v.as_str()
        .map_or(Value::Null, |s| json!(s.to_ascii_lowercase()))
}

/// REST's fields of a create or an update from GraphQL's input.
fn rest_fields(input: &Value) -> Result<Value, FieldError> {
    let mut f = Map::new();
    for (graphql, rest) in [
        ("name", "name"),
        ("headSha", "head_sha"),
        ("externalId", "external_id"),
        ("completedAt", "completed_at"),
        ("actions", "actions"),
    ] {
        if !input[graphql].is_null() {
            f.insert(rest.into(), input[graphql].clone());
        }
    }
    for field in ["status", "conclusion"] {
        if !input[field].is_null() {
            f.insert(field.into(), lower(&input[field]));
        }
    }
    let output = &input["output"];
    if !output.is_null() {
        only(
            output,
            &["title", "summary", "text", "annotations"],
            "CheckRunOutput",
        )?;
        let mut out = json!({"title": output["title"], "summary": output["summary"]});
        if !output["text"].is_null() {
            out["text"] = output["text"].clone();
        }
        if let Some(list) = output["annotations"].as_array() {
            let mut rest = Vec::new();
            for a in list {
                only(
                    a,
                    &["path", "location", "annotationLevel", "message", "title"],
                    "CheckAnnotationData",
                )?;
                only(
                    &a["location"],
                    &["startLine", "endLine"],
                    "CheckAnnotationRange",
                )?;
                rest.push(json!({
                    "path": a["path"], "start_line": a["location"]["startLine"],
                    "end_line": a["location"]["endLine"],
                    "annotation_level": lower(&a["annotationLevel"]),
                    "title": a["title"], "message": a["message"],
                }));
            }
            out["annotations"] = Value::Array(rest);
        }
        f.insert("output".into(), out);
    }
    Ok(Value::Object(f))
}

fn not_found(id: &str) -> FieldError {
    let message = format!("Could not resolve to a node with the global id of '{id}'");
    FieldError::github("NOT_FOUND", message, true)
}

/// The repository `input.repositoryId` names.
fn repository_of(state: &dyn World, input: &Value) -> Result<String, FieldError> {
    let id = input["repositoryId"].as_str().unwrap_or_default();
    state
        .repositories()
        .into_iter()
        .find(|r| repository_id(r) == id)
        .ok_or_else(|| not_found(id))
}

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    let input = args.get("input").cloned().unwrap_or(Value::Null);
    Some(match (obj, field) {
        (Obj::Mutation, "createCheckRun") => create(state, &input),
        (Obj::Mutation, "updateCheckRun") => update(state, &input),
        (Obj::RunPayload { id, .. }, "checkRun") => {
            let run = state.check_runs().get(*id);
            Ok(run.map_or(Resolved::Leaf(Value::Null), |r| {
                Resolved::Object(Obj::CheckRun(r.body.clone()))
            }))
        }
        (Obj::CheckRun(run), "id") => Ok(Resolved::Leaf(run["node_id"].clone())),
        (Obj::Repository(repo), "id") => Ok(Resolved::Leaf(json!(repository_id(repo)))),
        (Obj::CommitPayload { repo, commit }, "ref") => Ok(Resolved::Object(Obj::Ref {
            repo: repo.clone(),
            oid: commit.clone(),
        })),
        (Obj::Ref { repo, .. }, "repository") => {
            Ok(Resolved::Object(Obj::Repository(repo.clone())))
        }
        _ => return None,
    })
}

fn create(state: &mut dyn World, input: &Value) -> Result<Resolved, FieldError> {
    only(input, CREATE, "CreateCheckRunInput")?;
    let repo = repository_of(state, input)?;
    let fields = rest_fields(input)?;
    let id = state.next_id();
    let slug = state.app_slug().to_owned();
    state.check_runs_mut().create(&repo, id, &slug, &fields);
    Ok(Resolved::Object(Obj::RunPayload { id, created: true }))
}

fn update(state: &mut dyn World, input: &Value) -> Result<Resolved, FieldError> {
    only(input, UPDATE, "UpdateCheckRunInput")?;
    let repo = repository_of(state, input)?;
    let node = input["checkRunId"].as_str().unwrap_or_default();
    let fields = rest_fields(input)?;
    let Some(run) = state.check_runs_mut().update_node(&repo, node, &fields) else {
        return Err(not_found(node));
    };
    Ok(Resolved::Object(Obj::RunPayload {
        id: run.id,
        created: false,
    }))
}
