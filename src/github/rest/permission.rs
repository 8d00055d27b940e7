//! A login's permission on a repository, ranked as GitHub ranks roles.

use serde_json::Value;

use super::{path, GET_PERMISSION};
use crate::engine::policy::Permission;
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

/// The login's permission on the repository, ranked from `role_name` and
/// `user.permissions` (the `permission` field folds maintain and triage away). 404: none.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn permission(
    api: &Api,
    repo: &RepoName,
    login: &str,
) -> Result<Permission, GitHubError> {
    let r = api
        .send(Call::get(
            GET_PERMISSION,
            path(repo, &format!("collaborators/{login}/permission")),
        ))
        .await?;
    if r.status == 404 {
        return Ok(Permission::None);
    }
    if !r.is_success() {
        return Err(status_error(GET_PERMISSION, &r));
    }
    let v: Value = r.json(GET_PERMISSION)?;
    Ok(rank_permission(&v))
}

/// `role_name` when it is a built-in role; a custom role ranks as its highest flag.
pub(crate) fn rank_permission(answer: &Value) -> Permission {
    if let Some(p) = answer["role_name"].as_str().and_then(Permission::parse) {
        return p;
    }
    let flags = &answer["user"]["permissions"];
    let has = |k: &str| flags[k].as_bool().unwrap_or(false);
    if has("admin") {
        Permission::Admin
    } else if has("maintain") {
        Permission::Maintain
    } else if has("push") {
        Permission::Write
    } else if has("triage") {
        Permission::Triage
    } else if has("pull") {
        Permission::Read
    } else {
        answer["permission"]
            .as_str()
            .and_then(Permission::parse)
            .unwrap_or(Permission::None)
    }
}
