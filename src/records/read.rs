//! Reading the records branch: ref, commit, recursive tree, then only the blobs the caller
//! wants, fetched concurrently. The cost does not grow with the number of records, and
//! what the process already knows (see `cache`) is not read again: a ref or a commit's
//! tree and parents another read brought (the first reads' query) are not asked again,
//! and at a commit another process made, the files wanted at the commit before are
//! fetched with the first round.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::cache::{Branch, RecordsCache};
use super::layout::{self, ByPath};
use super::listing;
use super::snapshot::{Files, Snapshot};
use super::wanted::Wanted;
use super::wire::{self, RefBody};
use crate::github::first_reads::RecordsHead;
use crate::github::{api::status_error, Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

pub(super) use super::wire::repo_path;

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
    let seen = reuse.objects.filter(|h| h.commit == commit);
    let names = wanted.named(&Files::new()).is_some();
    // What the process knew at the commit before: the files the caller wanted then are
    // likely the ones it wants now, so they are fetched with the first round.
    let mut hint = None;
    let mut branch_state = match cached {
        Some(c) if c.commit == commit => {
            let mut known = Branch {
                etag,
                ..(*c).clone()
            };
            if known.probed.is_some() {
                if let Some(h) = seen {
                    merge_seen(&mut known, h);
                }
            }
            known
        }
        // Read by path unless the branch is known to hold layout version 1.
        other if names && other.as_ref().is_none_or(|c| c.layout != 1) => {
            unlisted(api, repo, (commit, etag), seen).await?
        }
        other => {
            hint = other
                .as_ref()
                .map(|c| listing::first_round_files(c, wanted));
            listing::listed(api, repo, (commit, etag), seen, other.as_deref()).await?
        }
    };
    let files = load(api, repo, &mut branch_state, wanted, hint.as_ref(), seen).await?;
    let snapshot = Snapshot {
        commit: Some(branch_state.commit.clone()),
        parents: branch_state.parents.clone(),
        files,
        tree: branch_state.tree.clone(),
        blobs: branch_state.blobs.clone(),
        probed: branch_state.probed.clone(),
        layout: branch_state.layout,
    };
    if let Some(cache) = reuse.cache {
        cache.put(repo, branch, branch_state);
    }
    Ok(snapshot)
}

/// The files `wanted` picks at `branch_state`'s commit: by path when it names them and the
/// branch is not listed (a version-1 branch found so is listed then), else from the listing.
pub(super) async fn load(
    api: &Api,
    repo: &RepoName,
    branch_state: &mut Branch,
    wanted: &impl Wanted,
    hint: Option<&Files>,
    seen: Option<&RecordsHead>,
) -> Result<Files, GitHubError> {
    let names = wanted.named(&Files::new()).is_some();
    if branch_state.probed.is_some() && names {
        if let ByPath::Files(files) = layout::load(api, repo, branch_state, wanted).await? {
            return Ok(files);
        }
    }
    if branch_state.probed.is_some() {
        // Listed after all: a version-1 branch, or a picker that names no paths.
        let at = (branch_state.commit.clone(), branch_state.etag.clone());
        let known = branch_state.clone();
        *branch_state = listing::listed(api, repo, at, seen, Some(&known)).await?;
    }
    listing::load_listed(api, repo, branch_state, wanted, hint).await
}

/// A state for reading `commit` by path: its tree and parents (from `seen`, else its commit
/// read), and nothing of its files yet.
pub(super) async fn unlisted(
    api: &Api,
    repo: &RepoName,
    (commit, etag): (CommitSha, Option<String>),
    seen: Option<&RecordsHead>,
) -> Result<Branch, GitHubError> {
    let (tree, parents) = match seen {
        Some(h) => (h.tree.clone(), h.parents.clone()),
        None => listing::read_commit(api, repo, &commit).await?,
    };
    let mut state = Branch {
        etag,
        commit,
        parents,
        tree: Some(tree),
        blobs: Arc::new(BTreeMap::new()),
        contents: std::collections::HashMap::new(),
        probed: Some(Arc::new(std::collections::BTreeSet::new())),
        layout: 0,
        moved: true,
    };
    if let Some(h) = seen {
        merge_seen(&mut state, h);
    }
    Ok(state)
}

/// What the first reads brought of `state`'s commit: the texts of files found, and the
/// paths they found absent.
fn merge_seen(state: &mut Branch, seen: &RecordsHead) {
    for path in &seen.absent {
        state.learn(path, None);
    }
    for (path, (sha, text)) in &seen.texts {
        state.learn(path, Some((sha.clone(), text)));
    }
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
        // Unknown, its layout too: a version-2 branch is read by path (the files asked
        // ahead, never its listing), a version-1 branch listed through REST.
        None => Some(Expected {
            known: Files::new(),
            list: false,
        }),
        // Only a version-1 branch listed whole and small is listed in the query.
        Some(c) if c.moved => Some(Expected {
            known: listing::first_round_files(&c, wanted),
            list: c.layout == 1 && c.probed.is_none() && c.blobs.len() <= MAX_LISTED,
        }),
        Some(_) => None,
    }
}

fn unreachable_etag<T>() -> Result<T, GitHubError> {
    Err(GitHubError::Decode {
        route: wire::GET_REF,
        message: "304 without a known commit".into(),
    })
}
