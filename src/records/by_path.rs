//! Files of the records branch read by path at a commit, without listing the branch: one
//! GraphQL document with an aliased `object(expression: "<commit>:<path>")` per path, so a
//! round costs one call whatever the branch holds. A blob GraphQL does not give whole as
//! text is read through REST by its SHA.

use std::collections::BTreeMap;

use futures::future::try_join_all;
use serde_json::{json, Value};

use super::wire::repo_path;
use super::wire::{self, BlobBody};
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, ObjectSha, RepoName};

pub(crate) const ROUTE: &str = "POST /graphql RecordsByPath";

/// The most paths one document asks: a command's round names a handful.
const MAX_PATHS: usize = 50;

/// What a path held at the commit: its blob and text, or nothing.
pub(super) type Found = BTreeMap<String, Option<(ObjectSha, String)>>;

fn document(commit: &CommitSha, paths: &[&String]) -> String {
    use std::fmt::Write as _;
    let mut fields = String::new();
    for (i, path) in paths.iter().enumerate() {
        // JSON's string escapes are GraphQL's.
        let expression = json!(format!("{commit}:{path}")).to_string();
        let _ = write!(
            fields,
            "    f{i}: object(expression: {expression}) {{\n      __typename\n      ... on Blob {{\n        oid\n        text\n        isTruncated\n      }}\n    }}\n"
        );
    }
    format!(
        "query RecordsByPath($owner: String!, $name: String!) {{\n  repository(owner: $owner, name: $name) {{\n{fields}  }}\n}}"
    )
}

/// Reads `paths` at `commit`: each is a blob with its text, or absent (no such file, or
/// not a file).
///
/// # Errors
///
/// [`GitHubError`] when a call fails or an answer cannot be read.
pub(super) async fn read(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
    paths: &[String],
) -> Result<Found, GitHubError> {
    let mut found = Found::new();
    for chunk in paths.chunks(MAX_PATHS) {
        let chunk: Vec<&String> = chunk.iter().collect();
        let variables = json!({"owner": repo.owner(), "name": repo.name()});
        let answer = api
            .graphql(ROUTE, &document(commit, &chunk), variables, true)
            .await?;
        let repository = &answer.data["repository"];
        if !repository.is_object() {
            return Err(GitHubError::Decode {
                route: ROUTE,
                message: "no repository in the answer".into(),
            });
        }
        let mut by_rest = Vec::new();
        for (i, path) in chunk.into_iter().enumerate() {
            match blob_of(&repository[format!("f{i}")])? {
                Blob::Absent => {
                    found.insert(path.clone(), None);
                }
                Blob::Text(oid, text) => {
                    found.insert(path.clone(), Some((oid, text)));
                }
                Blob::Large(oid) => by_rest.push((path.clone(), oid)),
            }
        }
        let texts = try_join_all(by_rest.iter().map(|(p, s)| blob_text(api, repo, p, s))).await?;
        for ((path, oid), text) in by_rest.into_iter().zip(texts) {
            found.insert(path, Some((oid, text)));
        }
    }
    Ok(found)
}

enum Blob {
    Absent,
    Text(ObjectSha, String),
    /// Too large for GraphQL's text, or not UTF-8: read by SHA.
    Large(ObjectSha),
}

fn blob_of(node: &Value) -> Result<Blob, GitHubError> {
    if node.is_null() || node["__typename"] != "Blob" {
        return Ok(Blob::Absent);
    }
    let oid = node["oid"].as_str().unwrap_or_default();
    let oid = ObjectSha::new(oid).map_err(|e| GitHubError::Decode {
        route: ROUTE,
        message: e.to_string(),
    })?;
    Ok(
        match (node["text"].as_str(), node["isTruncated"].as_bool()) {
            (Some(text), Some(false)) => Blob::Text(oid, text.to_owned()),
            _ => Blob::Large(oid),
        },
    )
}

/// The text of blob `sha`, the file at `path`, through REST (also for the reads from a
/// listing and for the conversion).
pub(super) async fn blob_text(
    api: &Api,
    repo: &RepoName,
    path: &str,
    sha: &ObjectSha,
) -> Result<String, GitHubError> {
    let call = Call::get(wire::GET_BLOB, repo_path(repo, &format!("git/blobs/{sha}")));
    let blob: BlobBody = api.json(call).await?;
    wire::blob_text(path, blob)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_one_aliased_expression_escaped_as_a_string() {
        let commit = CommitSha::new("a".repeat(40)).unwrap();
        let (a, b) = ("next.json".to_owned(), "x\"y".to_owned());
        let doc = document(&commit, &[&a, &b]);
        assert!(doc.contains(&format!("f0: object(expression: \"{commit}:next.json\")")));
        assert!(doc.contains(&format!("f1: object(expression: \"{commit}:x\\\"y\")")));
        assert!(matches!(blob_of(&Value::Null), Ok(Blob::Absent)));
        let tree = json!({"__typename": "Tree"});
        assert!(matches!(blob_of(&tree), Ok(Blob::Absent)));
        let big =
            json!({"__typename": "Blob", "oid": "b".repeat(40), "text": null, "isTruncated": true});
        assert!(matches!(blob_of(&big), Ok(Blob::Large(_))));
        let bad = json!({"__typename": "Blob", "oid": "../x", "text": "", "isTruncated": false});
        assert!(blob_of(&bad).is_err());
    }
}
