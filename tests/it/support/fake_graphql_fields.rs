//! The GraphQL fields the fake serves, exactly those of the documents the app sends
//! (`RecordsCommit`, `RecordsLanded`, `FirstReads`, `BodyAndReaction`), read from the same
//! state as the REST routes: git data here, files, pull requests and check runs in
//! `fake_graphql_reads`, the body's update and the reaction in `fake_graphql_writes`.
//! Any other field or argument, valid in GitHub's schema or not, is refused as unserved.

use serde_json::{json, Map, Value};

use super::fake::State;

/// A GraphQL object: its type, and what its fields are read from.
pub enum Obj {
    Query,
    Mutation,
    /// `owner/name`.
    Repository(String),
    Ref {
        repo: String,
        oid: String,
    },
    Commit {
        repo: String,
        oid: String,
    },
    /// A directory of a branch's files (the contents API's), by its listing's id.
    Tree {
        oid: String,
        branch: String,
        dir: String,
    },
    /// An entry of such a directory: a file or a directory at `path`.
    FileEntry {
        branch: String,
        path: String,
        dir: bool,
    },
    /// An issue, as the fake's state holds it.
    Issue(Value),
    Labels(Vec<String>),
    Label(String),
    /// A directory `dir` (`""`: the root) of commit tree `root`, as GraphQL lists it.
    GitTree {
        repo: String,
        root: String,
        dir: String,
    },
    /// An entry of a `GitTree`: a blob or a directory at `path`.
    Entry {
        repo: String,
        root: String,
        path: String,
        blob: Option<String>,
    },
    /// One page of a commit's first-parent history, head first.
    History {
        repo: String,
        page: Vec<String>,
        has_next: bool,
        end_cursor: Option<String>,
    },
    /// `cursors`: whether the connection's cursors are served (`endCursor`).
    PageInfo {
        has_next: bool,
        end_cursor: Option<String>,
        cursors: bool,
    },
    RateLimit,
    CommitPayload {
        repo: String,
        commit: String,
    },
    /// A file of a branch, as the contents API serves it.
    Blob {
        oid: String,
        text: String,
    },
    PullRequest {
        repo: String,
        number: u64,
    },
    /// A pull request's author: a `Bot` or a `User`.
    Actor {
        login: String,
        bot: bool,
    },
    /// The last commit of a pull request, its head.
    PullCommits {
        repo: String,
        head: String,
    },
    PullCommit {
        repo: String,
        head: String,
    },
    /// One page of a commit's check suites: each App's latest runs, newest first.
    CheckSuites {
        page: Vec<(Option<String>, Vec<Value>)>,
        has_next: bool,
    },
    CheckSuite {
        app: Option<String>,
        runs: Vec<Value>,
    },
    /// One page of a suite's runs, as REST's check-run objects.
    CheckRuns {
        page: Vec<Value>,
        has_next: bool,
    },
    CheckRun(Value),
    /// An App, by slug.
    App(String),
    /// A commit's parents (a page of them).
    Parents {
        repo: String,
        oids: Vec<String>,
    },
    /// `updatePullRequest`'s answer.
    UpdatedPull {
        repo: String,
        number: u64,
    },
    /// `addReaction`'s answer, with the content given.
    AddedReaction(String),
    Reaction(String),
    /// `createCheckRun`'s (`created`) or `updateCheckRun`'s answer: the run by its id.
    RunPayload {
        id: u64,
        created: bool,
    },
}

impl Obj {
    pub fn type_name(&self) -> &'static str {
        match self {
            Obj::Query => "Query",
            Obj::Mutation => "Mutation",
            Obj::Repository(_) => "Repository",
            Obj::Ref { .. } => "Ref",
            Obj::Commit { .. } => "Commit",
            Obj::Tree { .. } | Obj::GitTree { .. } => "Tree",
            Obj::Issue(_) => "Issue",
            Obj::Labels(_) => "LabelConnection",
            Obj::Label(_) => "Label",
            Obj::Entry { .. } | Obj::FileEntry { .. } => "TreeEntry",
            Obj::History { .. } => "CommitHistoryConnection",
            Obj::PageInfo { .. } => "PageInfo",
            Obj::RateLimit => "RateLimit",
            Obj::CommitPayload { .. } => "CreateCommitOnBranchPayload",
            Obj::Blob { .. } => "Blob",
            Obj::PullRequest { .. } => "PullRequest",
            Obj::Actor { bot: true, .. } => "Bot",
            Obj::Actor { bot: false, .. } => "User",
            Obj::PullCommits { .. } => "PullRequestCommitConnection",
            Obj::PullCommit { .. } => "PullRequestCommit",
            Obj::CheckSuites { .. } => "CheckSuiteConnection",
            Obj::CheckSuite { .. } => "CheckSuite",
            Obj::CheckRuns { .. } => "CheckRunConnection",
            Obj::CheckRun(_) => "CheckRun",
            Obj::App(_) => "App",
            Obj::Parents { .. } => "CommitConnection",
            Obj::UpdatedPull { .. } => "UpdatePullRequestPayload",
            Obj::AddedReaction(_) => "AddReactionPayload",
            Obj::Reaction(_) => "Reaction",
            Obj::RunPayload { created: true, .. } => "CreateCheckRunPayload",
            Obj::RunPayload { created: false, .. } => "UpdateCheckRunPayload",
        }
    }
}

/// A field's value before completion; `Leaf(Value::Null)` is null.
pub enum Resolved {
    Leaf(Value),
    Object(Obj),
    List(Vec<Resolved>),
}

/// A field error as GitHub reports it: its `type` (`NOT_FOUND`, `STALE_DATA`, …), and
/// whether it carries the field's `locations`. `unserved` marks what the fake does not
/// model: it fails the test too.
pub struct FieldError {
    pub kind: Option<&'static str>,
    pub message: String,
    pub located: bool,
    pub unserved: bool,
}

impl FieldError {
    pub fn github(kind: &'static str, message: String, located: bool) -> Self {
        Self {
            kind: Some(kind),
            message,
            located,
            unserved: false,
        }
    }

    pub fn plain(message: String) -> Self {
        Self {
            kind: None,
            message,
            located: true,
            unserved: false,
        }
    }

    pub fn unserved(what: &str) -> Self {
        Self {
            kind: None,
            message: format!("the fake GitHub does not serve {what}"),
            located: true,
            unserved: true,
        }
    }
}

/// Type, field and the arguments a document may give it: everything the fake serves of
/// git data (the rest is `fake_graphql_reads::SERVED`).
const SERVED: &[(&str, &str, &[&str])] = &[
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

/// Whether the fake serves `ty.field` with the arguments `given`.
pub fn served(ty: &str, field: &str, given: &[&str]) -> Result<(), FieldError> {
    let Some((_, _, allowed)) = SERVED
        .iter()
        .chain(super::fake_graphql_reads::SERVED)
        .chain(super::fake_graphql_writes::SERVED)
        .chain(super::fake_graphql_checks::SERVED)
        .chain(super::fake_graphql_trees::SERVED)
        .chain(super::fake_graphql_packet::SERVED)
        .find(|(t, f, _)| *t == ty && *f == field)
    else {
        return Err(FieldError::unserved(&format!("{ty}.{field}")));
    };
    match given.iter().find(|a| !allowed.contains(a)) {
        Some(arg) => Err(FieldError::unserved(&format!("{ty}.{field}({arg}:)"))),
        None => Ok(()),
    }
}

/// Whether the fake has repository `owner/name`: one with git data, or the deliveries' own.
pub fn repository_exists(state: &State, repo: &str) -> bool {
    state.git.contains_key(repo) || repo == super::deliveries::REPO
}

fn leaf(v: impl Into<Value>) -> Resolved {
    Resolved::Leaf(v.into())
}

fn object(o: Obj) -> Resolved {
    Resolved::Object(o)
}

/// The value of the served field `field` of `obj`.
pub fn resolve(
    state: &mut State,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    let text = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or_default();
    Ok(match (obj, field) {
        (Obj::Query, "repository") => {
            let repo = format!("{}/{}", text("owner"), text("name"));
            if !repository_exists(state, &repo) {
                let message = format!("Could not resolve to a Repository with the name '{repo}'.");
                return Err(FieldError::github("NOT_FOUND", message, true));
            }
            object(Obj::Repository(repo))
        }
        (Obj::Query, "rateLimit") => object(Obj::RateLimit),
        (Obj::RateLimit, "cost") => leaf(1),
        (Obj::RateLimit, "remaining") => leaf(4999),
        (Obj::Mutation, "createCommitOnBranch") => {
            super::fake_graphql_commit::create_commit_on_branch(state, &args["input"])?
        }
        (Obj::Repository(repo), "ref") => {
            // GitHub resolves a short name as a branch.
            let qualified = text("qualifiedName");
            let name = qualified
                .strip_prefix("refs/")
                .map_or_else(|| format!("heads/{qualified}"), str::to_owned);
            let oid = state.git.get(repo).and_then(|g| g.refs.get(&name));
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
            let Some(commit) = state.git.get(repo).and_then(|g| g.commits.get(oid)) else {
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
            let Some(commit) = state.git.get(repo).and_then(|g| g.commits.get(oid)) else {
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
        _ => {
            if let Some(done) = super::fake_graphql_writes::resolve(state, obj, field, args) {
                return done;
            }
            if let Some(done) = super::fake_graphql_checks::resolve(state, obj, field, args) {
                return done;
            }
            if let Some(done) = super::fake_graphql_trees::resolve(state, obj, field, args) {
                return done;
            }
            if let Some(done) = super::fake_graphql_packet::resolve(state, obj, field, args) {
                return done;
            }
            return super::fake_graphql_reads::resolve(state, obj, field, args);
        }
    })
}

/// The most a connection gives on a page, as on GitHub.
const PAGE_LIMIT: u64 = 100;

/// The page size `arg` (`first` or `last`) asks of `connection`, within GitHub's bounds.
pub fn page_size(
    args: &Map<String, Value>,
    arg: &str,
    connection: &str,
) -> Result<usize, FieldError> {
    let Some(size) = args.get(arg).and_then(Value::as_u64) else {
        let message = format!("You must provide a `first` or `last` value to properly paginate the `{connection}` connection.");
        return Err(FieldError::github(
            "MISSING_PAGINATION_BOUNDARIES",
            message,
            true,
        ));
    };
    if size > PAGE_LIMIT {
        let message = format!("Requesting {size} records on the `{connection}` connection exceeds the `{arg}` limit of {PAGE_LIMIT} records.");
        return Err(FieldError::github("EXCESSIVE_PAGINATION", message, true));
    }
    Ok(usize::try_from(size).expect("at most 100"))
}

/// A page of `oid`'s first-parent history. The cursor is `<oid> <index>`, as GitHub's
/// history cursors read (opaque to the app).
fn history(
    state: &State,
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
    let git = state.git.get(repo);
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
