//! GitHub's Git Data shapes and routes, and the checks that keep its answers out of our
//! URLs unless they look like what they claim to be.

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::github::GitHubError;
use crate::ids::{CommitSha, ObjectSha};

pub(super) const GET_REF: &str = "GET /repos/{owner}/{repo}/git/ref/{ref}";
pub(super) const GET_COMMIT: &str = "GET /repos/{owner}/{repo}/git/commits/{commit_sha}";
pub(super) const GET_TREE: &str = "GET /repos/{owner}/{repo}/git/trees/{tree_sha}";
pub(super) const GET_BLOB: &str = "GET /repos/{owner}/{repo}/git/blobs/{file_sha}";
pub(super) const POST_TREE: &str = "POST /repos/{owner}/{repo}/git/trees";
pub(super) const POST_COMMIT: &str = "POST /repos/{owner}/{repo}/git/commits";
pub(super) const POST_REF: &str = "POST /repos/{owner}/{repo}/git/refs";
pub(super) const PATCH_REF: &str = "PATCH /repos/{owner}/{repo}/git/refs/{ref}";
pub(super) const COMPARE: &str = "GET /repos/{owner}/{repo}/compare/{basehead}";

#[derive(Debug, Deserialize)]
pub(super) struct Sha {
    pub(crate) sha: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct RefObject {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) sha: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct RefBody {
    pub(crate) object: RefObject,
}

#[derive(Debug, Deserialize)]
pub(super) struct CommitBody {
    pub(crate) sha: String,
    pub(crate) tree: Sha,
    #[serde(default)]
    pub(crate) parents: Vec<Sha>,
}

#[derive(Debug, Deserialize)]
pub(super) struct TreeEntry {
    pub(crate) path: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) sha: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct TreeBody {
    pub(crate) sha: String,
    pub(crate) tree: Vec<TreeEntry>,
    #[serde(default)]
    pub(crate) truncated: bool,
}

#[derive(Debug, Deserialize)]
pub(super) struct BlobBody {
    pub(crate) content: String,
    #[serde(default)]
    pub(crate) encoding: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct CompareBody {
    pub(crate) status: String,
}

#[derive(Debug, Serialize)]
pub(super) struct NewEntry<'a> {
    pub(crate) path: &'a str,
    pub(crate) mode: &'static str,
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) content: &'a str,
}

#[derive(Debug, Serialize)]
pub(super) struct NewTree<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) base_tree: Option<&'a str>,
    pub(crate) tree: Vec<NewEntry<'a>>,
}

#[derive(Debug, Serialize)]
pub(super) struct NewCommit<'a> {
    pub(crate) message: &'a str,
    pub(crate) tree: &'a str,
    pub(crate) parents: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
pub(super) struct NewRef<'a> {
    #[serde(rename = "ref")]
    pub(crate) name: String,
    pub(crate) sha: &'a str,
}

/// `/repos/{owner}/{repo}/{rest}`.
pub(super) fn repo_path(repo: &crate::ids::RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}

fn decode_error(route: &'static str, message: impl Into<String>) -> GitHubError {
    GitHubError::Decode {
        route,
        message: message.into(),
    }
}

/// A commit SHA from an answer, before it goes into a URL: 40 lowercase hex digits.
pub(super) fn commit_sha(route: &'static str, sha: &str) -> Result<CommitSha, GitHubError> {
    CommitSha::new(sha).map_err(|e| decode_error(route, e.to_string()))
}

/// A tree or blob SHA from an answer, checked as [`commit_sha`] is.
pub(super) fn object_sha(route: &'static str, sha: &str) -> Result<ObjectSha, GitHubError> {
    ObjectSha::new(sha).map_err(|e| decode_error(route, e.to_string()))
}

/// The records branch, checked by the same rule as the repository configuration (git's),
/// so a name the configuration accepts is one the records layer can use. The configuration
/// refuses any other name before it reaches here.
pub(super) fn check_branch(branch: &str) -> Result<(), GitHubError> {
    crate::engine::repo_config::branch_name_rule(branch)
        .map_err(|e| GitHubError::Setup(format!("records_branch: {e}")))
}

/// `heads/<branch>` as it goes into a REST path, percent-encoded segment by segment.
pub(super) fn head_path(branch: &str) -> String {
    format!("heads/{}", crate::github::encode::path(branch))
}

/// Blob paths of a recursive tree, with their SHAs. A truncated listing would hide
/// records, so it is an error rather than a partial answer.
pub(super) fn blob_paths(
    tree: TreeBody,
) -> Result<std::collections::BTreeMap<String, ObjectSha>, GitHubError> {
    if tree.truncated {
        return Err(decode_error(
            GET_TREE,
            "tree listing truncated by GitHub; the records branch is too large to read whole",
        ));
    }
    let mut out = std::collections::BTreeMap::new();
    for entry in tree.tree.into_iter().filter(|e| e.kind == "blob") {
        let sha = entry
            .sha
            .ok_or_else(|| decode_error(GET_TREE, format!("{}: blob without sha", entry.path)))?;
        out.insert(entry.path, object_sha(GET_TREE, &sha)?);
    }
    Ok(out)
}

/// Blob content as text. GitHub wraps base64 at 60 columns.
pub(super) fn blob_text(path: &str, blob: BlobBody) -> Result<String, GitHubError> {
    let bytes = match blob.encoding.as_deref() {
        Some("base64") | None => {
            let compact: String = blob
                .content
                .chars()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map_err(|e| decode_error(GET_BLOB, format!("{path}: {e}")))?
        }
        Some("utf-8") => blob.content.into_bytes(),
        Some(other) => {
            return Err(decode_error(
                GET_BLOB,
                format!("{path}: unknown encoding {other:?}"),
            ))
        }
    };
    String::from_utf8(bytes).map_err(|_| decode_error(GET_BLOB, format!("{path}: not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, kind: &str, sha: Option<&str>) -> TreeEntry {
        TreeEntry {
            path: path.into(),
            kind: kind.into(),
            sha: sha.map(str::to_owned),
        }
    }

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn blob_paths_keep_blobs_only() {
        let tree = TreeBody {
            sha: A.into(),
            tree: vec![
                entry("records", "tree", Some(A)),
                entry("records/AUD-1.json", "blob", Some(A)),
            ],
            truncated: false,
        };
        let paths = blob_paths(tree).unwrap();
        assert_eq!(paths.keys().collect::<Vec<_>>(), ["records/AUD-1.json"]);
    }

    #[test]
    fn blob_paths_refuse_truncated_and_bad_shas() {
        let truncated = TreeBody {
            sha: A.into(),
            tree: vec![],
            truncated: true,
        };
        assert!(blob_paths(truncated).is_err());
        for sha in [None, Some("../../x"), Some("ABC")] {
            let tree = TreeBody {
                sha: A.into(),
                tree: vec![entry("index.json", "blob", sha)],
                truncated: false,
            };
            assert!(blob_paths(tree).is_err(), "{sha:?}");
        }
    }

    #[test]
    fn blob_text_decodes_wrapped_base64_and_refuses_the_rest() {
        let ok = BlobBody {
            content: "eyJuZXh0Ijog\nMX0=\n".into(),
            encoding: Some("base64".into()),
        };
        assert_eq!(blob_text("index.json", ok).unwrap(), "{\"next\": 1}");
        let cases = [
            ("!!!", Some("base64")),
            ("/w==", Some("base64")),
            ("x", Some("rot13")),
        ];
        for (content, encoding) in cases {
            let blob = BlobBody {
                content: content.into(),
                encoding: encoding.map(str::to_owned),
            };
            assert!(blob_text("p", blob).is_err(), "{content}");
        }
    }

    #[test]
    fn branch_names_follow_gits_rule_and_are_encoded_in_paths() {
        for ok in [
            "audit-records",
            "auditloop/records",
            "r_1.x",
            "audit+records#1",
            "a%b",
        ] {
            assert!(check_branch(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "/x", "x/", "a..b", "a//b", "a b", "a?b", "a@{b", "x.lock", "-x",
        ] {
            assert!(check_branch(bad).is_err(), "{bad:?}");
        }
        assert_eq!(head_path("audit+records#1"), "heads/audit%2Brecords%231");
        assert_eq!(head_path("team/records"), "heads/team/records");
    }
}
