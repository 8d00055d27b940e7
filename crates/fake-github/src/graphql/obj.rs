//! What the executor completes: GraphQL objects the fake serves, a field's value before
//! completion, and the errors a field answers as GitHub words them.

use serde_json::{Map, Value};

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
        repo: String,
        branch: String,
        dir: String,
    },
    /// An entry of such a directory: a file or a directory at `path`.
    FileEntry {
        repo: String,
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
    /// Commits of a pull request (its head alone for `last: 1`), one page, and the
    /// cursor after it when more follow.
    PullCommits {
        repo: String,
        commits: Vec<super::world::PullCommitInfo>,
        next: Option<String>,
    },
    PullCommit {
        repo: String,
        commit: super::world::PullCommitInfo,
    },
    /// A commit's author or committer, with the account GitHub links to it.
    GitActor(Option<String>),
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
    /// A commit's open pull requests (`associatedPullRequests`), by number.
    Pulls {
        repo: String,
        numbers: Vec<u64>,
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
    /// Reviews, their threads and comments, and the mutations' answers about them.
    Review(super::review_obj::ReviewObj),
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
            Obj::GitActor(_) => "GitActor",
            Obj::CheckSuites { .. } => "CheckSuiteConnection",
            Obj::CheckSuite { .. } => "CheckSuite",
            Obj::CheckRuns { .. } => "CheckRunConnection",
            Obj::CheckRun(_) => "CheckRun",
            Obj::App(_) => "App",
            Obj::Parents { .. } => "CommitConnection",
            Obj::Pulls { .. } => "PullRequestConnection",
            Obj::UpdatedPull { .. } => "UpdatePullRequestPayload",
            Obj::AddedReaction(_) => "AddReactionPayload",
            Obj::Reaction(_) => "Reaction",
            Obj::RunPayload { created: true, .. } => "CreateCheckRunPayload",
            Obj::RunPayload { created: false, .. } => "UpdateCheckRunPayload",
            Obj::Review(r) => r.type_name(),
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

/// Refuses an input that gives a field (coercion leaves out what was not given) other
/// than `allowed`: the fake does not model it.
pub(super) fn only(input: &Value, allowed: &[&str], ty: &str) -> Result<(), FieldError> {
    let extra = input
        .as_object()
        .into_iter()
        .flatten()
        .find(|(k, v)| !allowed.contains(&k.as_str()) && !v.is_null());
    match extra {
        Some((k, _)) => Err(FieldError::unserved(&format!("{ty}.{k}"))),
        None => Ok(()),
    }
}
