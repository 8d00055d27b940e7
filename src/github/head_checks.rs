//! The check runs on many heads in one query (`HeadChecks`): one aliased
//! `object(oid: …)` per head, what a repository-wide view reads instead of one
//! `GET …/commits/{sha}/check-runs` per open pull request. A head whose runs fill a page is
//! read through REST, as the first reads do.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::github::rest::{self, CheckRunInfo};
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, RepoName};

pub(crate) const ROUTE: &str = "POST /graphql HeadChecks";

/// The most heads one document asks: each costs one node of GitHub's budget per page.
pub(crate) const MAX_HEADS: usize = 50;

/// A check run on a head as the gate reads it: its name, status and conclusion, in REST's
/// lower-case words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeenRun {
    pub(crate) name: String,
    pub(crate) status: String,
    pub(crate) conclusion: Option<String>,
}

impl From<&CheckRunInfo> for SeenRun {
    fn from(run: &CheckRunInfo) -> Self {
        Self {
            name: run.name.clone(),
            status: run.status.clone(),
            conclusion: run.conclusion.clone(),
        }
    }
}

fn document(count: usize) -> String {
    let mut params = String::from("$owner: String!, $name: String!");
    let mut fields = String::new();
    for i in 0..count {
        params.push_str(&format!(", $h{i}: GitObjectID!"));
        fields.push_str(&format!(
            "    h{i}: object(oid: $h{i}) {{\n      ... on Commit {{\n        checkSuites(first: 100) {{\n          pageInfo {{\n            hasNextPage\n          }}\n          nodes {{\n            checkRuns(first: 100, filterBy: {{checkType: LATEST}}) {{\n              pageInfo {{\n                hasNextPage\n              }}\n              nodes {{\n                name\n                status\n                conclusion\n              }}\n            }}\n          }}\n        }}\n      }}\n    }}\n"
        ));
    }
    format!("query HeadChecks({params}) {{\n  repository(owner: $owner, name: $name) {{\n{fields}  }}\n}}")
}

/// The runs of one answered head; `None` when a page was cut short.
fn runs_of(commit: &Value) -> Option<Vec<SeenRun>> {
    if commit.is_null() {
        // GitHub does not know the commit: no runs on it.
        return Some(Vec::new());
    }
    let suites = &commit["checkSuites"];
    if suites["pageInfo"]["hasNextPage"] != false {
        return None;
    }
    let mut runs = Vec::new();
    for suite in suites["nodes"].as_array()? {
        let page = &suite["checkRuns"];
        if page["pageInfo"]["hasNextPage"] != false {
            return None;
        }
        for run in page["nodes"].as_array()? {
            runs.push(SeenRun {
                name: run["name"].as_str()?.to_owned(),
                status: run["status"].as_str()?.to_ascii_lowercase(),
                conclusion: run["conclusion"].as_str().map(str::to_ascii_lowercase),
            });
        }
    }
    Some(runs)
}

/// The check runs (the latest of each name) on each of `heads`.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers other than a GraphQL response.
pub(crate) async fn read(
    api: &Api,
    repo: &RepoName,
    heads: &[CommitSha],
) -> Result<BTreeMap<CommitSha, Vec<SeenRun>>, GitHubError> {
    let mut out = BTreeMap::new();
    let mut heads: Vec<&CommitSha> = heads.iter().collect();
    heads.sort();
    heads.dedup();
    for chunk in heads.chunks(MAX_HEADS) {
        let mut variables = Map::new();
        variables.insert("owner".into(), json!(repo.owner()));
        variables.insert("name".into(), json!(repo.name()));
        for (i, head) in chunk.iter().enumerate() {
            variables.insert(format!("h{i}"), json!(head.as_str()));
        }
        let answer = api
            .graphql(
                ROUTE,
                &document(chunk.len()),
                Value::Object(variables),
                true,
            )
            .await?;
        for (i, head) in chunk.iter().enumerate() {
            let runs = match runs_of(&answer.data["repository"][format!("h{i}")]) {
                Some(runs) => runs,
                None => rest::check_runs(api, repo, head)
                    .await?
                    .iter()
                    .map(SeenRun::from)
                    .collect(),
            };
            out.insert((*head).clone(), runs);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_page_is_not_taken_for_all_runs() {
        let full = json!({"checkSuites": {"pageInfo": {"hasNextPage": false}, "nodes": [
            {"checkRuns": {"pageInfo": {"hasNextPage": false}, "nodes": [
                {"name": "ci", "status": "COMPLETED", "conclusion": "SUCCESS"}
            ]}}
        ]}});
        assert_eq!(
            runs_of(&full),
            Some(vec![SeenRun {
                name: "ci".into(),
                status: "completed".into(),
                conclusion: Some("success".into()),
            }])
        );
        let mut cut = full.clone();
        cut["checkSuites"]["nodes"][0]["checkRuns"]["pageInfo"]["hasNextPage"] = json!(true);
        assert_eq!(runs_of(&cut), None);
        assert_eq!(runs_of(&Value::Null), Some(Vec::new()));
    }
}
