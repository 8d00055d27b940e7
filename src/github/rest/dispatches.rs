//! Starting a workflow: `repository_dispatch`.

use serde_json::Value;

use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

pub(crate) const POST_DISPATCH: &str = "POST /repos/{owner}/{repo}/dispatches";

/// `POST /repos/{owner}/{repo}/dispatches`. Sent once (no automatic retry: a lost answer
/// must not become a second workflow run); any refusal is a GitHub failure, answered 5xx
/// so that the delivery is retried.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with anything but success.
pub(crate) async fn create_dispatch(
    api: &Api,
    repo: &RepoName,
    event_type: &str,
    client_payload: &Value,
) -> Result<(), GitHubError> {
    let body = serde_json::json!({
        "event_type": event_type,
        "client_payload": client_payload,
    });
    let path = format!("/repos/{}/{}/dispatches", repo.owner(), repo.name());
    let r = api.send(Call::post(POST_DISPATCH, path, &body)).await?;
    if !r.is_success() {
        return Err(status_error(POST_DISPATCH, &r));
    }
    Ok(())
}
