//! The App itself and its repositories as the App sees them: `GET /app`,
//! `GET /repos/{owner}/{repo}`, and the manifest conversion of first-run setup.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

pub(crate) const GET_APP: &str = "GET /app";
pub(crate) const GET_REPO: &str = "GET /repos/{owner}/{repo}";
pub(crate) const CONVERSION_ROUTE: &str = "POST /app-manifests/{code}/conversions";

#[derive(Deserialize)]
struct AppInfo {
    slug: String,
}

/// The App's slug, from `GET /app` (sent with the App's JWT: `api` is an App client).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with an error.
pub(crate) async fn app_slug(api: &Api) -> Result<String, GitHubError> {
    let info: AppInfo = api.json(Call::get(GET_APP, "/app")).await?;
    Ok(info.slug)
}

/// A repository as `GET /repos/{owner}/{repo}` shows it: what auditloop reads of it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RepoInfo {
    #[serde(default)]
    pub(crate) default_branch: Option<String>,
    #[serde(default)]
    pub(crate) html_url: Option<String>,
}

/// `GET /repos/{owner}/{repo}`.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with an error (no access, no
/// such repository).
pub(crate) async fn get_repo(api: &Api, repo: &RepoName) -> Result<RepoInfo, GitHubError> {
    let path = format!("/repos/{}/{}", repo.owner(), repo.name());
    api.json(Call::get(GET_REPO, path)).await
}

/// `POST /app-manifests/{code}/conversions`: the App GitHub registered from the manifest,
/// with its credentials, decoded as `T`.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with an error (the code
/// expired or was used already).
pub(crate) async fn convert_manifest<T: DeserializeOwned>(
    api: &Api,
    code: &str,
) -> Result<T, GitHubError> {
    api.json(Call::post(
        CONVERSION_ROUTE,
        format!("/app-manifests/{code}/conversions"),
        &serde_json::json!({}),
    ))
    .await
}
