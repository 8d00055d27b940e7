//! Repositories, refs and commits with their first-parent history, from the fake's git
//! data: what `RecordsCommit` and `RecordsLanded` read, and `rateLimit`.

use serde_json::{json, Map, Value};

use super::obj::{page_size, FieldError, Obj, Resolved};
use super::world::World;

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Query", "repository", &["owner", "name"]),
    ("Query", "rateLimit", &[]),
    ("Mutation", "createCommitOnBranch", &["input"]),
    ("Repository", "ref", &["qualifiedName"]),
    ("Ref", "target", &[]),
    ("Commit", "oid", &[]),
    ("Commit", "message", &[]),
    ("Commit", "tree", &[]),
    ("Commit", "history", &["first", "after"]),
    ("Tree", "oid", &[]),
    ("CommitHistoryConnection", "pageInfo", &[]),
    ("CommitHistoryConnection", "nodes", &[]),
    ("PageInfo", "hasNextPage", &[]),
    ("PageInfo", "endCursor", &[]),
    ("RateLimit", "cost", &[]),
    ("RateLimit", "remaining", &[]),
    ("CreateCommitOnBranchPayload", "commit", &[]),
];

fn leaf(v: impl Into<Value>) -> Resolved {
    Resolved::Leaf(v.into())
}

fn object(o: Obj) -> Resolved {
    Resolved::Object(o)
}

/// The value of the served field `field` of `obj`, when it is one of this module's.
pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    value(state, obj, field, args).transpose()
}

fn value(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Result<Option<Resolved>, FieldError> {
    let text = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or_default();
    Ok(Some(match (obj, field) {
        (Obj::Query, "repository") => {
            let repo = format!("{}/{}", text("owner"), text("name"));
            if !state.repository_exists(&repo) {
                let message = format!("Could not resolve to a Repository with the name '{repo}'.");
                return Err(FieldError::github("NOT_FOUND", message, true));
            }
            object(Obj::Repository(repo))
        }
        (Obj::Query, "rateLimit") => object(Obj::RateLimit),
        (Obj::RateLimit, "cost") => leaf(1),
        (Obj::RateLimit, "remaining") => leaf(state.points_remaining()),
        (Obj::Mutation, "createCommitOnBranch") => {
            super::commit_on_branch::create_commit_on_branch(state, &args["input"])?
        }
        (Obj::Repository(repo), "ref") => {
            // GitHub resolves a short name as a branch.
            let qualified = text("qualifiedName");
            let name = qualified
                .strip_prefix("refs/")
                .map_or_else(|| format!("heads/{qualified}"), str::to_owned);
            let oid = state.git(repo).and_then(|g| g.refs.get(&name));
            oid.map_or(Resolved::Leaf(Value::Null), |oid| {
                object(Obj::Ref {
                    repo: repo.clone(),
                    oid: oid.clone(),
                })
            })
        }
        (Obj::Ref { repo, oid }, "target") => object(Obj::Commit {
            repo: repo.clone(),
            oid: oid.clone(),
        }),
        (Obj::Commit { oid, .. } | Obj::Tree { oid, .. }, "oid") => leaf(oid.as_str()),
        (Obj::Commit { repo, oid }, "message" | "tree") => {
            let Some(commit) = state.git(repo).and_then(|g| g.commits.get(oid)) else {
                return Err(FieldError::plain(format!("no commit {oid} in {repo}")));
            };
            if field == "message" {
                leaf(commit.message.as_str())
            } else {
                object(Obj::GitTree {
                    repo: repo.clone(),
                    root: commit.tree.clone(),
                    dir: String::new(),
                })
            }
        }
        (Obj::Commit { repo, oid }, "history") => history(state, repo, oid, args)?,
        (Obj::Commit { repo, oid }, "parents") => {
            let first = page_size(args, "first", "parents")?;
            let Some(commit) = state.git(repo).and_then(|g| g.commits.get(oid)) else {
                return Err(FieldError::plain(format!("no commit {oid} in {repo}")));
            };
            object(Obj::Parents {
                repo: repo.clone(),
                oids: commit.parents.iter().take(first).cloned().collect(),
            })
        }
        (Obj::Parents { repo, oids }, "nodes") => Resolved::List(
            oids.iter()
                .map(|oid| {
                    object(Obj::Commit {
                        repo: repo.clone(),
                        oid: oid.clone(),
                    })
                })
                .collect(),
        ),
        (
            Obj::History {
                has_next,
                end_cursor,
                ..
            },
            "pageInfo",
        ) => object(Obj::PageInfo {
            has_next: *has_next,
            end_cursor: end_cursor.clone(),
            cursors: true,
        }),
        (Obj::History { repo, page, .. }, "nodes") => Resolved::List(
            page.iter()
                .map(|oid| {
                    object(Obj::Commit {
                        repo: repo.clone(),
                        oid: oid.clone(),
                    })
                })
                .collect(),
        ),
        (Obj::PageInfo { has_next, .. }, "hasNextPage") => leaf(*has_next),
        (
            Obj::PageInfo {
                end_cursor,
                cursors: true,
                ..
            },
            "endCursor",
        ) => leaf(json!(end_cursor)),
        (Obj::CommitPayload { repo, commit }, "commit") => object(Obj::Commit {
            repo: repo.clone(),
            oid: commit.clone(),
        }),
        _ => return Ok(None),
    }))
}

/// A page of `oid`'s first-parent history. The cursor is `<oid> <index>`, as GitHub's
/// history cursors read (opaque to the app).
fn history(
    state: &dyn World,
    repo: &str,
    oid: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    let first = page_size(args, "first", "history")?;
    let skip = match args.get("after").and_then(Value::as_str) {
        None => 0,
        Some(after) => {
            let index = after
                .split_once(' ')
                .and_then(|(_, n)| n.parse::<usize>().ok());
            let Some(index) = index else {
                let message = format!("`{after}` does not appear to be a valid cursor.");
                return Err(FieldError::github(
                    "INVALID_CURSOR_ARGUMENTS",
                    message,
                    true,
                ));
            };
            index + 1
        }
    };
    let git = state.git(repo);
    let mut chain = Vec::new();
    let mut at = Some(oid.to_owned());
    while let Some(c) = at {
        at = git
            .and_then(|g| g.commits.get(&c))
            .and_then(|commit| commit.parents.first().cloned());
        chain.push(c);
    }
    let page: Vec<String> = chain.iter().skip(skip).take(first).cloned().collect();
    let end = skip + page.len();
    Ok(object(Obj::History {
        repo: repo.to_owned(),
        has_next: chain.len() > end,
        end_cursor: (!page.is_empty()).then(|| format!("{oid} {}", end - 1)),
        page,
    }))
}
