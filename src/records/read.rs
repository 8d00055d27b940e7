//! Reading the records branch: ref, commit, recursive tree, then only the blobs the caller
//! wants, fetched concurrently. The cost does not grow with the number of records, and
//! what the process already knows (see `cache`) is not read again: a ref or a commit's
//! tree and parents another read brought (the first reads' query) are not asked again,
//! and at a commit another process made, the files wanted at the commit before are
//! fetched with the first round.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::try_join_all;

use super::cache::{Branch, Known, RecordsCache};
use super::snapshot::{Files, Snapshot};
use super::wanted::Wanted;
use super::wire::{self, BlobBody, CommitBody, RefBody, TreeBody};
use crate::github::first_reads::RecordsHead;
use crate::github::{api::status_error, Api, Call, GitHubError};
use crate::ids::{CommitSha, ObjectSha, RepoName};

/// How many times `wanted` is asked again after new files arrive ("read the index, then
/// the record it names" takes two rounds).
pub(crate) const MAX_LOAD_ROUNDS: usize = 3;

pub(super) fn repo_path(repo: &RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}

/// The commit the branch points at, `None` when it does not exist.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn read_ref(
    api: &Api,
    repo: &RepoName,
    branch: &str,
) -> Result<Option<CommitSha>, GitHubError> {
    match read_ref_if(api, repo, branch, None).await? {
        RefRead::Absent => Ok(None),
        RefRead::At { commit, .. } => Ok(Some(commit)),
        RefRead::NotModified => Err(GitHubError::Decode {
            route: wire::GET_REF,
            message: "304 to an unconditional request".into(),
        }),
    }
}

enum RefRead {
    Absent,
    NotModified,
    At {
        commit: CommitSha,
        etag: Option<String>,
    },
}

/// The ref, asked with `If-None-Match` when its last `ETag` is known (a 304 costs no rate
/// limit).
async fn read_ref_if(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    etag: Option<&str>,
) -> Result<RefRead, GitHubError> {
    wire::check_branch(branch)?;
    let mut call = Call::get(
        wire::GET_REF,
        repo_path(repo, &format!("git/ref/{}", wire::head_path(branch))),
    );
    if let Some(tag) = etag {
        call = call.header("if-none-match", tag);
    }
    let r = api.send(call).await?;
    if r.status == 404 {
        return Ok(RefRead::Absent);
    }
    if r.status == 304 && etag.is_some() {
        return Ok(RefRead::NotModified);
    }
    if !r.is_success() {
        return Err(status_error(wire::GET_REF, &r));
    }
    let body: RefBody = r.json(wire::GET_REF)?;
    if body.object.kind != "commit" {
        return Err(GitHubError::Decode {
            route: wire::GET_REF,
            message: format!("heads/{branch} points at a {}", body.object.kind),
        });
    }
    let etag = r
        .headers
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Ok(RefRead::At {
        commit: wire::commit_sha(wire::GET_REF, &body.object.sha)?,
        etag,
    })
}

/// Reads the branch. `wanted(path, files_read_so_far)` picks the blobs to read; it is asked
/// again whenever a round brought new files, at most [`MAX_LOAD_ROUNDS`] rounds, so a
/// caller can read `index.json` and then the record the index names.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub async fn read(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    wanted: impl Wanted,
) -> Result<Snapshot, GitHubError> {
    read_with(api, repo, branch, &wanted, Reuse::default()).await
}

/// What a read may take from what the process knows already.
#[derive(Clone, Copy, Default)]
pub struct Reuse<'a> {
    pub cache: Option<&'a RecordsCache>,
    /// Where the ref was seen a moment ago in the same delivery (`Some(None)`: absent):
    /// no need to ask again before a compare-and-swap that checks it anyway.
    pub head: Option<Option<&'a CommitSha>>,
    /// A commit's tree and parents, known from another read (GraphQL's first reads): that
    /// commit is not read again for them, nor its tree when the read listed it, nor the
    /// files whose texts it brought.
    pub objects: Option<&'a RecordsHead>,
}

/// [`read`], reusing what `reuse` offers: the ref is asked conditionally, and the commit,
/// tree and blobs already known are not read again.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub async fn read_with(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    wanted: &impl Wanted,
    reuse: Reuse<'_>,
) -> Result<Snapshot, GitHubError> {
    wire::check_branch(branch)?;
    let cached = reuse.cache.and_then(|c| c.get(repo, branch));
    let (commit, etag) = match (reuse.head, &cached) {
        (Some(None), _) => return Ok(Snapshot::default()),
        (Some(Some(head)), Some(c)) if &c.commit == head => (head.clone(), c.etag.clone()),
        // Seen a moment ago (the first reads' query): no need to ask the ref again.
        (Some(Some(head)), _) => (head.clone(), None),
        _ => {
            let tag = cached.as_ref().and_then(|c| c.etag.as_deref());
            match read_ref_if(api, repo, branch, tag).await? {
                RefRead::Absent => {
                    if let Some(cache) = reuse.cache {
                        cache.forget(repo, branch);
                    }
                    return Ok(Snapshot::default());
                }
                RefRead::NotModified => match &cached {
                    Some(c) => (c.commit.clone(), c.etag.clone()),
                    None => unreachable_etag()?,
                },
                RefRead::At { commit, etag } => (commit, etag),
            }
        }
    };
    // What the process knew at the commit before: the files the caller wanted then are
    // likely the ones it wants now, so they are fetched with the first round.
    let mut hint = None;
    let mut branch_state = match cached {
        Some(c) if c.commit == commit => Branch {
            etag,
            ..(*c).clone()
        },
        other => {
            hint = other.as_ref().map(|c| first_round_files(c, wanted));
            let seen = reuse.objects.filter(|h| h.commit == commit);
            let (tree, parents, blobs) = match seen {
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
            // Texts of blobs that did not change stay known, and those the first reads
            // brought are known.
            let mut contents: std::collections::HashMap<String, Known> = other
                .map(|c| {
                    c.contents
                        .iter()
                        .filter(|(p, k)| k.sha.is_some() && blobs.get(*p) == Some(&k.sha))
                        .map(|(p, k)| (p.clone(), k.clone()))
                        .collect()
                })
                .unwrap_or_default();
            for (path, (sha, text)) in seen.iter().flat_map(|h| &h.texts) {
                if blobs.get(path) == Some(&Some(sha.clone())) {
                    let known = Known {
                        sha: Some(sha.clone()),
                        text: text.as_str().into(),
                    };
                    contents.insert(path.clone(), known);
                }
            }
            Branch {
                etag,
                commit,
                parents,
                tree: Some(tree),
                blobs: Arc::new(blobs),
                contents,
                // Until a delivery's first reads find the branch where this process left
                // it (`RecordsCache::saw_head`), someone else may be writing too.
                moved: true,
            }
        }
    };
    let files = load(api, repo, &mut branch_state, wanted, hint.as_ref()).await?;
    let snapshot = Snapshot {
        commit: Some(branch_state.commit.clone()),
        parents: branch_state.parents.clone(),
        files,
        tree: branch_state.tree.clone(),
        blobs: branch_state.blobs.clone(),
    };
    if let Some(cache) = reuse.cache {
        cache.put(repo, branch, branch_state);
    }
    Ok(snapshot)
}

/// The most files a branch may hold for a first read to ask for its whole listing in the
/// query: GraphQL answers within a time limit, REST's tree listing holds far more.
pub(crate) const MAX_LISTED: usize = 5_000;

/// What a first read expects of a branch it will likely find moved.
#[derive(Debug, Default)]
pub(crate) struct Expected {
    /// The texts this process knows of the files `wanted` picks first (the index), from
    /// which it can guess what to ask for ahead.
    pub(crate) known: Files,
    /// Whether the listing is small enough to ask in the query (see [`MAX_LISTED`]).
    pub(crate) list: bool,
}

/// Whether the next read of `branch` will likely find it at a commit this process has not
/// seen: it knows the branch not at all, or found it moved by someone else the last time.
#[must_use]
pub(crate) fn likely_moved(
    cache: &RecordsCache,
    repo: &RepoName,
    branch: &str,
    wanted: &impl Wanted,
) -> Option<Expected> {
    match cache.get(repo, branch) {
        None => Some(Expected {
            known: Files::new(),
            list: true,
        }),
        Some(c) if c.moved => Some(Expected {
            known: first_round_files(&c, wanted),
            list: c.blobs.len() <= MAX_LISTED,
        }),
        Some(_) => None,
    }
}

/// The texts `branch` knows of the files `wanted` picks first (the index): what the next
/// rounds were picked from at that commit.
fn first_round_files(branch: &Branch, wanted: &impl Wanted) -> Files {
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
pub(super) async fn load(
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
    }
    Ok(files)
}

fn unreachable_etag<T>() -> Result<T, GitHubError> {
    Err(GitHubError::Decode {
        route: wire::GET_REF,
        message: "304 without a known commit".into(),
    })
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
    let path = repo_path(repo, &format!("git/commits/{commit}"));
    let body: CommitBody = api.json(Call::get(wire::GET_COMMIT, path)).await?;
    if body.sha != commit.as_str() {
        return Err(GitHubError::Decode {
            route: wire::GET_COMMIT,
            message: format!("asked for {commit}, got {}", body.sha),
        });
    }
    let tree_sha = wire::object_sha(wire::GET_COMMIT, &body.tree.sha)?;
    let blobs = read_tree(api, repo, &tree_sha).await?;
    let parents = body
        .parents
        .iter()
        .map(|p| wire::commit_sha(wire::GET_COMMIT, &p.sha))
        .collect::<Result<_, _>>()?;
    Ok((tree_sha, parents, blobs))
}

/// Every blob of tree `tree_sha`, by path.
async fn read_tree(
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
    let call = Call::get(wire::GET_BLOB, repo_path(repo, &format!("git/blobs/{sha}")));
    let blob: BlobBody = api.json(call).await?;
    Ok((path.to_owned(), wire::blob_text(path, blob)?))
}
