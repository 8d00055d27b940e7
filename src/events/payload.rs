//! The few fields of GitHub's webhook payloads that auditloop reads. Every struct ignores
//! fields it does not know, and every action enum has a catch-all, so new GitHub actions
//! (`issue_comment.pinned`, `pull_request.stacked`) never make a delivery fail to parse.

use serde::Deserialize;

use crate::ids::{CheckRunId, CommentId, PrNumber};

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Repository {
    pub(crate) full_name: String,
    #[serde(default)]
    pub(crate) default_branch: Option<String>,
    #[serde(default)]
    pub(crate) html_url: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct Installation {
    pub(crate) id: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Account {
    pub(crate) login: String,
    /// `User`, `Bot` or `Organization`.
    #[serde(rename = "type", default)]
    pub(crate) kind: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct GitRef {
    pub(crate) sha: String,
    #[serde(rename = "ref")]
    pub(crate) name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PullRequest {
    // Required, as GitHub always sends it, though only the event's own number is read.
    #[serde(rename = "number")]
    _number: PrNumber,
    pub(crate) state: String,
    #[serde(default)]
    pub(crate) body: Option<String>,
    pub(crate) user: Account,
    pub(crate) head: GitRef,
    pub(crate) base: GitRef,
    #[serde(default)]
    pub(crate) merged: Option<bool>,
    #[serde(default)]
    pub(crate) node_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PullRequestAction {
    Opened,
    Reopened,
    Synchronize,
    Edited,
    ReadyForReview,
    Closed,
    #[serde(other)]
    Other,
}

/// `pull_request.edited` changes: only whether the base ref changed is read.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct PullRequestChanges {
    #[serde(default)]
    pub(crate) base: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRequestEvent {
    pub(crate) action: PullRequestAction,
    pub(crate) number: PrNumber,
    /// The head before a push (`synchronize` only).
    #[serde(default)]
    pub(crate) before: Option<String>,
    pub(crate) pull_request: PullRequest,
    #[serde(default)]
    pub(crate) changes: Option<PullRequestChanges>,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    pub(crate) sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CommentAction {
    Created,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Issue {
    pub(crate) number: u64,
    // Required, as GitHub always sends it.
    #[serde(rename = "user")]
    _user: Account,
    #[serde(default)]
    pub(crate) body: Option<String>,
    /// Present only when the issue is a pull request.
    #[serde(default)]
    pub(crate) pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Comment {
    pub(crate) id: CommentId,
    #[serde(default)]
    pub(crate) body: Option<String>,
    pub(crate) user: Account,
    #[serde(default)]
    pub(crate) html_url: Option<String>,
    /// Its GraphQL id, what a reaction given through GraphQL names it by.
    #[serde(default)]
    pub(crate) node_id: Option<String>,
    /// RFC 3339, as GitHub gives it; kept a string (hostile input, read only to bound a listing).
    #[serde(default)]
    pub(crate) created_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct IssueCommentEvent {
    pub(crate) action: CommentAction,
    pub(crate) issue: Issue,
    pub(crate) comment: Comment,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    // Required, as GitHub always sends it; the comment's own author is the one acting.
    #[serde(rename = "sender")]
    _sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IssuesAction {
    Reopened,
    Closed,
    #[serde(other)]
    Other,
}

/// `issues`: an issue opened, closed or reopened; a covered task reopened makes a
/// certification stale (docs/reference.md#gate-conditions).
#[derive(Debug, Clone, Deserialize)]
pub struct IssuesEvent {
    pub(crate) action: IssuesAction,
    pub(crate) issue: Issue,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    pub(crate) sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckRunAction {
    Rerequested,
    RequestedAction,
    Completed,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct App {
    pub(crate) id: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PullRequestRef {
    pub(crate) number: PrNumber,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CheckRun {
    // Required, as GitHub always sends it.
    #[serde(rename = "id")]
    _id: CheckRunId,
    pub(crate) name: String,
    pub(crate) head_sha: String,
    #[serde(default)]
    pub(crate) app: Option<App>,
    /// Empty for pull requests from forks: match by `head_sha` instead.
    #[serde(default)]
    pub(crate) pull_requests: Vec<PullRequestRef>,
    #[serde(default)]
    pub(crate) check_suite: Option<RunSuite>,
}

/// The suite a check run belongs to: its branch names a merge group's queue.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RunSuite {
    #[serde(default)]
    pub(crate) head_branch: Option<String>,
}

impl CheckRun {
    /// The PR a merge group's commit last queued, when this run is on one: its suite's
    /// branch is `gh-readonly-queue/<base>/pr-<N>-<sha>`.
    #[must_use]
    pub(crate) fn merge_group_pull(&self) -> Option<PrNumber> {
        let branch = self.check_suite.as_ref()?.head_branch.as_deref()?;
        let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        branch
            .starts_with("gh-readonly-queue/")
            .then(|| queued_pull(branch))
            .flatten()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RequestedAction {
    pub(crate) identifier: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunEvent {
    pub(crate) action: CheckRunAction,
    pub(crate) check_run: CheckRun,
    #[serde(default)]
    pub(crate) requested_action: Option<RequestedAction>,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    pub(crate) sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckSuiteAction {
    Rerequested,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CheckSuite {
    pub(crate) head_sha: String,
    #[serde(default)]
    pub(crate) app: Option<App>,
    #[serde(default)]
    pub(crate) pull_requests: Vec<PullRequestRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckSuiteEvent {
    pub(crate) action: CheckSuiteAction,
    pub(crate) check_suite: CheckSuite,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    pub(crate) sender: Account,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MergeGroupAction {
    ChecksRequested,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct MergeGroup {
    pub(crate) head_sha: String,
    /// `refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>`: names the last PR queued.
    pub(crate) head_ref: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MergeGroupEvent {
    pub(crate) action: MergeGroupAction,
    pub(crate) merge_group: MergeGroup,
    pub(crate) repository: Repository,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
    pub(crate) sender: Account,
}

/// `installation` and `installation_repositories`: only logged.
#[derive(Debug, Clone, Deserialize)]
pub struct InstallationEvent {
    #[serde(default)]
    pub(crate) action: Option<String>,
    #[serde(default)]
    pub(crate) installation: Option<Installation>,
}

impl MergeGroup {
    /// The PR number in `gh-readonly-queue/<base>/pr-<N>-<sha>`.
    #[must_use]
    pub(crate) fn queued_pull(&self) -> Option<PrNumber> {
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
