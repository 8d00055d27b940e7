//! What the app remembers between deliveries (records branches, its own check-run ids, the
//! marks its claims point at), so that no call is made twice; within one delivery, `DeliveryCache`
//! (`seen.rs`).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ids::{CheckRunId, CommitSha, NodeId, PrNumber, RepoName};
use crate::locks::{KeyGuard, KeyedLocks};
use crate::records::RecordsCache;

/// Check-run ids remembered at most; the map starts over when full.
pub(crate) const MAX_RUN_IDS: usize = 8192;

/// Kept for the life of the process, shared by all deliveries.
#[derive(Default)]
pub(crate) struct Memory {
    /// Per repository, the newest records commits this process made, newest last: commits
    /// no other process made, which its claims point at (see [`crate::app::claim`]).
    marks: Mutex<HashMap<String, Vec<CommitSha>>>,
    pub(crate) records: RecordsCache,
    /// Our newest check run per repository, head commit and name, as this process created
    /// or listed it: an update needs its id, not a listing.
    runs: Mutex<HashMap<String, OurRun>>,
    /// One writer per records branch at a time (see [`Memory::write_turn`]).
    turns: KeyedLocks,
    /// The head each pull request had when last read, to list its check runs while the
    /// pull request itself is read again (a wrong guess costs a second listing).
    heads: Mutex<HashMap<String, CommitSha>>,
    /// Per repository, the dashboard's next rebuild and when it was last rebuilt (see
    /// [`crate::app::publish::dashboard`]).
    dashboards: Mutex<HashMap<String, DashboardSlot>>,
    /// How many times a PR's gate was evaluated: once per change of its views, which a
    /// test holds it to.
    gates: std::sync::atomic::AtomicU64,
}

/// A repository whose dashboard is to be rebuilt (see [`crate::app::publish::dashboard`]), as a
/// change left it.
#[derive(Clone)]
pub(crate) struct DashboardDue {
    pub(crate) api: crate::github::Api,
    pub(crate) repo: RepoName,
    pub(crate) default_branch: String,
    pub(crate) html_base: String,
}

/// A repository's dashboard: a change waiting to be shown, and the last rebuild.
#[derive(Default)]
struct DashboardSlot {
    due: Option<DashboardDue>,
    last: Option<std::time::Instant>,
    /// The setting was seen off with no dashboard open: the sweep need not look again
    /// until it is seen on.
    settled_off: bool,
}

/// A check run of ours: its id and the records commit it was computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OurRun {
    pub(crate) id: CheckRunId,
    /// Its GraphQL id, when known: then it is updated in the views' one mutation.
    pub(crate) node: Option<NodeId>,
    pub(crate) records: Option<CommitSha>,
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
    /// A record of `due`'s repository changed: its dashboard is rebuilt on a later flush.
    pub(crate) fn dashboard_changed(&self, due: DashboardDue) {
        let key = due.repo.as_str().to_ascii_lowercase();
        let mut slots = self
            .dashboards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slots.len() >= MAX_MARKED_REPOS && !slots.contains_key(&key) {
            slots.retain(|_, s| s.due.is_some());
        }
        slots.entry(key).or_default().due = Some(due);
    }

    /// Whether the sweep found `repo`'s dashboard settled off before (see
    /// [`Memory::dashboard_off`]).
    pub(crate) fn dashboard_settled_off(&self, repo: &RepoName) -> bool {
        self.dashboards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&repo.as_str().to_ascii_lowercase())
            .is_some_and(|s| s.settled_off)
    }

    /// Notes whether `repo`'s dashboard setting is off with no dashboard left open.
    pub(crate) fn dashboard_off(&self, repo: &RepoName, off: bool) {
        let key = repo.as_str().to_ascii_lowercase();
        let mut slots = self
            .dashboards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if off || slots.contains_key(&key) {
            slots.entry(key).or_default().settled_off = off;
        }
    }

    /// The dashboards to rebuild now: changed, and last rebuilt `interval` ago or more.
    /// Each is taken (a change after this is due again) and stamped as rebuilt now.
    pub(crate) fn dashboards_due(&self, interval: std::time::Duration) -> Vec<DashboardDue> {
        let now = std::time::Instant::now();
        let mut slots = self
            .dashboards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots
            .values_mut()
            .filter(|s| s.due.is_some() && s.last.is_none_or(|l| now.duration_since(l) >= interval))
            .filter_map(|s| {
                s.last = Some(now);
                s.due.take()
            })
            .collect()
    }

    /// The newest mark of this process in `repo`, if it made a records commit there.
    pub(crate) fn mark(&self, repo: &RepoName) -> Option<CommitSha> {
        let marks = self
            .marks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        marks
            .get(&repo.as_str().to_ascii_lowercase())
            .and_then(|m| m.last().cloned())
    }

    pub(crate) fn add_mark(&self, repo: &RepoName, mark: CommitSha) {
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
    pub(crate) fn is_mark(&self, repo: &RepoName, target: &str) -> bool {
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

    pub(crate) fn run_of(&self, repo: &RepoName, head: &CommitSha, name: &str) -> Option<OurRun> {
        let runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        runs.get(&run_key(repo, head, name)).cloned()
    }

    pub(crate) fn remember_run(&self, repo: &RepoName, head: &CommitSha, name: &str, run: OurRun) {
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
    pub(crate) async fn write_turn(&self, repo: &RepoName, branch: &str) -> (KeyGuard<'_>, bool) {
        let key = format!("{}\n{branch}", repo.as_str().to_ascii_lowercase());
        self.turns.lock_noting_wait(&key).await
    }

    /// The pull requests of `repo` whose head was `sha` when this process last read them
    /// (a guess, confirmed by reading each): how a fork's PR is found from its head, since
    /// GitHub leaves fork PRs out of a commit's pull-request listing.
    pub(crate) fn pulls_with_head(&self, repo: &RepoName, sha: &CommitSha) -> Vec<PrNumber> {
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

    pub(crate) fn head_of(&self, repo: &RepoName, pr: PrNumber) -> Option<CommitSha> {
        let heads = self
            .heads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        heads.get(&head_key(repo, pr)).cloned()
    }

    pub(crate) fn remember_head(&self, repo: &RepoName, pr: PrNumber, head: &CommitSha) {
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

impl Memory {
    /// Counts one evaluation of a PR's gate.
    pub(crate) fn gate_evaluated(&self) {
        self.gates
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many times a PR's gate was evaluated in this process.
    pub(crate) fn gate_evaluations(&self) -> u64 {
        self.gates.load(std::sync::atomic::Ordering::Relaxed)
    }
}
