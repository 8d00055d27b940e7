//! The blob of each cited file at each candidate, for whether a new finding is late
//! (docs/reference.md#the-finding-ledger): one aliased `object(expression: "<sha>:<path>")`
//! per pair. Asked inside the first reads when the process knows the record's candidates,
//! else as a query of its own (`FileVersions`) when the report's decision needs them.

use serde_json::{json, Value};

use crate::engine::ledger::late::FileVersions;
use crate::github::{Api, GitHubError};
use crate::ids::{Artifact, RepoName};

pub(crate) const ROUTE: &str = "POST /graphql FileVersions";

/// The most pairs one document asks: 20 files at up to 10 candidates.
pub(crate) const MAX_PAIRS: usize = 200;

/// The aliased fields for `pairs`, indented to sit inside `repository { … }`. Each
/// expression is a GraphQL string literal: JSON's escapes are GraphQL's.
#[must_use]
pub(crate) fn fields(pairs: &[(Artifact, String)]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (i, (candidate, path)) in pairs.iter().take(MAX_PAIRS).enumerate() {
        let expression = json!(format!("{}:{path}", candidate.sha())).to_string();
        let _ = write!(
            out,
            "    v{i}: object(expression: {expression}) {{\n      oid\n    }}\n"
        );
    }
    out
}

/// The versions `repository` (the answer's object) holds for `pairs`; a pair GitHub failed
/// or has no such file at is kept as missing, so it is never read again and no finding is
/// late on it.
#[must_use]
pub(crate) fn from_answer(repository: &Value, pairs: &[(Artifact, String)]) -> FileVersions {
    let mut versions = FileVersions::default();
    for (i, (candidate, path)) in pairs.iter().take(MAX_PAIRS).enumerate() {
        let blob = repository[format!("v{i}")]["oid"]
            .as_str()
            .map(str::to_owned);
        versions.insert(candidate.clone(), path.clone(), blob);
    }
    versions
}

/// Reads `pairs` in one query.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers other than a GraphQL response.
pub(crate) async fn read(
    api: &Api,
    repo: &RepoName,
    pairs: &[(Artifact, String)],
) -> Result<FileVersions, GitHubError> {
    if pairs.is_empty() {
        return Ok(FileVersions::default());
    }
    let document = format!(
        "query FileVersions($owner: String!, $name: String!) {{\n  repository(owner: $owner, name: $name) {{\n{}  }}\n}}",
        fields(pairs)
    );
    let variables = json!({"owner": repo.owner(), "name": repo.name()});
    let answer = api.graphql(ROUTE, &document, variables, true).await?;
    Ok(from_answer(&answer.data["repository"], pairs))
}
