//! A commit's tree as GraphQL lists it (`Tree.entries`, `TreeEntry`) and a file of it
//! (`Commit.file(path:)`, `Repository.object(expression: "<oid>:<path>")`), from the fake's flattened git trees: the same blob SHAs as the
//! REST tree listing, and its SHAs for directories.

use serde_json::{json, Map, Value};

use super::obj::{FieldError, Obj, Resolved};
use super::world::World;
use crate::git::dir_sha;

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Commit", "file", &["path"]),
    ("Tree", "entries", &[]),
    ("TreeEntry", "name", &[]),
    ("TreeEntry", "type", &[]),
    ("TreeEntry", "oid", &[]),
    ("TreeEntry", "object", &[]),
];

fn tree_of<'s>(
    state: &'s dyn World,
    repo: &str,
    root: &str,
) -> Result<&'s std::collections::BTreeMap<String, String>, FieldError> {
    state
        .git(repo)
        .and_then(|g| g.trees.get(root))
        .ok_or_else(|| FieldError::plain(format!("no tree {root} in {repo}")))
}

/// Whether the flattened `tree` holds a path under `prefix` (a directory's, with its `/`).
fn holds_under(tree: &std::collections::BTreeMap<String, String>, prefix: &str) -> bool {
    tree.range(prefix.to_owned()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(prefix))
}

/// The entry at `path` of tree `root`: a blob, a directory, or none.
fn entry(state: &dyn World, repo: &str, root: &str, path: &str) -> Result<Option<Obj>, FieldError> {
    let tree = tree_of(state, repo, root)?;
    let prefix = format!("{path}/");
    let found = match tree.get(path) {
        Some(blob) => Some(Some(blob.clone())),
        None if holds_under(tree, &prefix) => Some(None),
        None => None,
    };
    Ok(found.map(|blob| Obj::Entry {
        repo: repo.to_owned(),
        root: root.to_owned(),
        path: path.to_owned(),
        blob,
    }))
}

/// `object(expression: "<oid>:<path>")` for commit `oid` of the git data: the blob at
/// `path`, its directory as a `Tree`, or null when the commit has no such path. `None`
/// when the git data has no such commit.
pub fn object_at_commit(state: &dyn World, repo: &str, oid: &str, path: &str) -> Option<Resolved> {
    let git = state.git(repo)?;
    let root = git.commits.get(oid)?.tree.clone();
    let tree = git.trees.get(&root)?;
    let path = path.trim_end_matches('/');
    let prefix = format!("{path}/");
    Some(match tree.get(path) {
        Some(blob) => Resolved::Object(Obj::Blob {
            oid: blob.clone(),
            text: git.blobs.get(blob).cloned().unwrap_or_default(),
        }),
        None if holds_under(tree, &prefix) => Resolved::Object(Obj::GitTree {
            repo: repo.to_owned(),
            root,
            dir: path.to_owned(),
        }),
        None => Resolved::Leaf(Value::Null),
    })
}

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    Some(match (obj, field) {
        (Obj::Commit { repo, oid }, "file") => (|| {
            let Some(commit) = state.git(repo).and_then(|g| g.commits.get(oid)) else {
                return Err(FieldError::plain(format!("no commit {oid} in {repo}")));
            };
            let path = args.get("path").and_then(Value::as_str).unwrap_or_default();
            let root = commit.tree.clone();
            Ok(entry(state, repo, &root, path)?
                .map_or(Resolved::Leaf(Value::Null), Resolved::Object))
        })(),
        (Obj::GitTree { repo, root, dir }, "oid") => (|| {
            if dir.is_empty() {
                return Ok(Resolved::Leaf(json!(root)));
            }
            Ok(Resolved::Leaf(json!(dir_sha(
                dir,
                tree_of(state, repo, root)?
            ))))
        })(),
        (Obj::GitTree { repo, root, dir }, "entries") => (|| {
            let tree = tree_of(state, repo, root)?;
            let prefix = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            let mut names: Vec<String> = tree
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .map(|rest| rest.split('/').next().unwrap_or(rest).to_owned())
                .collect();
            names.dedup();
            let mut out = Vec::new();
            for name in names {
                let path = format!("{prefix}{name}");
                out.extend(entry(state, repo, root, &path)?.map(Resolved::Object));
            }
            Ok(Resolved::List(out))
        })(),
        (Obj::Entry { path, .. }, "name") => Ok(Resolved::Leaf(json!(path
            .rsplit('/')
            .next()
            .unwrap_or(path)))),
        (Obj::Entry { blob, .. }, "type") => Ok(Resolved::Leaf(json!(if blob.is_some() {
            "blob"
        } else {
            "tree"
        }))),
        (
            Obj::Entry {
                repo,
                root,
                path,
                blob,
            },
            "oid",
        ) => match blob {
            Some(oid) => Ok(Resolved::Leaf(json!(oid))),
            None => tree_of(state, repo, root).map(|t| Resolved::Leaf(json!(dir_sha(path, t)))),
        },
        (
            Obj::Entry {
                repo,
                root,
                path,
                blob,
            },
            "object",
        ) => Ok(Resolved::Object(match blob {
            Some(oid) => Obj::Blob {
                oid: oid.clone(),
                text: state
                    .git(repo)
                    .and_then(|g| g.blobs.get(oid))
                    .cloned()
                    .unwrap_or_default(),
            },
            None => Obj::GitTree {
                repo: repo.clone(),
                root: root.clone(),
                dir: path.clone(),
            },
        })),
        _ => return None,
    })
}
