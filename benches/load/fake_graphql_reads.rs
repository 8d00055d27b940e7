//! `query FirstReads` of the fake: a command's first reads in one call, answered from the
//! state the REST routes serve, through the same functions, so the two always agree:
//! - `config: object(expression: "<branch>:<path>")`: the file as `GET contents/{path}`
//!   serves it (which ignores the branch, as this does), as a `Blob`;
//! - `records: ref(qualifiedName:)`: the ref as `GET git/ref/{name}` serves it, or null;
//!   with `$listing`, its tree's entries nested three levels deep (the blob SHAs of
//!   `GET git/trees/{sha}?recursive=1`), with `$files` the files `$index`, `$patterns` and (with
//!   `$withRecord`) `$record` with the texts of `GET git/blobs/{sha}`;
//! - `pullRequest(number:)`: the pull request of `GET pulls/{n}`, its head's latest check
//!   runs as `GET commits/{sha}/check-runs` lists them, one check suite per app; a missing
//!   one is null with GitHub's `NOT_FOUND` error naming it.
//!
//! An expression naming a file the fake does not hold answers null and marks the call
//! unserved, as the contents route does with a path it does not know.

use axum::response::Response;
use serde_json::{json, Value};

use std::collections::{BTreeMap, BTreeSet};

use crate::fake::{self, reply, unserved, Data, Git};
use crate::fake_graphql::{known_repository, no_repository, problem};
use auditloop_fake_github::git;

/// Nodes per page of `checkSuites(first: 100)` and `checkRuns(first: 100)`.
const PAGE: usize = 100;

pub fn serve(data: &Data, vars: &Value) -> Response {
    let (Some(owner), Some(name), Some(number), Some(config), Some(records)) = (
        vars["owner"].as_str(),
        vars["name"].as_str(),
        vars["number"].as_u64(),
        vars["config"].as_str(),
        vars["records"].as_str(),
    ) else {
        return problem("FirstReads needs $owner, $name, $number, $config and $records");
    };
    let repo = format!("{owner}/{name}");
    if !known_repository(data, &repo) {
        return reply(
            200,
            &json!({"data": {"repository": null}, "errors": [no_repository(&repo)]}),
        );
    }
    let file = config
        .split_once(':')
        .and_then(|(_, path)| fake::repo_file(path));
    let config = file.map_or(Value::Null, |text| {
        json!({"__typename": "Blob", "oid": git::sha_of("blob", text), "text": text,
            "isTruncated": false})
    });
    let git = data.git.get(&repo);
    let records = records
        .strip_prefix("refs/")
        .and_then(|name| git?.refs.get(name))
        .map_or(Value::Null, |oid| {
            let (tree, parents) = git
                .and_then(|g| g.commits.get(oid))
                .map(|c| (c.tree.clone(), c.parents.clone()))
                .unwrap_or_default();
            let parents: Vec<Value> = parents.iter().take(2).map(|p| json!({"oid": p})).collect();
            let mut target = json!({"__typename": "Commit", "oid": oid, "tree": {"oid": tree},
                "parents": {"nodes": parents}});
            if let (Some(git), true) = (git, vars["files"] == true) {
                records_files(git, &tree, vars, &mut target);
            }
            json!({ "target": target })
        });
    let pull = data.pulls.get(&(repo.clone(), number));
    let mut body = json!({"data": {"repository": {"id": fake::repo_node(&repo), "config": config, "records": records,
        "pullRequest": pull.map_or(Value::Null, |p| pull_node(data, &repo, p))}}});
    if pull.is_none() {
        body["errors"] = json!([{"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
            "message": format!("Could not resolve to a PullRequest with the number of {number}.")}]);
    }
    let answer = reply(200, &body);
    if file.is_some() {
        answer
    } else {
        unserved(answer)
    }
}

/// What `$files` adds to the records commit `target` whose tree is `tree`.
fn records_files(git: &Git, tree: &str, vars: &Value, target: &mut Value) {
    let Some(files) = git.trees.get(tree) else {
        return;
    };
    if vars["listing"] == true {
        target["tree"]["entries"] = entries(files, "", 1);
    }
    let file = |path: &Value| {
        let path = path.as_str().unwrap_or_default();
        files.get(path).map_or(Value::Null, |blob| {
            let text = git.blobs.get(blob).map(ToString::to_string);
            json!({"oid": blob, "object": {"__typename": "Blob", "text": text, "isTruncated": false}})
        })
    };
    target["index"] = file(&vars["index"]);
    target["patterns"] = file(&vars["patterns"]);
    if vars["withRecord"] == true {
        target["record"] = file(&vars["record"]);
    }
}

/// The entries of directory `prefix` of the flattened tree `files`, as `Tree.entries`
/// lists them; a directory's own entries down to the third level.
fn entries(files: &BTreeMap<String, String>, prefix: &str, depth: usize) -> Value {
    let mut out = Vec::new();
    let mut dirs = BTreeSet::new();
    for (path, blob) in files.range(prefix.to_owned()..) {
        let Some(rest) = path.strip_prefix(prefix) else {
            break;
        };
        match rest.split_once('/') {
            None => out.push(json!({"name": rest, "type": "blob", "oid": blob, "object": {}})),
            Some((dir, _)) if dirs.insert(dir.to_owned()) => {
                let inner = format!("{prefix}{dir}/");
                // The oid REST lists for the same directory.
                let mut e = json!({"name": dir, "type": "tree",
                    "oid": git::dir_sha(inner.trim_end_matches('/'), files)});
                if depth < 3 {
                    e["object"] = json!({"entries": entries(files, &inner, depth + 1)});
                }
                out.push(e);
            }
            Some(_) => {}
        }
    }
    Value::Array(out)
}

/// A pull request from its REST body. `state` keeps REST's `open`, so both read the same.
fn pull_node(data: &Data, repo: &str, p: &Value) -> Value {
    let merged = p["merged"].as_bool().unwrap_or(false) || !p["merged_at"].is_null();
    let state = match (p["state"].as_str(), merged) {
        (Some("open"), _) => "OPEN",
        (_, true) => "MERGED",
        _ => "CLOSED",
    };
    let head = p["head"]["sha"].as_str().unwrap_or_default();
    // GraphQL names a bot without REST's `[bot]`, and says it is a `Bot`.
    let author = p["user"]["login"].as_str().map_or(Value::Null, |login| {
        match login.strip_suffix("[bot]") {
            Some(bot) => json!({"__typename": "Bot", "login": bot}),
            None => json!({"__typename": "User", "login": login}),
        }
    });
    let suites = suites(&data.runs.latest(repo, head));
    json!({"id": p["node_id"], "number": p["number"], "state": state, "merged": merged,
        "title": p["title"].as_str().unwrap_or_default(), "body": p["body"].as_str().unwrap_or_default(), "headRefOid": head,
        "baseRefName": p["base"]["ref"], "author": author,
        "commits": {"nodes": [{"commit": {"oid": head, "checkSuites": suites}}]}})
}

/// A run as `checkRuns` lists it: enums in upper case, an empty external id as null.
fn run_node(run: &Value) -> Value {
    let upper = |v: &Value| v.as_str().map(str::to_ascii_uppercase);
    json!({"id": run["node_id"], "databaseId": run["id"], "name": run["name"],
        "status": upper(&run["status"]).unwrap_or_else(|| "QUEUED".to_owned()),
        "conclusion": upper(&run["conclusion"]),
        "externalId": run["external_id"].as_str().filter(|s| !s.is_empty()),
        "summary": run["output"]["summary"]})
}

/// The first page of `nodes`, as a connection.
fn page(mut nodes: Vec<Value>) -> Value {
    let more = nodes.len() > PAGE;
    nodes.truncate(PAGE);
    json!({"pageInfo": {"hasNextPage": more}, "nodes": nodes})
}

/// The runs in one check suite per app, in the order the apps first appear.
fn suites(runs: &[Value]) -> Value {
    let mut by_app: Vec<(Value, Vec<Value>)> = Vec::new();
    for run in runs {
        let app = run["app"]["slug"]
            .as_str()
            .map_or(Value::Null, |slug| json!({"slug": slug}));
        let node = run_node(run);
        match by_app.iter_mut().find(|(a, _)| *a == app) {
            Some((_, nodes)) => nodes.push(node),
            None => by_app.push((app, vec![node])),
        }
    }
    page(
        by_app
            .into_iter()
            .map(|(app, nodes)| json!({"app": app, "checkRuns": page(nodes)}))
            .collect(),
    )
}
