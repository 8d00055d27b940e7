//! What the app remembers between deliveries (records branches, its own check-run ids) and
//! within one delivery (the reads it already made), so that no call is made twice.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::engine::policy::Permission;
use crate::github::first_reads::RecordsHead;
use crate::github::rest::{self, CheckRunInfo, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CheckRunId, CommitSha, PrNumber, RepoName};
use crate::locks::{KeyGuard, KeyedLocks};
use crate::records::RecordsCache;

/// Check-run ids remembered at most; the map starts over when full.
pub const MAX_RUN_IDS: usize = 8192;

/// Kept for the life of the process, shared by all deliveries.
#[derive(Default)]
pub struct Memory {
    /// Per repository, the newest records commits this process made, newest last: commits
    /// no other process made, which its claims point at (see [`crate::app::claim`]).
    marks: Mutex<HashMap<String, Vec<CommitSha>>>,
    pub records: RecordsCache,
    /// Our newest check run per repository, head commit and name, as this process created
    /// or listed it: an update needs its id, not a listing.
    runs: Mutex<HashMap<String, OurRun>>,
    /// One writer per records branch at a time (see [`Memory::write_turn`]).
    turns: KeyedLocks,
    /// The head each pull request had when last read, to list its check runs while the
    /// pull request itself is read again (a wrong guess costs a second listing).
    heads: Mutex<HashMap<String, CommitSha>>,
}

/// A check run of ours: its id and the records commit it was computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OurRun {
    pub id: CheckRunId,
    pub records: Option<CommitSha>,
}

/// Repositories whose marks are kept at most; the map starts over when full (a claim of a
/// forgotten mark is only waited on as another's, then taken over).
const MAX_MARKED_REPOS: usize = 4096;
/// Marks kept per repository: a claim is read back seconds after it was made, a few
/// commits later at most.
const MARKS_PER_REPO: usize = 32;

fn run_key(repo: &RepoName, head: &CommitSha, name: &str) -> String {
    format!("{}\n{head}\n{name}", repo.as_str().to_ascii_lowercase())
}

impl Memory {
    /// The newest mark of this process in `repo`, if it made a records commit there.
    pub fn mark(&self, repo: &RepoName) -> Option<CommitSha> {
        let marks = self
            .marks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        marks
            .get(&repo.as_str().to_ascii_lowercase())
            .and_then(|m| m.last().cloned())
    }

    pub fn add_mark(&self, repo: &RepoName, mark: CommitSha) {
        let mut marks = self
            .marks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if marks.len() >= MAX_MARKED_REPOS {
            marks.clear();
        }
        let list = marks.entry(repo.as_str().to_ascii_lowercase()).or_default();
        list.retain(|m| m != &mark);
        list.push(mark);
        if list.len() > MARKS_PER_REPO {
            list.remove(0);
        }
    }

    /// Whether `target` (what a claim ref points at) is a mark of this process.
    pub fn is_mark(&self, repo: &RepoName, target: &str) -> bool {
        let marks = self
            .marks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        marks
            .get(&repo.as_str().to_ascii_lowercase())
            .is_some_and(|m| {
                m.iter()
                    .any(|sha| sha.as_str().eq_ignore_ascii_case(target))
            })
    }

    pub fn run_of(&self, repo: &RepoName, head: &CommitSha, name: &str) -> Option<OurRun> {
        let runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        runs.get(&run_key(repo, head, name)).cloned()
    }

    pub fn remember_run(&self, repo: &RepoName, head: &CommitSha, name: &str, run: OurRun) {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if runs.len() >= MAX_RUN_IDS {
            runs.clear();
        }
        runs.insert(run_key(repo, head, name), run);
    }

    /// The turn to write on `repo`'s records `branch`, and whether another writer of this
    /// process had to be waited for (then the branch has moved since it was read). Commands
    /// on one branch would otherwise race each other's compare-and-swap, and every lost
    /// race costs a read of the moved branch and a new tree, commit and ref update: on a
    /// busy repository, dozens of calls per command. Replicas still meet at the
    /// compare-and-swap.
    pub async fn write_turn(&self, repo: &RepoName, branch: &str) -> (KeyGuard<'_>, bool) {
        let key = format!("{}\n{branch}", repo.as_str().to_ascii_lowercase());
        self.turns.lock_noting_wait(&key).await
    }

    /// The pull requests of `repo` whose head was `sha` when this process last read them
    /// (a guess, confirmed by reading each): how a fork's PR is found from its head, since
    /// GitHub leaves fork PRs out of a commit's pull-request listing.
    pub fn pulls_with_head(&self, repo: &RepoName, sha: &CommitSha) -> Vec<PrNumber> {
        let prefix = format!("{}\n", repo.as_str().to_ascii_lowercase());
        let heads = self
            .heads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut found: Vec<PrNumber> = heads
            .iter()
            .filter(|(key, head)| *head == sha && key.starts_with(&prefix))
            .filter_map(|(key, _)| key[prefix.len()..].parse().ok().map(PrNumber))
            .collect();
        found.sort_by_key(|p| p.0);
        found
    }

    pub fn head_of(&self, repo: &RepoName, pr: PrNumber) -> Option<CommitSha> {
        let heads = self
            .heads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        heads.get(&head_key(repo, pr)).cloned()
    }

    pub fn remember_head(&self, repo: &RepoName, pr: PrNumber, head: &CommitSha) {
        let mut heads = self
            .heads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if heads.len() >= MAX_RUN_IDS {
            heads.clear();
        }
        heads.insert(head_key(repo, pr), head.clone());
    }
}

fn head_key(repo: &RepoName, pr: PrNumber) -> String {
    format!("{}\n{}", repo.as_str().to_ascii_lowercase(), pr.0)
}

/// The reads one delivery made, reused by its later steps.
#[derive(Default)]
pub struct Seen {
    /// The records branch and where its ref was (`None`: absent).
    records: Mutex<Option<(String, Option<CommitSha>)>>,
    /// The records commit the first reads found: its tree and parents, and the listing
    /// and texts they brought.
    records_head: Mutex<Option<Arc<RecordsHead>>>,
    pulls: Mutex<HashMap<PrNumber, Pull>>,
    permissions: Mutex<HashMap<String, Permission>>,
    /// The check runs on a head, listed early; handed out once (see [`Seen::head_runs`]).
    early_runs: Mutex<Vec<(CommitSha, Vec<CheckRunInfo>)>>,
    /// The first generation of the command's outcome claim, when it was made with the
    /// early reads: what its create found.
    early_claim: Mutex<Option<Taken>>,
    /// A reply's claim and +1, when made with the early reads.
    early_reply: Mutex<Option<EarlyReply>>,
}

/// What making a claim found (see [`crate::app::claim`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Created by this call: nothing was done under it yet.
    New,
    /// This process's already (its mark): made by this handling whose answer was lost, or
    /// by an earlier handling of this process that failed. Whatever it did must be looked
    /// for before acting.
    Again,
    /// Another handling's.
    Lost,
}

impl Taken {
    #[must_use]
    pub fn ours(self) -> bool {
        self != Taken::Lost
    }
}

/// What the early reads did towards a reply (`status`, `help`); `None`: that call failed,
/// and is made again when the reply is posted.
#[derive(Debug, Clone, Copy)]
pub struct EarlyReply {
    /// What the first generation of the reply's claim found.
    pub taken: Option<Taken>,
    /// Whether the +1 was new (201) rather than there already (200).
    pub reaction_new: Option<bool>,
}

impl Seen {
    // Outer `None`: not read yet in this delivery; `Some(None)`: read, and the branch is absent.
    #[allow(clippy::option_option)]
    pub fn records_head(&self, branch: &str) -> Option<Option<CommitSha>> {
        let seen = self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.as_ref()
            .filter(|(b, _)| b == branch)
            .map(|(_, c)| c.clone())
    }

    pub fn saw_records(&self, branch: &str, commit: Option<&CommitSha>) {
        *self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((branch.to_owned(), commit.cloned()));
    }

    pub fn saw_records_head(&self, head: RecordsHead) {
        *self
            .records_head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(head));
    }

    /// What the first reads brought of records commit `commit`, if they found it.
    pub fn records_objects(&self, commit: &CommitSha) -> Option<Arc<RecordsHead>> {
        self.records_head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|h| &h.commit == commit)
            .cloned()
    }

    pub fn forget_records(&self) {
        *self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    pub fn claimed_early(&self, taken: Taken) {
        *self
            .early_claim
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(taken);
    }

    pub fn replied_early(&self, early: EarlyReply) {
        *self
            .early_reply
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(early);
    }

    /// The early reply claim and +1, once.
    pub fn take_early_reply(&self) -> Option<EarlyReply> {
        self.early_reply
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The early outcome claim, once: a later generation is always claimed afresh.
    pub fn take_early_claim(&self) -> Option<Taken> {
        self.early_claim
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The pull request if this delivery read it already.
    pub fn known_pull(&self, number: PrNumber) -> Option<Pull> {
        self.pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&number)
            .cloned()
    }

    /// The pull request as read earlier in this delivery, or read now.
    pub async fn pull(
        &self,
        api: &Api,
        repo: &RepoName,
        number: PrNumber,
    ) -> Result<Pull, GitHubError> {
        let known = self
            .pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&number)
            .cloned();
        if let Some(pull) = known {
            return Ok(pull);
        }
        let pull = rest::get_pull(api, repo, number).await?;
        self.pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(number, pull.clone());
        Ok(pull)
    }

    /// A pull request read by another query (the first reads), for [`Seen::pull`] to hand out.
    pub fn saw_pull(&self, pull: Pull) {
        self.pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(pull.number, pull);
    }

    /// The check runs on `head` as another query listed them, for [`Seen::head_runs`].
    pub fn saw_runs(&self, head: CommitSha, runs: Vec<CheckRunInfo>) {
        self.early_runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((head, runs));
    }

    /// Lists the check runs on `head` now, for the first [`Seen::head_runs`] to take.
    pub async fn list_runs_early(
        &self,
        api: &Api,
        repo: &RepoName,
        head: &CommitSha,
    ) -> Result<(), GitHubError> {
        let runs = rest::check_runs(api, repo, head).await?;
        self.early_runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((head.clone(), runs));
        Ok(())
    }

    /// The check runs on `head`: the early listing once, when it was of this head; any
    /// later call lists afresh, since it must see the runs this delivery published since.
    pub async fn head_runs(
        &self,
        api: &Api,
        repo: &RepoName,
        head: &CommitSha,
    ) -> Result<Vec<CheckRunInfo>, GitHubError> {
        let early = {
            let mut early = self
                .early_runs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            early
                .iter()
                .position(|(listed, _)| listed == head)
                .map(|at| early.swap_remove(at).1)
        };
        match early {
            Some(runs) => Ok(runs),
            None => rest::check_runs(api, repo, head).await,
        }
    }

    /// A login's permission as read earlier in this delivery, or read now.
    pub async fn permission(
        &self,
        api: &Api,
        repo: &RepoName,
        login: &str,
    ) -> Result<Permission, GitHubError> {
        let key = login.to_ascii_lowercase();
        let known = self
            .permissions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .copied();
        if let Some(p) = known {
            return Ok(p);
        }
        let held = rest::permission(api, repo, login).await?;
        self.permissions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, held);
        Ok(held)
    }
}
