//! The conversion of a version-1 records branch to layout version 2
//! (docs/reference.md#layout-version-2), made by the first write after the upgrade, in one
//! commit of its own: every record and report moves to its new path as the same blob (no
//! record's content changes, so no history's chain does), `index.json` becomes `next.json`
//! and the shards, and `layout.json` marks the branch. Through the Git Data API, so that
//! a move sends a blob's SHA, not its text: a tree, a commit and a non-forced ref update,
//! which GitHub refuses when the branch moved meanwhile (a compare-and-swap).

use std::time::Duration;

use serde::Serialize;

use super::by_path::blob_text;
use super::listing::read_tree;
use super::snapshot::Snapshot;
use super::wire::repo_path;
use super::wire::{self, NewCommit, Sha};
use crate::engine::layout::{v1, INDEX_PATH, LAYOUT_PATH};
use crate::engine::record::{shards, Index};
use crate::github::{api::status_error, Api, Call, GitHubError};
use crate::ids::RepoName;

/// The conversion commit's message.
pub(crate) const MESSAGE: &str = "Records layout 2: the index split into shards, records and \
     reports fanned out [skip ci]\n\nNo record changed: each file moved as the same blob, so \
     every history and its hash chain are as they were.";

/// What the conversion came to.
pub(super) enum Converted {
    Done,
    /// The branch moved meanwhile: read it again.
    Moved,
}

#[derive(Serialize)]
struct Entry<'a> {
    path: &'a str,
    mode: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    /// `null` deletes the path.
    sha: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
}

#[derive(Serialize)]
struct Tree<'a> {
    base_tree: &'a str,
    tree: Vec<Entry<'a>>,
}

/// Converts the version-1 branch `snapshot` read.
///
/// # Errors
///
/// [`GitHubError`] when a call fails or an answer cannot be read, and when the index does
/// not parse (a damaged branch is not converted: the gate reports it as it is).
pub(super) async fn convert(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    snapshot: &Snapshot,
) -> Result<Converted, GitHubError> {
    let (Some(parent), Some(base)) = (&snapshot.commit, &snapshot.tree) else {
        return Err(GitHubError::Setup("no version-1 branch to convert".into()));
    };
    let index = index_of(api, repo, snapshot).await?;
    let listing = read_tree(api, repo, base).await?;
    let added = shards::split(&index);
    let layout = shards::layout_json();
    let mut moves = Vec::new();
    for (path, sha) in &listing {
        if let (Some(to), Some(sha)) = (v1::moved(path), sha) {
            moves.push((path.as_str(), to, sha.as_str()));
        }
    }
    let mut tree: Vec<Entry<'_>> = Vec::new();
    for (from, to, sha) in &moves {
        tree.push(entry(to, Some(sha), None));
        tree.push(entry(from, None, None));
    }
    tree.push(entry(INDEX_PATH, None, None));
    tree.push(entry(LAYOUT_PATH, None, Some(&layout)));
    for (path, text) in &added {
        tree.push(entry(path, None, Some(text)));
    }
    if !api.ensure_booked(3) {
        return Err(GitHubError::RateLimited {
            route: wire::POST_TREE,
            wait: Duration::ZERO,
        });
    }
    let body = Tree {
        base_tree: base.as_str(),
        tree,
    };
    let call = Call::post(wire::POST_TREE, repo_path(repo, "git/trees"), &body).idempotent(true);
    let tree: Sha = api.json(call).await?;
    let commit = NewCommit {
        message: MESSAGE,
        tree: &tree.sha,
        parents: vec![parent.as_str()],
    };
    let call =
        Call::post(wire::POST_COMMIT, repo_path(repo, "git/commits"), &commit).idempotent(true);
    let commit: Sha = api.json(call).await?;
    let commit = wire::commit_sha(wire::POST_COMMIT, &commit.sha)?;
    let to = serde_json::json!({"sha": commit.as_str(), "force": false});
    let path = repo_path(repo, &format!("git/refs/{}", wire::head_path(branch)));
    let r = api.send(Call::patch(wire::PATCH_REF, path, &to)).await?;
    match r.status {
        s if (200..300).contains(&s) => {
            tracing::info!(branch, %commit, records = moves.len(), "records branch converted to layout 2");
            Ok(Converted::Done)
        }
        // Not a fast-forward: someone wrote since the read.
        422 => Ok(Converted::Moved),
        _ => Err(status_error(wire::PATCH_REF, &r)),
    }
}

fn entry<'a>(path: &'a str, sha: Option<&'a str>, content: Option<&'a str>) -> Entry<'a> {
    Entry {
        path,
        mode: "100644",
        kind: "blob",
        sha,
        content,
    }
}

/// The whole version-1 index: read with the snapshot, or by its blob.
async fn index_of(api: &Api, repo: &RepoName, snapshot: &Snapshot) -> Result<Index, GitHubError> {
    let text = if let Some(text) = snapshot.file(INDEX_PATH) {
        text.to_owned()
    } else {
        let Some(sha) = snapshot.blob_sha(INDEX_PATH) else {
            return Err(damaged("the branch has no index.json"));
        };
        blob_text(api, repo, INDEX_PATH, sha).await?
    };
    Index::parse(&text).map_err(|e| damaged(&format!("index.json: {e}")))
}

fn damaged(why: &str) -> GitHubError {
    GitHubError::Decode {
        route: "records layout 2",
        message: format!("a damaged version-1 branch is not converted: {why}"),
    }
}
