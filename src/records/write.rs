//! One change = one commit on the records branch: on an existing branch one
//! `createCommitOnBranch` on the snapshot's commit (`graphql.rs`); on a new one a tree with
//! inline contents, a commit and a ref create. When the branch moved meanwhile, the change
//! is re-derived from the new state, never forced.

use std::collections::BTreeMap;
use std::time::Duration;

use rand::Rng;

use super::cache::Branch;
use super::convert::{self, Converted};
use super::graphql::OnBranch;
use super::landing::write;
use super::layout::{self, Physical};
use super::read::{read_with, Reuse};
use super::snapshot::Snapshot;
use super::wanted::Wanted;
use crate::engine::layout::LAYOUT_VERSION;
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, ObjectSha, PrNumber, RepoName};

/// Attempts in all before a contended branch is reported as an error. Each attempt after
/// the first waits a random, growing delay so concurrent writers spread out.
pub const MAX_ATTEMPTS: u32 = 12;
/// Commits GitHub failed (and that did not land) in one handling before it gives up.
const FAILED_WRITES: u32 = 2;

pub use super::snapshot::Change;

#[derive(Debug)]
pub enum CommitOutcome<E> {
    /// The branch now points at `commit`; `snapshot` is the state it holds (the files read
    /// plus the files written).
    Committed {
        commit: CommitSha,
        snapshot: Snapshot,
        attempts: u32,
        /// The body of the pull request the commit was asked to read back, as GitHub
        /// answered with the commit (see [`commit_change_with`]), and when the commit
        /// was sent.
        pull_body: Option<(String, tokio::time::Instant)>,
    },
    /// `apply` asked for no change, or only for content already there.
    Unchanged { snapshot: Snapshot },
    /// `apply` refused on the latest state; nothing was written.
    Refused(E),
}

/// The first line of a commit message ends with `[skip ci]`, so records never start
/// workflows (GitHub looks for it anywhere in the message; the first line is what logs show).
#[must_use]
pub(crate) fn with_skip_ci(message: &str) -> String {
    let trimmed = message.trim_end();
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let first = first.trim_end();
    let first = if trimmed.contains("[skip ci]") {
        first.to_owned()
    } else if first.is_empty() {
        "[skip ci]".to_owned()
    } else {
        format!("{first} [skip ci]")
    };
    if rest.is_empty() {
        first
    } else {
        format!("{first}\n{rest}")
    }
}

/// Reads the branch (see [`read`] for `wanted`), asks `apply` for the change and commits it
/// with a compare-and-swap. If the branch moved, re-reads and asks `apply` again, which may
/// now refuse. A branch still contended after [`MAX_ATTEMPTS`] gives the last 422.
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub async fn commit_change<E>(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    message: &str,
    wanted: impl Wanted,
    apply: impl Fn(&Snapshot) -> Result<Change, E>,
) -> Result<CommitOutcome<E>, GitHubError> {
    let to = (message, None);
    commit_change_with(api, repo, branch, to, wanted, apply, Reuse::default()).await
}

/// [`commit_change`], reading through `reuse` (the ref a moment ago, for the first attempt
/// only: after a conflict the branch is read again) and telling its cache what was written.
/// `body_of`: a pull request whose body the commit's answer brings back, for the views
/// that follow (a read less).
///
/// # Errors
///
/// [`GitHubError`] when a call to GitHub's Git Data API fails, or an answer cannot be
/// read.
pub(crate) async fn commit_change_with<E>(
    api: &Api,
    repo: &RepoName,
    branch: &str,
    (message, body_of): (&str, Option<PrNumber>),
    wanted: impl Wanted,
    apply: impl Fn(&Snapshot) -> Result<Change, E>,
    reuse: Reuse<'_>,
) -> Result<CommitOutcome<E>, GitHubError> {
    let message = with_skip_ci(message);
    let mut last = None;
    let mut failed = 0;
    for attempt in 1..=MAX_ATTEMPTS {
        let mut reuse = reuse;
        if attempt > 1 {
            reuse.head = None;
            tokio::time::sleep(spread(attempt)).await;
        }
        let mut snapshot = read_with(api, repo, branch, &wanted, reuse).await?;
        let known = reuse.cache.and_then(|c| c.get(repo, branch));
        let decide = (&apply, known.as_deref());
        let (change, files) = match decided(api, repo, &mut snapshot, decide).await? {
            Decided::Write(change, files) => (change, files),
            Decided::Refused(refusal) => return Ok(CommitOutcome::Refused(refusal)),
            Decided::Unchanged => return Ok(CommitOutcome::Unchanged { snapshot }),
        };
        // A version-1 branch is converted by its first write, in a commit of its own; the
        // change is then decided again on what the conversion made.
        if snapshot.layout() == 1 {
            if let Some(cache) = reuse.cache {
                cache.forget(repo, branch);
            }
            if let Converted::Moved = convert::convert(api, repo, branch, &snapshot).await? {
                tracing::info!(
                    branch,
                    attempt,
                    "records branch moved before its conversion"
                );
            }
            last = Some(GitHubError::Setup("converted; applying again".into()));
            continue;
        }
        let to = (branch, body_of);
        match write(api, repo, to, &snapshot, &files, &message).await? {
            OnBranch::Done {
                commit,
                tree,
                pull_body,
            } => {
                if let Some(cache) = reuse.cache {
                    cache.committed(repo, branch, &snapshot, &files, &commit, &tree);
                }
                return Ok(CommitOutcome::Committed {
                    snapshot: after(snapshot, change, files, (&commit, tree)),
                    commit,
                    attempts: attempt,
                    pull_body,
                });
            }
            // GitHub failed and the commit did not land: tried once more, then the
            // delivery fails (a 5xx, redelivered) rather than spend writes on a GitHub
            // that keeps failing.
            OnBranch::Stale(err) if err.outcome_unknown() => {
                failed += 1;
                if failed >= FAILED_WRITES {
                    return Err(err);
                }
                tracing::info!(branch, attempt, error = %err, "records commit failed; trying once more");
                last = Some(err);
            }
            OnBranch::Stale(err) => {
                tracing::info!(branch, attempt, "records branch moved; applying again");
                last = Some(err);
            }
        }
    }
    Err(last.unwrap_or_else(|| GitHubError::Setup("no commit attempt was made".into())))
}

/// The longest wait before `attempt`: doubling from 40 ms, capped at 1.28 s.
fn ceiling_ms(attempt: u32) -> u64 {
    20u64 << attempt.clamp(1, 6)
}

fn spread(attempt: u32) -> Duration {
    Duration::from_millis(rand::thread_rng().gen_range(0..=ceiling_ms(attempt)))
}

fn is_noop(snapshot: &Snapshot, change: &Change) -> bool {
    change
        .files
        .iter()
        .all(|(path, content)| snapshot.files.get(path) == Some(content))
}

/// The state after the commit: the change as the app made it (the index whole), and the
/// files written (on version 2, the shards and `next.json` it became).
fn after(
    mut snapshot: Snapshot,
    change: Change,
    written: BTreeMap<String, String>,
    (commit, tree): (&CommitSha, ObjectSha),
) -> Snapshot {
    let blobs = std::sync::Arc::make_mut(&mut snapshot.blobs);
    for path in written.keys() {
        blobs.insert(path.clone(), None);
    }
    if let Some(probed) = &mut snapshot.probed {
        std::sync::Arc::make_mut(probed).extend(written.keys().cloned());
    }
    snapshot.files.extend(written);
    snapshot.files.extend(change.files);
    if snapshot.commit.is_none() {
        snapshot.layout = LAYOUT_VERSION;
    }
    snapshot.parents = snapshot.commit.take().into_iter().collect();
    snapshot.commit = Some(commit.clone());
    snapshot.tree = Some(tree);
    snapshot
}

/// What `apply` decided on `snapshot`, as the files a commit writes.
enum Decided<E> {
    Write(Change, BTreeMap<String, String>),
    Refused(E),
    Unchanged,
}

/// Asks `apply` for the change and turns it into the files to write: on version 2 a
/// change of the index decided without the shards it writes is decided again once they
/// are read (at the same commit), so each shard is rewritten from what it holds.
async fn decided<E>(
    api: &Api,
    repo: &RepoName,
    snapshot: &mut Snapshot,
    (apply, known): (&impl Fn(&Snapshot) -> Result<Change, E>, Option<&Branch>),
) -> Result<Decided<E>, GitHubError> {
    for _ in 0..=MAX_SHARD_READS {
        let change = match apply(snapshot) {
            Ok(change) => change,
            Err(refusal) => return Ok(Decided::Refused(refusal)),
        };
        if is_noop(snapshot, &change) {
            return Ok(Decided::Unchanged);
        }
        if snapshot.layout() == 1 {
            return Ok(Decided::Write(change, BTreeMap::new()));
        }
        match layout::physical_change(snapshot, &change) {
            Physical::Files(files) => return Ok(Decided::Write(change, files)),
            Physical::Unread(paths) => {
                layout::read_more(api, repo, snapshot, (paths, known)).await?;
            }
        }
    }
    Err(GitHubError::Setup(
        "a records change kept naming index shards it had not read".into(),
    ))
}

/// Reads of shards a change needs before it is written: one usually (the keys a command
/// adds), each read deciding again on more of the index.
const MAX_SHARD_READS: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_lines_end_with_skip_ci_once() {
        let cases = [
            ("AUD-7: report run 1", "AUD-7: report run 1 [skip ci]"),
            ("AUD-7: x [skip ci]", "AUD-7: x [skip ci]"),
            ("AUD-7: x [skip ci]\n", "AUD-7: x [skip ci]"),
            ("two\n\nlines\n", "two [skip ci]\n\nlines"),
            ("two\n\nlines [skip ci]", "two\n\nlines [skip ci]"),
            ("", "[skip ci]"),
        ];
        for (given, want) in cases {
            assert_eq!(with_skip_ci(given), want, "{given:?}");
        }
    }

    #[test]
    fn a_change_to_content_already_there_is_a_noop() {
        let mut snapshot = Snapshot::default();
        snapshot.files.insert("index.json".into(), "{}".into());
        let same = Change {
            files: [("index.json".to_owned(), "{}".to_owned())].into(),
        };
        let differs = Change {
            files: [("index.json".to_owned(), "{\"next\":2}".to_owned())].into(),
        };
        let unread = Change {
            files: [("records/AUD-1.json".to_owned(), "{}".to_owned())].into(),
        };
        assert!(is_noop(&snapshot, &Change::default()));
        assert!(is_noop(&snapshot, &same));
        assert!(!is_noop(&snapshot, &differs));
        assert!(!is_noop(&snapshot, &unread));
    }

    #[test]
    fn the_spread_grows_and_stays_bounded() {
        let ceilings: Vec<u64> = (2..=MAX_ATTEMPTS).map(ceiling_ms).collect();
        assert_eq!(ceilings[..5], [80, 160, 320, 640, 1280]);
        assert!(ceilings.iter().all(|c| *c <= 1280));
        for attempt in 2..=MAX_ATTEMPTS {
            assert!(spread(attempt) <= Duration::from_millis(ceiling_ms(attempt)));
        }
    }
}
