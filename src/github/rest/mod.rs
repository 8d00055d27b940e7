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

pub use app::*;
pub use checks::*;
pub use commits::*;
pub use compare::*;
pub use contents::*;
pub use dispatches::*;
pub use hooks::*;
pub use installations::*;
pub use issues::*;
pub use permission::*;
pub use pulls::*;
pub use refs::*;

use crate::ids::RepoName;

pub const LIST_PULLS: &str = "GET /repos/{owner}/{repo}/pulls";
pub const GET_PULL: &str = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
pub const PATCH_PULL: &str = "PATCH /repos/{owner}/{repo}/pulls/{pull_number}";
pub const GET_CONTENT: &str = "GET /repos/{owner}/{repo}/contents/{path}";
pub const GET_PERMISSION: &str = "GET /repos/{owner}/{repo}/collaborators/{username}/permission";
pub const POST_COMMENT: &str = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub const LIST_COMMENTS: &str = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub const POST_REACTION: &str = "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions";
pub const POST_ISSUE: &str = "POST /repos/{owner}/{repo}/issues";
pub const LIST_ISSUES: &str = "GET /repos/{owner}/{repo}/issues";
pub const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";
pub const LIST_CHECKS: &str = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs";
pub const POST_CHECK: &str = "POST /repos/{owner}/{repo}/check-runs";
pub const PATCH_CHECK: &str = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}";
pub const POST_REF: &str = "POST /repos/{owner}/{repo}/git/refs";
pub const GET_REF: &str = "GET /repos/{owner}/{repo}/git/ref/{ref}";
pub const DELETE_REF: &str = "DELETE /repos/{owner}/{repo}/git/refs/{ref}";
pub const MATCHING_REFS: &str = "GET /repos/{owner}/{repo}/git/matching-refs/{ref}";
pub const COMPARE: &str = "GET /repos/{owner}/{repo}/compare/{basehead}";
pub const PULLS_FOR_COMMIT: &str = "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls";

fn path(repo: &RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}
