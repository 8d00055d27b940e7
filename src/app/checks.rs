//! The `audit-gate` check run.

use crate::github::{Api, Call, GitHubError};

const CREATE: &str = "POST /repos/{owner}/{repo}/check-runs";

/// Creates the gate's check run on `head` while no audit record exists for it.
pub async fn create_gate_run(api: &Api, repo: &str, head: &str) -> Result<u64, GitHubError> {
    #[derive(serde::Deserialize)]
    struct Created {
        id: u64,
    }
    let body = serde_json::json!({
        "name": "audit-gate",
        "head_sha": head,
        "status": "completed",
        "conclusion": "failure",
        "output": {
            "title": "No audit record",
            "summary": "1. ❌ No audit record for this pull request: start one with `/audit new --goal \"…\" --oracle \"…\"`.",
        },
    });
    let created: Created = api
        .json(Call::post(
            CREATE,
            format!("/repos/{repo}/check-runs"),
            &body,
        ))
        .await?;
    Ok(created.id)
}
