//! Check runs on a commit: list, create, update.

use serde::{Deserialize, Serialize};

use super::{path, LIST_CHECKS, PATCH_CHECK, POST_CHECK};
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CheckRunId, CommitSha, NodeId, RepoName};

/// A check run on a commit, as listed.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunInfo {
    pub id: CheckRunId,
    /// Its GraphQL id, what `updateCheckRun` names it by (kept only when it looks like one).
    #[serde(default, deserialize_with = "node_id")]
    pub(crate) node_id: Option<NodeId>,
    pub(crate) name: String,
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) conclusion: Option<String>,
    /// `None` when the run names none: GitHub sends `""` for a run created without one.
    #[serde(default, deserialize_with = "non_empty")]
    pub(crate) external_id: Option<String>,
    #[serde(default)]
    pub(crate) app: Option<AppRef>,
    #[serde(default)]
    pub(crate) output: Option<CheckOutput>,
}

fn node_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<NodeId>, D::Error> {
    let s: Option<String> = Option::deserialize(d)?;
    Ok(s.and_then(|s| NodeId::new(s).ok()))
}

fn non_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s: Option<String> = Option::deserialize(d)?;
    Ok(s.filter(|s| !s.is_empty()))
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CheckOutput {
    #[serde(default)]
    pub(crate) summary: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct AppRef {
    #[serde(default)]
    pub(crate) slug: Option<String>,
}

/// The body of a check-run create or update. Fields left `None` are not sent: an update
/// names only what it changes, and the update route takes no `head_sha`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct CheckRunBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) head_sha: Option<&'a CommitSha>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) external_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) conclusion: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) actions: &'a [CheckRunAction<'a>],
    pub(crate) output: CheckRunOutput<'a>,
}

/// A check run's output; `text` and `annotations` are sent only when set.
#[derive(Debug, Default, Serialize)]
pub(crate) struct CheckRunOutput<'a> {
    pub(crate) title: &'a str,
    pub(crate) summary: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) annotations: Option<Vec<CheckRunAnnotation<'a>>>,
}

/// A button on a completed check run.
#[derive(Debug, Serialize)]
pub(crate) struct CheckRunAction<'a> {
    pub(crate) label: &'a str,
    pub(crate) description: &'a str,
    pub(crate) identifier: &'a str,
}

/// One line-anchored annotation.
#[derive(Debug, Serialize)]
pub(crate) struct CheckRunAnnotation<'a> {
    pub(crate) path: &'a str,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) annotation_level: &'a str,
    pub(crate) title: &'a str,
    pub(crate) message: &'a str,
}

/// The latest run of each check on `sha`, every page (a CI matrix can pass 100).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub async fn check_runs(
    api: &Api,
    repo: &RepoName,
    sha: &CommitSha,
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

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn create_check_run(
    api: &Api,
    repo: &RepoName,
    body: &CheckRunBody<'_>,
) -> Result<CheckRunId, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        id: CheckRunId,
    }
    let c: Created = api
        .json(Call::post(POST_CHECK, path(repo, "check-runs"), body))
        .await?;
    Ok(c.id)
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn update_check_run(
    api: &Api,
    repo: &RepoName,
    id: CheckRunId,
    body: &CheckRunBody<'_>,
) -> Result<(), GitHubError> {
    api.send_ok(Call::patch(
        PATCH_CHECK,
        path(repo, &format!("check-runs/{id}")),
        body,
    ))
    .await?;
    Ok(())
}
