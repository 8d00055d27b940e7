//! Reading a records branch from its listing: the commit's recursive tree, then the blobs
//! picked from it, fetched concurrently. A version-1 branch is always read so (its paths
//! seen as version 2's, see `engine::layout::v1`); a version-2 branch only for a picker that
//! cannot name its paths (the command line's listing of a record's reports).

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::try_join_all;

use super::by_path::blob_text;
use super::cache::{Branch, Known};
use super::layout;
use super::snapshot::Files;
use super::wanted::Wanted;
use super::wanted::MAX_LOAD_ROUNDS;
use super::wire::repo_path;
use super::wire::{self, CommitBody, TreeBody};
use crate::engine::layout::{shard_at, v1, INDEX_PATH, LAYOUT_PATH, NEXT_PATH};
use crate::github::first_reads::RecordsHead;
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, ObjectSha, RepoName};

/// `commit`'s state from its listing (`listing`, when another read brought it, else read):
/// its layout told by `layout.json`, a version-1 branch's paths seen as version 2's, and
/// the texts `known` (an earlier state of the branch) holds of blobs that did not change,
/// with those `seen` brought.
pub(super) async fn listed(
    api: &Api,
    repo: &RepoName,
    (commit, etag): (CommitSha, Option<String>),
    seen: Option<&RecordsHead>,
    known: Option<&Branch>,
) -> Result<Branch, GitHubError> {
    let (tree, parents, listing) = match seen {
        Some(h) => {
            let blobs = match &h.listing {
                Some(listing) => listing
                    .iter()
                    .map(|(p, s)| (p.clone(), Some(s.clone())))
                    .collect(),
                None => read_tree(api, repo, &h.tree).await?,
            };
            (h.tree.clone(), h.parents.clone(), blobs)
        }
        None => read_tree_of(api, repo, &commit).await?,
    };
    let version = if listing.contains_key(LAYOUT_PATH) {
        2
    } else {
        1
    };
    let logical = |p: &String| match version {
        1 => v1::moved(p).unwrap_or_else(|| p.clone()),
        _ => p.clone(),
    };
    let blobs: BTreeMap<String, Option<ObjectSha>> = listing
        .iter()
        .map(|(p, s)| (logical(p), s.clone()))
        .collect();
    let mut contents: std::collections::HashMap<String, Known> = known
        .filter(|k| k.layout == version)
        .map(|c| {
            c.contents
                .iter()
                .filter(|(p, k)| k.sha.is_some() && blobs.get(*p) == Some(&k.sha))
                .map(|(p, k)| (p.clone(), k.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (path, (sha, text)) in seen.iter().flat_map(|h| &h.texts) {
        if listing.get(path) == Some(&Some(sha.clone())) {
            let known = Known {
                sha: Some(sha.clone()),
                text: text.as_str().into(),
            };
            contents.insert(logical(path), known);
        }
    }
    Ok(Branch {
        etag,
        commit,
        parents,
        tree: Some(tree),
        blobs: Arc::new(blobs),
        contents,
        probed: None,
        layout: version,
        // Until a delivery's first reads find the branch where this process left it
        // (`RecordsCache::saw_head`), someone else may be writing too.
        moved: true,
    })
}

/// `wanted` on a listed branch of layout version 2: its index is `next.json` and every
/// shard, and `layout.json` is read to check its version.
struct Whole<'w, W>(&'w W);

impl<W: Wanted> Wanted for Whole<'_, W> {
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a {
        let pick = self.0.round(files);
        let index = pick(INDEX_PATH);
        move |p: &str| {
            pick(p) || p == LAYOUT_PATH || (index && (p == NEXT_PATH || shard_at(p).is_some()))
        }
    }
}

/// The files `wanted` picks from `branch_state`'s listing (see [`load`]), with a version-2
/// branch's index assembled.
pub(super) async fn load_listed(
    api: &Api,
    repo: &RepoName,
    branch_state: &mut Branch,
    wanted: &impl Wanted,
    hint: Option<&Files>,
) -> Result<Files, GitHubError> {
    if branch_state.layout < 2 {
        return load(api, repo, branch_state, wanted, hint).await;
    }
    let mut files = load(api, repo, branch_state, &Whole(wanted), hint).await?;
    layout::marked(&files)?;
    layout::assemble(&mut files);
    Ok(files)
}

/// The texts `branch` knows of the files `wanted` picks first (the index): what the next
/// rounds were picked from at that commit.
pub(super) fn first_round_files(branch: &Branch, wanted: &impl Wanted) -> Files {
    let empty = Files::new();
    let pick = wanted.round(&empty);
    branch
        .contents
        .iter()
        .filter(|(p, k)| pick(p) && branch.blobs.get(*p) == Some(&k.sha))
        .map(|(p, k)| (p.clone(), k.text.to_string()))
        .collect()
}

/// The files `wanted` picks, in at most [`MAX_LOAD_ROUNDS`] rounds; texts `branch_state`
/// knows are not fetched, those fetched are kept in it. `hint`: files as they were at an
/// earlier commit; what `wanted` would pick from them (the record the old index named) is
/// fetched with the first round, so that a later round that picks it has it already.
async fn load(
    api: &Api,
    repo: &RepoName,
    branch_state: &mut Branch,
    wanted: &impl Wanted,
    hint: Option<&Files>,
) -> Result<Files, GitHubError> {
    let mut files = Files::new();
    for round_no in 0..MAX_LOAD_ROUNDS {
        let round: Vec<(String, Option<ObjectSha>)> = {
            let pick = wanted.round(&files);
            branch_state
                .blobs
                .iter()
                .filter(|(p, _)| !files.contains_key(*p) && pick(p))
                .map(|(p, s)| (p.clone(), s.clone()))
                .collect()
        };
        if round.is_empty() {
            break;
        }
        let mut fetch = Vec::new();
        for (path, sha) in round {
            match (branch_state.text(&path), sha) {
                (Some(text), _) => {
                    files.insert(path, text.to_string());
                }
                (None, Some(sha)) => fetch.push((path, sha, true)),
                (None, None) => {}
            }
        }
        if let (0, Some(hint)) = (round_no, hint) {
            let pick = wanted.round(hint);
            let ahead: Vec<_> = branch_state
                .blobs
                .iter()
                .filter(|(p, _)| pick(p) && branch_state.text(p).is_none())
                .filter(|(p, _)| !fetch.iter().any(|(f, _, _)| f == *p))
                .filter_map(|(p, s)| Some((p.clone(), s.clone()?, false)))
                .collect();
            fetch.extend(ahead);
        }
        let loaded = try_join_all(fetch.iter().map(|(p, s, _)| load_blob(api, repo, p, s))).await?;
        for ((path, text), (_, sha, asked)) in loaded.into_iter().zip(fetch) {
            branch_state.contents.insert(
                path.clone(),
                Known {
                    sha: Some(sha),
                    text: text.as_str().into(),
                },
            );
            if asked {
                files.insert(path, text);
            }
        }
        // A version-2 branch's index, for the next round's picker.
        if branch_state.layout >= 2 {
            layout::assemble(&mut files);
        }
    }
    Ok(files)
}

/// The root tree of `commit` and every blob in it, by path.
pub(super) async fn read_tree_of(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
) -> Result<
    (
        ObjectSha,
        Vec<CommitSha>,
        BTreeMap<String, Option<ObjectSha>>,
    ),
    GitHubError,
> {
    let (tree, parents) = read_commit(api, repo, commit).await?;
    let blobs = read_tree(api, repo, &tree).await?;
    Ok((tree, parents, blobs))
}

/// The root tree and the parents of `commit`.
pub(super) async fn read_commit(
    api: &Api,
    repo: &RepoName,
    commit: &CommitSha,
) -> Result<(ObjectSha, Vec<CommitSha>), GitHubError> {
    let path = repo_path(repo, &format!("git/commits/{commit}"));
    let body: CommitBody = api.json(Call::get(wire::GET_COMMIT, path)).await?;
    if body.sha != commit.as_str() {
        return Err(GitHubError::Decode {
            route: wire::GET_COMMIT,
            message: format!("asked for {commit}, got {}", body.sha),
        });
    }
    let tree_sha = wire::object_sha(wire::GET_COMMIT, &body.tree.sha)?;
    let parents = body
        .parents
        .iter()
        .map(|p| wire::commit_sha(wire::GET_COMMIT, &p.sha))
        .collect::<Result<_, _>>()?;
    Ok((tree_sha, parents))
}

/// Every blob of tree `tree_sha`, by path.
pub(super) async fn read_tree(
    api: &Api,
    repo: &RepoName,
    tree_sha: &ObjectSha,
) -> Result<BTreeMap<String, Option<ObjectSha>>, GitHubError> {
    let path = repo_path(repo, &format!("git/trees/{tree_sha}?recursive=1"));
    let tree: TreeBody = api.json(Call::get(wire::GET_TREE, path)).await?;
    if tree.sha != tree_sha.as_str() {
        return Err(GitHubError::Decode {
            route: wire::GET_TREE,
            message: format!("asked for tree {tree_sha}, got {}", tree.sha),
        });
    }
    let blobs = wire::blob_paths(tree)?;
    Ok(blobs.into_iter().map(|(p, s)| (p, Some(s))).collect())
}

async fn load_blob(
    api: &Api,
    repo: &RepoName,
    path: &str,
    sha: &ObjectSha,
) -> Result<(String, String), GitHubError> {
    Ok((path.to_owned(), blob_text(api, repo, path, sha).await?))
}
