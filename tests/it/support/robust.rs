//! Helpers for robustness and cost tests: deliveries with chosen ids (to redeliver them),
//! concurrent deliveries, and the records branch's history as events.

use serde_json::Value;

use super::audit::{Loop, BRANCH};
use super::deliveries::{pr_comment, REPO};

impl Loop {
    /// Delivers `body` as a comment with delivery id `id`; returns the HTTP status.
    pub async fn comment_as(&self, id: &str, pr: u64, login: &str, body: &str) -> u16 {
        let r = self
            .app
            .deliver("issue_comment", id, &pr_comment(pr, login, body))
            .await;
        r.status().as_u16()
    }

    /// Delivers every `(id, pr, login, body)` at once; returns the statuses in order.
    pub async fn comments_concurrently(
        &self,
        comments: &[(String, u64, &str, String)],
    ) -> Vec<u16> {
        let sends = comments
            .iter()
            .map(|(id, pr, login, body)| self.comment_as(id, *pr, login, body));
        futures::future::join_all(sends).await
    }

    /// Commit messages on the records branch, newest first.
    pub fn log(&self) -> Vec<String> {
        self.gh.branch_log(REPO, BRANCH)
    }

    pub fn head(&self) -> Option<String> {
        self.gh.branch_head(REPO, BRANCH)
    }

    /// The history of record `id` on the branch.
    pub fn history(&self, id: &str) -> Vec<Value> {
        self.record(id)["history"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// How many events of record `id` carry delivery `delivery`.
    pub fn events_of(&self, id: &str, delivery: &str) -> usize {
        self.history(id)
            .iter()
            .filter(|e| e["delivery"] == delivery)
            .count()
    }

    /// Replies on `pr` carrying the marker of `delivery`.
    pub fn replies_for(&self, pr: u64, delivery: &str) -> usize {
        let marker = format!("<!-- auditloop:delivery:{delivery} -->");
        self.gh
            .comments_on(pr)
            .iter()
            .filter(|c| c.contains(&marker))
            .count()
    }

    /// Requests the fake has received so far.
    pub fn request_count(&self) -> usize {
        self.gh.state().requests.len()
    }
}
