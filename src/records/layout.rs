//! The layout a records branch holds (docs/reference.md#layout-version-2), and version 2's
//! reads and writes. Above this module the app speaks of version 2's paths and of one
//! index ([`INDEX_PATH`]); here a version-2 read assembles that index from `next.json`
//! and the shards it read, and a change of it becomes the shards whose keys changed.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::by_path;
use super::cache::Branch;
use super::snapshot::{Files, Snapshot};
use super::wanted::Wanted;
use super::wanted::MAX_LOAD_ROUNDS;
use super::write::Change;
use crate::engine::layout::{shard_at, LAYOUT_PATH, LAYOUT_VERSION, NEXT_PATH};
use crate::engine::record::{shards, Index};
use crate::github::{Api, GitHubError};
use crate::ids::RepoName;

use crate::engine::layout::INDEX_PATH;

/// The physical paths a named path stands for on version 2: the index is `next.json` (its
/// shards are named on their own).
fn physical(path: String) -> String {
    if path == INDEX_PATH {
        NEXT_PATH.to_owned()
    } else {
        path
    }
}

/// What a read by path came to.
pub(super) enum ByPath {
    /// The files `wanted` named, with the index assembled.
    Files(Files),
    /// The branch holds layout version 1: it is read from its listing.
    Version1,
}

/// The layout `files`' `layout.json` marks (`None`: no marker, version 1), refused when it
/// is newer than this build's. A marker that does not parse is read as this build's layout:
/// damage the gate reports, never a reason to read the branch as version 1 (and convert
/// it again).
pub(super) fn marked(files: &Files) -> Result<Option<u32>, GitHubError> {
    match files.get(LAYOUT_PATH).map(|t| shards::layout_version(t)) {
        None => Ok(None),
        Some(Ok(v)) if v > LAYOUT_VERSION => Err(too_new(v)),
        Some(_) => Ok(Some(LAYOUT_VERSION)),
    }
}

/// Why a branch may not be read or written by this build: its layout is newer.
fn too_new(version: u32) -> GitHubError {
    GitHubError::Setup(format!(
        "the records branch holds layout version {version}, and this auditloop knows \
         version {LAYOUT_VERSION} at most: upgrade auditloop before it writes there"
    ))
}

/// Reads what `wanted` names at `state`'s commit, by path, in at most
/// [`MAX_LOAD_ROUNDS`] rounds (plus the first, which also asks for `layout.json`); texts
/// `state` knows are not asked again, and those read are kept in it.
pub(super) async fn load(
    api: &Api,
    repo: &RepoName,
    state: &mut Branch,
    wanted: &impl Wanted,
) -> Result<ByPath, GitHubError> {
    let mut files = Files::new();
    for round in 0..=MAX_LOAD_ROUNDS {
        let Some(named) = wanted.named(&files) else {
            return Err(GitHubError::Setup(
                "a read by path needs named paths".into(),
            ));
        };
        let mut want: BTreeSet<String> = named.into_iter().map(physical).collect();
        if round == 0 {
            want.insert(LAYOUT_PATH.to_owned());
        }
        let probed = state.probed.get_or_insert_with(Default::default);
        let ask: Vec<String> = want
            .iter()
            .filter(|p| !probed.contains(*p))
            .cloned()
            .collect();
        if !ask.is_empty() {
            let found = by_path::read(api, repo, &state.commit, &ask).await?;
            for (path, blob) in &found {
                state.learn(
                    path,
                    blob.as_ref().map(|(sha, t)| (sha.clone(), t.as_str())),
                );
            }
        }
        let before = files.len();
        for path in &want {
            if let Some(text) = state.text(path) {
                files.insert(path.clone(), text.to_string());
            }
        }
        if round == 0 {
            match marked(&files)? {
                None => return Ok(ByPath::Version1),
                Some(version) => state.layout = version,
            }
        }
        assemble(&mut files);
        if files.len() == before && round > 0 {
            break;
        }
    }
    Ok(ByPath::Files(files))
}

/// Puts the index `next.json` and the shards among `files` hold at [`INDEX_PATH`], when
/// `next.json` was read and they parse (else the index is missing, which the app reports
/// as damage; the reason is logged).
pub(super) fn assemble(files: &mut Files) {
    let Some(next) = files.get(NEXT_PATH) else {
        return;
    };
    let shards = files.iter().filter(|(p, _)| shard_at(p).is_some());
    match shards::assemble(next, shards) {
        Ok(index) => {
            files.insert(INDEX_PATH.to_owned(), index.to_json());
        }
        Err(why) => {
            tracing::warn!(why, "records index shards do not assemble");
            files.remove(INDEX_PATH);
        }
    }
}

/// What writing `change` on a version-2 `snapshot` takes: the files, or the shards that
/// must be read first (the change was decided without them).
pub(super) enum Physical {
    Files(Files),
    Unread(Vec<String>),
}

/// `change` as version 2's files: the index, when it changed, becomes `next.json` and the
/// shards its changed keys are in.
pub(super) fn physical_change(snapshot: &Snapshot, change: &Change) -> Physical {
    let mut files = change.files.clone();
    // A new branch is marked with its layout in its first commit.
    if snapshot.commit.is_none() {
        files.insert(LAYOUT_PATH.to_owned(), shards::layout_json());
    }
    // Text that is no index (never the app's, which writes one it serialized) is written
    // as the file it names.
    let Some(new) = files.get(INDEX_PATH).and_then(|t| Index::parse(t).ok()) else {
        return Physical::Files(files);
    };
    files.remove(INDEX_PATH);
    let base = snapshot
        .file(INDEX_PATH)
        .and_then(|t| Index::parse(t).ok())
        .unwrap_or_default();
    let written = shards::written(&base, &new);
    // Read means its text is among the snapshot's files, or it is known absent: a shard
    // the process knows exists at this commit but whose text this read did not take is
    // unread, or the change would rewrite it without the keys it holds.
    let read: BTreeSet<String> = snapshot
        .probed
        .as_deref()
        .map(|p| {
            p.iter()
                .filter(|p| shard_at(p).is_some())
                .filter(|p| snapshot.files.contains_key(*p) || snapshot.is_absent(p))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let unread: Vec<String> = written.unread(&read).cloned().collect();
    // A listed branch holds every shard it has, and a new branch none yet.
    if !unread.is_empty() && snapshot.commit.is_some() && snapshot.probed.is_some() {
        return Physical::Unread(unread);
    }
    files.extend(written.files);
    if snapshot.commit.is_none() {
        files
            .entry(NEXT_PATH.to_owned())
            .or_insert_with(|| shards::next_json(new.next));
    }
    Physical::Files(files)
}

/// Reads `paths` (shards a change needs) into `snapshot`, at its commit, and assembles
/// its index again.
pub(super) async fn read_more(
    api: &Api,
    repo: &RepoName,
    snapshot: &mut Snapshot,
    (paths, known): (Vec<String>, Option<&Branch>),
) -> Result<(), GitHubError> {
    let Some(commit) = snapshot.commit.clone() else {
        // A new branch holds no shard: each is known absent.
        let probed = Arc::make_mut(snapshot.probed.get_or_insert_with(Default::default));
        probed.extend(paths);
        return Ok(());
    };
    // What the process knows at this very commit costs no call.
    let known = known.filter(|b| b.commit == commit);
    let (cached, ask): (Vec<String>, Vec<String>) = paths
        .into_iter()
        .partition(|p| known.is_some_and(|b| b.text(p).is_some()));
    for path in cached {
        if let Some(text) = known.and_then(|b| b.text(&path)) {
            snapshot.files.insert(path, text.to_string());
        }
    }
    let found = if ask.is_empty() {
        std::collections::BTreeMap::new()
    } else {
        by_path::read(api, repo, &commit, &ask).await?
    };
    let probed = Arc::make_mut(snapshot.probed.get_or_insert_with(Default::default));
    let blobs = Arc::make_mut(&mut snapshot.blobs);
    for (path, blob) in found {
        probed.insert(path.clone());
        if let Some((sha, text)) = blob {
            blobs.insert(path.clone(), Some(sha));
            snapshot.files.insert(path, text);
        }
    }
    assemble(&mut snapshot.files);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ids::AuditId;
    use crate::engine::layout::IndexMap;
    use crate::ids::CommitSha;
    use std::collections::BTreeMap;

    /// A branch at a commit whose invocation shard the process knows exists (its blob), but
    /// whose text this read did not take.
    fn known_but_unloaded(shard: &str) -> Snapshot {
        let mut files = Files::new();
        files.insert(NEXT_PATH.to_owned(), shards::next_json(3));
        assemble(&mut files);
        let mut blobs = BTreeMap::new();
        blobs.insert(shard.to_owned(), None);
        Snapshot {
            commit: Some(CommitSha::new("a".repeat(40)).unwrap()),
            files,
            blobs: Arc::new(blobs),
            probed: Some(Arc::new([shard.to_owned()].into())),
            layout: 2,
            ..Snapshot::default()
        }
    }

    #[test]
    fn a_shard_known_to_exist_but_not_read_is_read_before_it_is_written() {
        let key = "ci-run-shared";
        let shard = crate::engine::layout::shard_path(IndexMap::Invocations, key);
        let snapshot = known_but_unloaded(&shard);
        let mut index = Index::parse(snapshot.file(INDEX_PATH).unwrap()).unwrap();
        index
            .invocations
            .insert(key.to_owned(), AuditId::new("AUD-2".to_owned()).unwrap());
        let change = Change {
            files: [(INDEX_PATH.to_owned(), index.to_json())].into(),
        };
        match physical_change(&snapshot, &change) {
            Physical::Unread(paths) => assert_eq!(paths, [shard]),
            Physical::Files(files) => panic!("written unread: {files:?}"),
        }
    }
}
