//! The REST calls auditloop makes besides the records branch, each under its documented
//! route, decoding only the fields we use.

mod app;
mod checks;
mod commits;
mod compare;
mod contents;
mod dispatches;
mod hooks;
mod installations;
mod issues;
mod permission;
mod pulls;
mod refs;

pub(crate) use app::*;
pub use checks::*;
pub(crate) use commits::*;
pub(crate) use compare::*;
pub use contents::*;
pub(crate) use dispatches::*;
pub use hooks::*;
pub(crate) use installations::*;
pub(crate) use issues::*;
pub(crate) use permission::*;
pub use pulls::*;
pub(crate) use refs::*;

use crate::ids::RepoName;

pub(crate) const LIST_PULLS: &str = "GET /repos/{owner}/{repo}/pulls";
pub(crate) const GET_PULL: &str = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
pub(crate) const PATCH_PULL: &str = "PATCH /repos/{owner}/{repo}/pulls/{pull_number}";
pub(crate) const PULL_FILES: &str = "GET /repos/{owner}/{repo}/pulls/{pull_number}/files";
pub(crate) const GET_CONTENT: &str = "GET /repos/{owner}/{repo}/contents/{path}";
pub(crate) const GET_PERMISSION: &str =
    "GET /repos/{owner}/{repo}/collaborators/{username}/permission";
pub(crate) const POST_COMMENT: &str = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub(crate) const LIST_COMMENTS: &str = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub(crate) const POST_REACTION: &str =
    "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions";
pub(crate) const LIST_REACTIONS: &str =
    "GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions";
pub(crate) const POST_ISSUE: &str = "POST /repos/{owner}/{repo}/issues";
pub(crate) const LIST_ISSUES: &str = "GET /repos/{owner}/{repo}/issues";
pub(crate) const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";
pub(crate) const LIST_CHECKS: &str = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs";
pub(crate) const POST_CHECK: &str = "POST /repos/{owner}/{repo}/check-runs";
pub(crate) const PATCH_CHECK: &str = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}";
pub(crate) const POST_REF: &str = "POST /repos/{owner}/{repo}/git/refs";
pub(crate) const GET_REF: &str = "GET /repos/{owner}/{repo}/git/ref/{ref}";
pub(crate) const DELETE_REF: &str = "DELETE /repos/{owner}/{repo}/git/refs/{ref}";
pub(crate) const MATCHING_REFS: &str = "GET /repos/{owner}/{repo}/git/matching-refs/{ref}";
pub(crate) const COMPARE: &str = "GET /repos/{owner}/{repo}/compare/{basehead}";
pub(crate) const PULLS_FOR_COMMIT: &str = "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls";

fn path(repo: &RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}
