//! The few fields of GitHub's webhook payloads that auditloop reads. Every struct ignores
//! fields it does not know, and every action enum has a catch-all, so new GitHub actions
//! (`issue_comment.pinned`, `pull_request.stacked`) never make a delivery fail to parse.

use serde::Deserialize;

use crate::ids::{CheckRunId, CommentId, PrNumber};

#[derive(Debug, Clone, Deserialize)]
pub struct Repository {
    pub full_name: String,
    #[serde(default)]
    pub default_branch: Option<String>,
    #[serde(default)]
    pub html_url: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Installation {
    pub id: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    pub login: String,
    /// `User`, `Bot` or `Organization`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GitRef {
    pub sha: String,
    #[serde(rename = "ref")]
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRequest {
    pub number: PrNumber,
    pub state: String,
    #[serde(default)]
    pub body: Option<String>,
    pub user: Account,
    pub head: GitRef,
    pub base: GitRef,
    #[serde(default)]
    pub merged: Option<bool>,
    #[serde(default)]
    pub draft: Option<bool>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub node_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PullRequestAction {
    Opened,
    Reopened,
    Synchronize,
    Edited,
    ReadyForReview,
    Closed,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ChangedFrom {
    #[serde(default)]
    pub from: Option<serde_json::Value>,
}

/// `pull_request.edited` changes: the previous body, or the previous base ref.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PullRequestChanges {
    #[serde(default)]
    pub body: Option<ChangedFrom>,
    #[serde(default)]
    pub base: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRequestEvent {
    pub action: PullRequestAction,
    pub number: PrNumber,
    /// The head before a push (`synchronize` only).
    #[serde(default)]
    pub before: Option<String>,
    pub pull_request: PullRequest,
    #[serde(default)]
    pub changes: Option<PullRequestChanges>,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
    pub sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommentAction {
    Created,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Issue {
    pub number: u64,
    #[serde(default)]
    pub state: Option<String>,
    pub user: Account,
    #[serde(default)]
    pub body: Option<String>,
    /// Present only when the issue is a pull request.
    #[serde(default)]
    pub pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Comment {
    pub id: CommentId,
    #[serde(default)]
    pub body: Option<String>,
    pub user: Account,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub performed_via_github_app: Option<serde_json::Value>,
    /// Its GraphQL id, what a reaction given through GraphQL names it by.
    #[serde(default)]
    pub node_id: Option<String>,
    /// RFC 3339, as GitHub gives it; kept a string (hostile input, read only to bound a listing).
    #[serde(default)]
    pub created_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct IssueCommentEvent {
    pub action: CommentAction,
    pub issue: Issue,
    pub comment: Comment,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
    pub sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRunAction {
    Rerequested,
    RequestedAction,
    Completed,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct App {
    pub id: u64,
    #[serde(default)]
    pub slug: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRequestRef {
    pub number: PrNumber,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckRun {
    pub id: CheckRunId,
    pub name: String,
    pub head_sha: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub app: Option<App>,
    /// Empty for pull requests from forks: match by `head_sha` instead.
    #[serde(default)]
    pub pull_requests: Vec<PullRequestRef>,
    #[serde(default)]
    pub check_suite: Option<RunSuite>,
}

/// The suite a check run belongs to: its branch names a merge group's queue.
#[derive(Debug, Clone, Deserialize)]
pub struct RunSuite {
    #[serde(default)]
    pub head_branch: Option<String>,
}

impl CheckRun {
    /// The PR a merge group's commit last queued, when this run is on one: its suite's
    /// branch is `gh-readonly-queue/<base>/pr-<N>-<sha>`.
    #[must_use]
    pub fn merge_group_pull(&self) -> Option<PrNumber> {
        let branch = self.check_suite.as_ref()?.head_branch.as_deref()?;
        let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        branch
            .starts_with("gh-readonly-queue/")
            .then(|| queued_pull(branch))
            .flatten()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct RequestedAction {
    pub identifier: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunEvent {
    pub action: CheckRunAction,
    pub check_run: CheckRun,
    #[serde(default)]
    pub requested_action: Option<RequestedAction>,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
    pub sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckSuiteAction {
    Rerequested,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckSuite {
    pub head_sha: String,
    #[serde(default)]
    pub app: Option<App>,
    #[serde(default)]
    pub pull_requests: Vec<PullRequestRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckSuiteEvent {
    pub action: CheckSuiteAction,
    pub check_suite: CheckSuite,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
    pub sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeGroupAction {
    ChecksRequested,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MergeGroup {
    pub head_sha: String,
    /// `refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>`: names the last PR queued.
    pub head_ref: String,
    #[serde(default)]
    pub base_ref: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MergeGroupEvent {
    pub action: MergeGroupAction,
    pub merge_group: MergeGroup,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
    pub sender: Account,
}

/// `installation` and `installation_repositories`: only logged.
#[derive(Debug, Clone, Deserialize)]
pub struct InstallationEvent {
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub installation: Option<Installation>,
    #[serde(default)]
    pub sender: Option<Account>,
}

impl MergeGroup {
    /// The PR number in `gh-readonly-queue/<base>/pr-<N>-<sha>`.
    #[must_use]
    pub fn queued_pull(&self) -> Option<PrNumber> {
        queued_pull(&self.head_ref)
    }
}

/// The `N` of a queue branch's last segment, `pr-<N>-<sha>`.
fn queued_pull(branch: &str) -> Option<PrNumber> {
    let last = branch.rsplit('/').next()?;
    let rest = last.strip_prefix("pr-")?;
    let (number, _sha) = rest.split_once('-')?;
    number.parse().ok().map(PrNumber)
}
