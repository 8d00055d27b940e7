//! Check runs on a commit: list, create, update.

use serde::Deserialize;
use serde_json::Value;

use super::*;
use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

/// A check run on a commit, as listed.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunInfo {
    pub id: u64,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    /// `None` when the run names none: GitHub sends `""` for a run created without one.
    #[serde(default, deserialize_with = "non_empty")]
    pub external_id: Option<String>,
    #[serde(default)]
    pub app: Option<AppRef>,
    #[serde(default)]
    pub output: Option<CheckOutput>,
}

fn non_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s: Option<String> = Option::deserialize(d)?;
    Ok(s.filter(|s| !s.is_empty()))
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct CheckOutput {
    #[serde(default)]
    pub summary: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AppRef {
    #[serde(default)]
    pub slug: Option<String>,
}

/// The latest run of each check on `sha`, every page (a CI matrix can pass 100).
pub async fn check_runs(
    api: &Api,
    repo: &RepoName,
    sha: &str,
) -> Result<Vec<CheckRunInfo>, GitHubError> {
    #[derive(Deserialize)]
    struct List {
        check_runs: Vec<CheckRunInfo>,
    }
    let path = path(
        repo,
        &format!("commits/{sha}/check-runs?filter=latest&per_page=100"),
    );
    let mut runs = Vec::new();
    for page in crate::github::pages::get_all(api, LIST_CHECKS, &path).await? {
        runs.extend(page.json::<List>(LIST_CHECKS)?.check_runs);
    }
    Ok(runs)
}

pub async fn create_check_run(
    api: &Api,
    repo: &RepoName,
    body: &Value,
) -> Result<u64, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        id: u64,
    }
    let c: Created = api
        .json(Call::post(POST_CHECK, path(repo, "check-runs"), body))
        .await?;
    Ok(c.id)
}

pub async fn update_check_run(
    api: &Api,
    repo: &RepoName,
    id: u64,
    body: &Value,
) -> Result<(), GitHubError> {
    api.send_ok(Call::patch(
        PATCH_CHECK,
        path(repo, &format!("check-runs/{id}")),
        body,
    ))
    .await?;
    Ok(())
}
