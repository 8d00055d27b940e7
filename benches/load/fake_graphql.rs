//! `POST /graphql` of the fake: the two documents the app sends for records commits and
//! the query of a command's first reads (`fake_graphql_reads.rs`), told apart by their
//! operation name, answered as GitHub answers them (HTTP 200, errors in the body). A commit
//! made here stores its objects and records its branch move as the REST routes do, so the
//! invariants see GraphQL and REST commits alike. Any other document gets a GraphQL error
//! and is marked unserved, which the runs report.

use std::collections::BTreeMap;

use axum::response::Response;
use base64::Engine;
use serde_json::{json, Value};

use crate::fake::{reply, unserved, Data, Git};

pub const COMMIT: &str = "RecordsCommit";
pub const LANDED: &str = "RecordsLanded";
pub const READS: &str = "FirstReads";
pub const BODY: &str = "Views";
/// Commits per page of `history(first: 50)`.
const PAGE: usize = 50;
/// GitHub's GraphQL points per hour for an installation.
const POINTS: u64 = 5000;

/// The kind (`query`, `mutation`) and name of a GraphQL body's operation.
pub fn operation(body: &Value) -> Option<(&str, &str)> {
    let text = body["query"].as_str()?.trim_start();
    let (kind, rest) = ["mutation", "query"]
        .into_iter()
        .find_map(|k| Some((k, text.strip_prefix(k)?)))?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| (kind, &rest[..end]))
}

/// The route a GraphQL call is logged under, naming its operation.
pub fn route_of(body: &Value) -> String {
    format!(
        "POST /graphql {}",
        operation(body).map_or("(anonymous)", |(_, n)| n)
    )
}

/// Carries out one call. `someone_first`: another writer's commit lands on the branch just
/// before a `RecordsCommit` (the conflict fault), so its compare-and-swap loses.
pub fn serve(data: &mut Data, body: &Value, someone_first: bool) -> Response {
    let vars = &body["variables"];
    let op = operation(body);
    if matches!(op, Some((_, COMMIT | LANDED | READS | BODY))) {
        data.graphql_points += 1;
    }
    match op {
        Some(("mutation", COMMIT)) => commit(data, vars, someone_first),
        Some(("query", LANDED)) => landed(data, vars),
        Some(("query", READS)) => crate::fake_graphql_reads::serve(data, vars),
        Some(("mutation", BODY)) => views(data, vars),
        other => problem(&format!(
            "the load fake serves `mutation {COMMIT}`, `query {LANDED}`, `query {READS}` and `mutation {BODY}`, not {other:?}"
        )),
    }
}

/// A GraphQL error for a call the fake cannot serve: a problem of the run.
pub fn problem(message: &str) -> Response {
    unserved(reply(200, &json!({"errors": [{"message": message}]})))
}

/// Whether the fake knows the repository `owner/name` (it has git data or pull requests).
pub fn known_repository(data: &Data, repo: &str) -> bool {
    data.git.contains_key(repo) || data.pulls.keys().any(|(r, _)| r == repo)
}

/// GitHub's error for a `repository(owner:, name:)` it cannot resolve.
pub fn no_repository(repo: &str) -> Value {
    json!({"type": "NOT_FOUND", "path": ["repository"], "locations": [{"line": 2, "column": 3}],
        "message": format!("Could not resolve to a Repository with the name '{repo}'.")})
}

fn null_with(field: &str, error: &Value) -> Response {
    reply(200, &json!({"data": {field: null}, "errors": [error]}))
}

/// `mutation Views`: the body as `PATCH pulls/{n}` sets it, the +1 as the reactions route
/// gives it, and the check run as `POST`/`PATCH check-runs` keep it, each only when its
/// variables are there (the app leaves a part out of the text and its variables), found by
/// the node ids the fake hands out. An id it never gave answers that part null with
/// GitHub's `NOT_FOUND`, the other parts still done.
fn views(data: &mut Data, vars: &Value) -> Response {
    let not_found = |field: &str, id: &str| {
        json!({"type": "NOT_FOUND", "path": [field],
            "message": format!("Could not resolve to a node with the global id of '{id}'")})
    };
    let mut errors = Vec::new();
    let mut answer = json!({"data": {}});
    if let (Some(pull), Some(body)) = (vars["pull"].as_str(), vars["body"].as_str()) {
        answer["data"]["body"] =
            if let Some(p) = data.pulls.values_mut().find(|p| p["node_id"] == pull) {
                p["body"] = json!(body);
                json!({"pullRequest": {"id": pull}})
            } else {
                errors.push(not_found("body", pull));
                Value::Null
            };
    }
    if let Some(comment) = vars["comment"].as_str() {
        let id = comment
            .strip_prefix("IC_")
            .and_then(|n| n.parse::<u64>().ok());
        answer["data"]["reaction"] = if let Some(id) = id {
            data.reactions.react(id, "+1");
            json!({"reaction": {"content": "THUMBS_UP"}})
        } else {
            errors.push(not_found("reaction", comment));
            Value::Null
        };
    }
    let run = match (vars.get("create"), vars.get("update")) {
        (Some(input), _) => Some(create_run(data, input)),
        (_, Some(input)) => Some(update_run(data, input)),
        _ => None,
    };
    if let Some(run) = run {
        answer["data"]["run"] = match run {
            Ok((id, node)) => json!({"checkRun": {"id": node, "databaseId": id}}),
            Err(id) => {
                errors.push(not_found("run", &id));
                Value::Null
            }
        };
    }
    if !errors.is_empty() {
        answer["errors"] = Value::Array(errors);
    }
    reply(200, &answer)
}

/// REST's fields of a check run from `CreateCheckRunInput` / `UpdateCheckRunInput`.
fn rest_run(input: &Value) -> Value {
    let lower = |v: &Value| v.as_str().map(str::to_ascii_lowercase);
    let mut run = json!({});
    for (g, r) in [
        ("name", "name"),
        ("headSha", "head_sha"),
        ("externalId", "external_id"),
    ] {
        if !input[g].is_null() {
            run[r] = input[g].clone();
        }
    }
    for f in ["status", "conclusion"] {
        if let Some(v) = lower(&input[f]) {
            run[f] = json!(v);
        }
    }
    if !input["output"].is_null() {
        let o = &input["output"];
        run["output"] = json!({"title": o["title"], "summary": o["summary"], "text": o["text"]});
    }
    run
}

/// The repository a check-run mutation's `repositoryId` names; else the id, as not found.
fn repository_of(data: &Data, input: &Value) -> Result<String, String> {
    let id = input["repositoryId"].as_str().unwrap_or("");
    data.pulls
        .keys()
        .map(|(r, _)| r.clone())
        .find(|r| crate::fake::repo_node(r) == id)
        .ok_or_else(|| id.to_owned())
}

fn create_run(data: &mut Data, input: &Value) -> Result<(u64, String), String> {
    let repo = repository_of(data, input)?;
    // The run as `POST check-runs` keeps it.
    let run = crate::fake::new_run(data, &repo, &rest_run(input));
    let n = run["id"].as_u64().unwrap_or_default();
    Ok((n, crate::fake::run_node(n)))
}

fn update_run(data: &mut Data, input: &Value) -> Result<(u64, String), String> {
    let repo = repository_of(data, input)?;
    let node = input["checkRunId"].as_str().unwrap_or("").to_owned();
    let fields = rest_run(input);
    let Some(run) = data.runs.update_node(&repo, &node, &fields) else {
        return Err(node);
    };
    Ok((run.id, node))
}

fn commit(data: &mut Data, vars: &Value, someone_first: bool) -> Response {
    let input = &vars["input"];
    let (Some(repo), Some(branch), Some(expected), Some(headline)) = (
        input["branch"]["repositoryNameWithOwner"].as_str(),
        input["branch"]["branchName"].as_str(),
        input["expectedHeadOid"].as_str(),
        input["message"]["headline"].as_str(),
    ) else {
        return problem(
            "Variable $input of type CreateCommitOnBranchInput! was provided invalid value",
        );
    };
    let changes = match file_changes(&input["fileChanges"]) {
        Ok(c) => c,
        Err(why) => return problem(&why),
    };
    let name = format!("heads/{branch}");
    let Some(git) = data
        .git
        .get_mut(repo)
        .filter(|g| g.refs.contains_key(&name))
    else {
        return null_with(
            "createCommitOnBranch",
            &json!({"type": "NOT_FOUND", "path": ["createCommitOnBranch"],
                "message": format!("Could not resolve to a Ref named \"refs/{name}\".")}),
        );
    };
    if someone_first {
        land_other(git, &name);
    }
    let head = git.refs[&name].clone();
    if head != expected {
        return null_with(
            "createCommitOnBranch",
            &json!({"type": "STALE_DATA", "path": ["createCommitOnBranch"],
                "locations": [{"line": 2, "column": 3}],
                "message": format!("Expected branch to point to \"{expected}\" but it did not.  Pull and try again.")}),
        );
    }
    let mut tree = git.trees[&git.commits[&head].tree].clone();
    for (path, text) in changes {
        match text {
            Some(text) => {
                let blob = git.put_blob(&text);
                tree.insert(path, blob);
            }
            None => {
                tree.remove(&path);
            }
        }
    }
    let tree = git.put_tree(tree);
    let message = match input["message"]["body"].as_str() {
        Some(body) if !body.is_empty() => format!("{headline}\n\n{body}"),
        _ => headline.to_owned(),
    };
    let oid = git.put_commit(&tree, vec![head.clone()], &message);
    move_branch(git, &name, head, &oid);
    // `ref { repository { pullRequest(number: $pull) @include(if: $withPull) { body } } }`
    let mut repository = json!({});
    if vars["withPull"] == true {
        let number = vars["pull"].as_u64().unwrap_or(0);
        repository["pullRequest"] = data.pulls.get(&(repo.to_owned(), number)).map_or(
            Value::Null,
            |p| json!({"body": p["body"].as_str().unwrap_or("")}),
        );
    }
    reply(
        200,
        &json!({"data": {"createCommitOnBranch": {"commit": {"oid": oid, "tree": {"oid": tree}},
            "ref": {"repository": repository}}}}),
    )
}

/// Additions (base64 contents, decoded) and deletions (`None`), by path.
fn file_changes(changes: &Value) -> Result<BTreeMap<String, Option<String>>, String> {
    let mut out = BTreeMap::new();
    for a in changes["additions"].as_array().into_iter().flatten() {
        let (Some(path), Some(contents)) = (a["path"].as_str(), a["contents"].as_str()) else {
            return Err(format!("an addition without path or contents: {a}"));
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(contents)
            .map_err(|e| format!("{path}: contents not base64: {e}"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{path}: not UTF-8"))?;
        out.insert(path.to_owned(), Some(text));
    }
    for d in changes["deletions"].as_array().into_iter().flatten() {
        let Some(path) = d["path"].as_str() else {
            return Err(format!("a deletion without path: {d}"));
        };
        out.insert(path.to_owned(), None);
    }
    Ok(out)
}

fn move_branch(git: &mut Git, name: &str, old: String, new: &str) {
    git.refs.insert(name.to_owned(), new.to_owned());
    git.moves.push((name.to_owned(), Some(old), new.to_owned()));
}

/// Someone else's commit on top of the branch, changing no file (the records stay valid).
fn land_other(git: &mut Git, name: &str) {
    let head = git.refs[name].clone();
    let tree = git.commits[&head].tree.clone();
    let message = format!("Someone else's commit on {} [skip ci]", &head[..7]);
    let oid = git.put_commit(&tree, vec![head.clone()], &message);
    move_branch(git, name, head, &oid);
}

fn cursor(oid: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("history:{oid}"))
}

fn from_cursor(cursor: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cursor)
        .ok()?;
    String::from_utf8(bytes)
        .ok()?
        .strip_prefix("history:")
        .map(str::to_owned)
}

fn landed(data: &mut Data, vars: &Value) -> Response {
    let (Some(owner), Some(name), Some(qualified)) = (
        vars["owner"].as_str(),
        vars["name"].as_str(),
        vars["ref"].as_str(),
    ) else {
        return problem("RecordsLanded needs $owner, $name and $ref");
    };
    let rate = json!({"cost": 1, "remaining": POINTS.saturating_sub(data.graphql_points)});
    let repo = format!("{owner}/{name}");
    if !known_repository(data, &repo) {
        return reply(
            200,
            &json!({"data": {"repository": null, "rateLimit": rate}, "errors": [no_repository(&repo)]}),
        );
    }
    let git = data.git.get(&repo);
    let head = git.and_then(|g| g.refs.get(qualified.strip_prefix("refs/")?));
    let (Some(git), Some(head)) = (git, head) else {
        return reply(
            200,
            &json!({"data": {"repository": {"ref": null}, "rateLimit": rate}}),
        );
    };
    let first_parent = |oid: &str| {
        git.commits
            .get(oid)
            .and_then(|c| c.parents.first().cloned())
    };
    let mut at = match vars["after"].as_str() {
        None => Some(head.clone()),
        Some(after) => match from_cursor(after).filter(|c| git.commits.contains_key(c)) {
            Some(oid) => first_parent(&oid),
            None => return problem(&format!("`{after}` does not appear to be a valid cursor.")),
        },
    };
    let mut nodes = Vec::new();
    while nodes.len() < PAGE {
        let Some((oid, commit)) = at.take().and_then(|o| git.commits.get_key_value(&o)) else {
            break;
        };
        nodes.push(json!({"oid": oid, "message": commit.message, "tree": {"oid": commit.tree}}));
        at = commit.parents.first().cloned();
    }
    let end = nodes.last().and_then(|n| n["oid"].as_str()).map(cursor);
    let history =
        json!({"pageInfo": {"hasNextPage": at.is_some(), "endCursor": end}, "nodes": nodes});
    reply(
        200,
        &json!({"data": {"repository": {"ref": {"target": {"oid": head, "history": history}}},
            "rateLimit": rate}}),
    )
}
