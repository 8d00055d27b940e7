//! A pull request's diff and reviews in the tests' fake: the files it changes (served by
//! the shared fake's `GET …/pulls/{n}/files`), which the review threads the app makes
//! through GraphQL must sit in, and what a test reads of those reviews and threads, or
//! does to them as a person in GitHub's UI would.

use auditloop_fake_github::graphql::PullFile;
use auditloop_fake_github::pulls;
use serde_json::{json, Value};

use super::deliveries::REPO;
use super::fake::FakeGitHub;

/// Who resolves a thread by hand: a maintainer of the repository.
pub const HAND: &str = "maint";

impl FakeGitHub {
    /// The files PR `number` changes, `(path, status, patch)` each (`""`: no patch shown),
    /// replacing any set before; the pull request's counts follow them.
    pub fn set_pull_files(&self, number: u64, files: &[(&str, &str, &str)]) {
        let list = files
            .iter()
            .map(|(path, status, patch)| pulls::file(path, status, patch))
            .collect();
        self.put_pull_files(number, list);
    }

    /// Adds to PR `number`'s files one renamed from `from` to `to`, with `patch`.
    pub fn add_renamed_pull_file(&self, number: u64, from: &str, to: &str, patch: &str) {
        let mut file = pulls::file(to, "renamed", patch);
        file.previous_filename = Some(from.to_owned());
        let mut list = self.state().pull_files.remove(&number).unwrap_or_default();
        list.push(file);
        self.put_pull_files(number, list);
    }

    fn put_pull_files(&self, number: u64, files: Vec<PullFile>) {
        let mut state = self.state();
        if let Some(pr) = state.pulls.get_mut(&number) {
            let counts = files.iter().map(|f| pulls::counts(f.patch.as_deref()));
            let (added, removed) = counts.fold((0, 0), |(a, d), (x, y)| (a + x, d + y));
            pr["changed_files"] = json!(files.len());
            pr["additions"] = json!(added);
            pr["deletions"] = json!(removed);
        }
        state.pull_files.insert(number, files);
    }

    /// PR `number`'s review threads, oldest first: `id` (the node id), `path`, `line`,
    /// `start_line`, `side`, `resolved`, `resolved_by` (REST's login), and the first
    /// comment's `body` and `author` (REST's login: `<slug>[bot]` for the App).
    pub fn review_threads(&self, number: u64) -> Vec<Value> {
        let state = self.state();
        let threads = state.reviews.threads_of(REPO, number);
        threads
            .into_iter()
            .map(|t| {
                let first = t.comments.first();
                json!({"id": t.node_id(), "path": t.path, "line": t.line,
                       "start_line": t.start_line, "side": t.side,
                       "resolved": t.resolved_by.is_some(), "resolved_by": t.resolved_by,
                       "body": first.map(|c| &c.body), "author": first.map(|c| &c.author),
                       "comments": t.comments.len()})
            })
            .collect()
    }

    /// PR `number`'s reviews, oldest first: `id`, `event` as asked (null: pending),
    /// `state`, `commit_oid`, `body`, `author` and `threads` (how many it opened).
    pub fn reviews(&self, number: u64) -> Vec<Value> {
        let state = self.state();
        let reviews = state.reviews.reviews_of(REPO, number);
        reviews
            .into_iter()
            .map(|r| {
                json!({"id": r.node_id(), "event": r.event, "state": r.state(),
                       "commit_oid": r.commit_oid, "body": r.body, "author": r.author,
                       "threads": r.threads.len()})
            })
            .collect()
    }

    /// Thread `thread_id` (its node id) resolved by a person in GitHub's UI ([`HAND`]),
    /// not through the App.
    pub fn resolve_thread_by_hand(&self, thread_id: &str) {
        let mut state = self.state();
        let found = state.reviews.set_resolved(thread_id, Some(HAND));
        assert!(found.is_some(), "no review thread {thread_id}");
    }
}
