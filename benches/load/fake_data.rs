//! What the load tool's fake GitHub keeps: each repository's git data with every move of
//! its branches, pull requests, check runs, comments, reactions, reviews, issues and the
//! App's delivery log, by repository, with the ids and the files every repository holds.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::objects;
use auditloop_fake_github::permissions::Permissions;

pub const SLUG: &str = "auditloop-load";
/// The App's installation, on the organization every repository of a run is in.
pub const INSTALLATION: u64 = 4242;
pub const CONFIG: &str = "audit_budget: 1000\n";
/// Where every repository of a run keeps `CONFIG`.
pub const CONFIG_PATH: &str = ".github/auditloop.yml";

/// A repository's git data, as the shared fake keeps it (`auditloop_fake_github::git`),
/// with every move of a branch the invariants follow.
#[derive(Default)]
pub struct Git {
    pub repo: GitRepo,
    /// Every move of a branch (`heads/...`): its name, where it was and where it went.
    pub moves: Vec<(String, Option<String>, String)>,
}

impl std::ops::Deref for Git {
    type Target = GitRepo;
    fn deref(&self) -> &GitRepo {
        &self.repo
    }
}

impl std::ops::DerefMut for Git {
    fn deref_mut(&mut self) -> &mut GitRepo {
        &mut self.repo
    }
}

#[derive(Default)]
pub struct Data {
    /// By repository `owner/name`.
    pub git: HashMap<String, Git>,
    pub pulls: HashMap<(String, u64), Value>,
    /// Heads the pull requests had before a push moved them on, by repository: their
    /// commits remain.
    pub left_heads: HashSet<(String, String)>,
    pub runs: auditloop_fake_github::checks::CheckRuns,
    pub comments: auditloop_fake_github::comments::Comments,
    pub reactions: auditloop_fake_github::comments::Reactions,
    /// Pull-request reviews and their threads, made through GraphQL.
    pub reviews: auditloop_fake_github::reviews::Reviews,
    /// The files each pull request changes (`GET …/pulls/{n}/files`): the diff its review
    /// threads must sit in. None for the load's pull requests; the loop simulator's have some.
    pub pull_files: HashMap<(String, u64), Vec<auditloop_fake_github::pulls::PullFile>>,
    /// The review mutations the app sent (`fake_reviews.rs`), oldest first.
    pub review_calls: Vec<crate::fake_reviews::ReviewCall>,
    /// Issues opened (by `file` dispositions), by repository, oldest first.
    pub issues: HashMap<String, Vec<Value>>,
    pub tokens: u32,
    /// GraphQL calls served, each costing one point of the rate limit.
    pub graphql_points: u64,
    /// GraphQL documents GitHub's schema rejects, and fields, arguments or inputs of
    /// valid ones the fake does not serve: each marks its call unserved.
    pub graphql_problems: Vec<String>,
    /// Someone else's commit lands before the GraphQL commit being carried out.
    pub someone_first: bool,
    /// The App's webhook delivery log: every attempt the sender made, and redeliveries.
    pub hooks: auditloop_fake_github::hooks::Hooks,
    /// Collaborators' roles: `maint` maintains every repository, everyone else may write.
    pub permissions: Permissions,
    /// `repository_dispatch` events accepted.
    pub dispatches: Vec<Value>,
    next_id: u64,
}

impl Data {
    /// An empty fake: ids start at 1001, `maint` maintains, everyone else writes.
    pub fn new() -> Self {
        let mut permissions = Permissions::with_others("write");
        permissions.set("maint", "maintain");
        Data {
            next_id: 1000,
            permissions,
            ..Data::default()
        }
    }

    /// The id handed out last.
    pub fn last_id(&self) -> u64 {
        self.next_id
    }
}

/// The GraphQL id of repository `repo`.
pub fn repo_node(repo: &str) -> String {
    auditloop_fake_github::graphql::repository_id(repo)
}

/// The next id the fake hands out.
pub fn next_id(data: &mut Data) -> u64 {
    data.next_id += 1;
    data.next_id
}

impl Git {
    /// Commits `files` on the ref `name` (`heads/...`) as someone else would (seeding records).
    pub fn commit_files(&mut self, name: &str, files: &[(String, String)]) -> String {
        let branch = name.strip_prefix("heads/").unwrap_or(name);
        self.repo.commit_files(branch, files, "seed [skip ci]")
    }

    /// The text of `path` at the ref `name` (`heads/...`).
    pub fn file(&self, name: &str, path: &str) -> Option<String> {
        let branch = name.strip_prefix("heads/").unwrap_or(name);
        self.repo.file(branch, path).map(str::to_owned)
    }
}

/// The GraphQL id of pull request `number` of `repo` (opaque to the app, as GitHub's are).
pub fn pull_node(repo: &str, number: u64) -> String {
    format!("PR_{}_{number}", repo.replace('/', "_"))
}

/// The GraphQL id of comment `id`, as GitHub's comment objects carry it.
pub fn comment_node(id: u64) -> String {
    objects::node_id("IC", id)
}
