//! What the packet's one query reads (`PacketReads`): a commit by its id, a directory of the
//! default branch's files, and issues by number, from the same state as the REST routes.

use serde_json::{json, Map, Value};

use super::obj::{FieldError, Obj, Resolved};
use super::world::World;
use crate::contents::blob_sha;

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Repository", "issueOrPullRequest", &["number"]),
    ("Issue", "title", &[]),
    ("Issue", "state", &[]),
    ("Issue", "body", &[]),
    ("Issue", "labels", &["first"]),
    ("LabelConnection", "nodes", &[]),
    ("Label", "name", &[]),
    ("CheckRun", "permalink", &[]),
];

/// Whether the fake knows commit `oid` of `repo`: a pull request's head, a commit with
/// check runs, or one of its git data.
pub fn is_known_commit(state: &dyn World, repo: &str, oid: &str) -> bool {
    state.pulls(repo).iter().any(|p| p["head"]["sha"] == oid)
        || state
            .check_runs()
            .iter()
            .any(|c| c.repo == repo && c.body["head_sha"] == oid)
        || state.git(repo).is_some_and(|g| g.commits.contains_key(oid))
}

/// `object(oid:)`: a commit the fake knows of ([`is_known_commit`]), else null.
pub fn commit_by_oid(state: &dyn World, repo: &str, oid: &str) -> Resolved {
    if is_known_commit(state, repo, oid) {
        Resolved::Object(Obj::Commit {
            repo: repo.to_owned(),
            oid: oid.to_owned(),
        })
    } else {
        Resolved::Leaf(Value::Null)
    }
}

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    Some(Ok(match (obj, field) {
        (
            Obj::Tree {
                repo, branch, dir, ..
            },
            "entries",
        ) => {
            let files = state.files_at(repo, branch);
            let prefix = format!("{dir}/");
            let mut names: Vec<(String, bool)> = files
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .map(|rest| match rest.split_once('/') {
                    Some((d, _)) => (d.to_owned(), true),
                    None => (rest.to_owned(), false),
                })
                .collect();
            names.dedup();
            Resolved::List(
                names
                    .into_iter()
                    .map(|(name, is_dir)| {
                        Resolved::Object(Obj::FileEntry {
                            repo: repo.clone(),
                            branch: branch.clone(),
                            path: format!("{prefix}{name}"),
                            dir: is_dir,
                        })
                    })
                    .collect(),
            )
        }
        (Obj::FileEntry { path, .. }, "name") => {
            Resolved::Leaf(json!(path.rsplit('/').next().unwrap_or(path)))
        }
        (Obj::FileEntry { dir, .. }, "type") => {
            Resolved::Leaf(json!(if *dir { "tree" } else { "blob" }))
        }
        (
            Obj::FileEntry {
                repo,
                branch,
                path,
                dir,
            },
            "object",
        ) => {
            if *dir {
                return Some(Err(FieldError::unserved(
                    "a directory's object in a folder",
                )));
            }
            let text = state
                .files_at(repo, branch)
                .get(path)
                .cloned()
                .unwrap_or_default();
            Resolved::Object(Obj::Blob {
                oid: blob_sha(&text),
                text,
            })
        }
        (Obj::Repository(repo), "issueOrPullRequest") => {
            let number = args.get("number").and_then(Value::as_u64).unwrap_or(0);
            if let Some(issue) = state.issue(repo, number) {
                Resolved::Object(Obj::Issue(issue.clone()))
            } else if state.pulls(repo).iter().any(|p| p["number"] == number) {
                Resolved::Object(Obj::PullRequest {
                    repo: repo.clone(),
                    number,
                })
            } else {
                let message = format!(
                    "Could not resolve to an issue or pull request with the number of {number}."
                );
                return Some(Err(FieldError::github("NOT_FOUND", message, true)));
            }
        }
        (Obj::Issue(i), "title") => Resolved::Leaf(i["title"].clone()),
        (Obj::Issue(i), "body") => Resolved::Leaf(json!(i["body"].as_str().unwrap_or_default())),
        (Obj::Issue(i), "state") => {
            Resolved::Leaf(json!(if i["state"].as_str().unwrap_or("open") == "open" {
                "OPEN"
            } else {
                "CLOSED"
            }))
        }
        (Obj::Issue(i), "labels") => {
            let first = match super::obj::page_size(args, "first", "labels") {
                Ok(n) => n,
                Err(e) => return Some(Err(e)),
            };
            let names = i["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_str().or_else(|| l["name"].as_str()))
                .take(first)
                .map(str::to_owned)
                .collect();
            Resolved::Object(Obj::Labels(names))
        }
        (Obj::Labels(names), "nodes") => Resolved::List(
            names
                .iter()
                .map(|n| Resolved::Object(Obj::Label(n.clone())))
                .collect(),
        ),
        (Obj::Label(name), "name") => Resolved::Leaf(json!(name)),
        (Obj::CheckRun(run), "permalink") => Resolved::Leaf(run["html_url"].clone()),
        _ => return None,
    }))
}
