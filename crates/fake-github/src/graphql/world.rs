//! What a fake keeps that GraphQL reads and changes.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::checks::CheckRuns;
use crate::git::GitRepo;
pub use crate::pulls::PullFile;
use crate::reviews::Reviews;

/// A commit of a pull request with the accounts GitHub links to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullCommitInfo {
    pub oid: String,
    pub author: Option<String>,
    pub committer: Option<String>,
}

/// The state a GraphQL call reads and changes: what the fake keeps, in its own containers.
pub trait World {
    /// Whether repository `owner/name` exists.
    fn repository_exists(&self, repo: &str) -> bool;
    /// Every repository the fake knows, for finding one by its GraphQL id.
    fn repositories(&self) -> Vec<String>;
    /// A repository's git data.
    fn git(&self, repo: &str) -> Option<&GitRepo>;
    /// A repository's pull requests, as REST's objects.
    fn pulls(&self, repo: &str) -> Vec<&Value>;
    /// Pull request `number` of `repo`, to change.
    fn pull_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value>;
    /// Issue `number` of `repo`, as REST's object.
    fn issue(&self, repo: &str, number: u64) -> Option<&Value>;
    fn check_runs(&self) -> &CheckRuns;
    fn check_runs_mut(&mut self) -> &mut CheckRuns;
    /// Pull-request reviews and their threads.
    fn reviews(&self) -> &Reviews;
    fn reviews_mut(&mut self) -> &mut Reviews;
    /// The files pull request `number` changes, in the listing's order: the diff a review
    /// thread must sit in. By default none.
    fn pull_files(&self, _repo: &str, _number: u64) -> Vec<PullFile> {
        Vec::new()
    }
    /// The App's reaction `content` (REST's name) on comment `comment`.
    fn react(&mut self, comment: u64, content: &str);
    /// A fresh id for a new object.
    fn next_id(&mut self) -> u64;
    /// The slug of the App the calls are made as.
    fn app_slug(&self) -> &str;
    /// The files at `branch` of `repo` (the contents API's view), by path.
    fn files_at(&self, repo: &str, branch: &str) -> BTreeMap<String, String>;
    /// The commits of pull request `number`, oldest first: their SHAs and the logins GitHub
    /// links as author and committer (`None`: no account). By default the head alone,
    /// authored and committed by the pull request's author.
    fn pull_commits(&self, repo: &str, number: u64) -> Vec<PullCommitInfo> {
        self.pulls(repo)
            .into_iter()
            .find(|p| p["number"] == number)
            .map(|p| {
                let login = p["user"]["login"].as_str().map(str::to_owned);
                vec![PullCommitInfo {
                    oid: p["head"]["sha"].as_str().unwrap_or_default().to_owned(),
                    author: login.clone(),
                    committer: login,
                }]
            })
            .unwrap_or_default()
    }
    /// Whether a field of the type named fails, as GitHub fails a part of an answer.
    fn fails(&self, _type_name: &str, _field: &str) -> bool {
        false
    }
    /// GraphQL points left this hour (`rateLimit.remaining`).
    fn points_remaining(&self) -> u64 {
        4999
    }
    /// A document the schema rejects, or something valid the fake does not serve.
    fn problem(&mut self, message: String);
    /// Just before `createCommitOnBranch` reads `branch`, with the files it writes: a push
    /// by someone else may land first, the files may be checked.
    fn before_commit(&mut self, _repo: &str, _branch: &str, _files: &[(String, String)]) {}
    /// Commits `files` on top of `branch` of `repo` and moves it: the new commit's SHA.
    fn commit(
        &mut self,
        repo: &str,
        branch: &str,
        files: &[(String, String)],
        message: &str,
    ) -> String;
}
