//! What one delivery saw already (its first reads, early claims, a body read back with a
//! commit), reused by its later steps so that no call is made twice.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::engine::policy::Permission;
use crate::github::first_reads::RecordsHead;
use crate::github::rest::{self, CheckRunInfo, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{Artifact, CommitSha, NodeId, PrNumber, RepoName};

/// The reads one delivery made, reused by its later steps.
#[derive(Default)]
pub(crate) struct DeliveryCache {
    /// The records branch and where its ref was (`None`: absent).
    records: Mutex<Option<(String, Option<CommitSha>)>>,
    /// The records commit the first reads found: its tree and parents, and the listing
    /// and texts they brought.
    records_head: Mutex<Option<Arc<RecordsHead>>>,
    pulls: Mutex<HashMap<PrNumber, Pull>>,
    permissions: Mutex<HashMap<String, Permission>>,
    /// The check runs on a head, listed early; handed out once (see [`DeliveryCache::head_runs`]).
    early_runs: Mutex<Vec<(CommitSha, Vec<CheckRunInfo>)>>,
    /// The first generation of the command's outcome claim, when it was made with the
    /// early reads: what its create found.
    early_claim: Mutex<Option<Taken>>,
    /// A reply's claim and +1, when made with the early reads.
    early_reply: Mutex<Option<EarlyReply>>,
    /// The repository's GraphQL id, when the first reads brought it.
    repository: Mutex<Option<NodeId>>,
    /// The open PRs on a head, listed early (beside a records commit).
    sharing: Mutex<Option<(CommitSha, Vec<Pull>)>>,
    /// A PR's body as a records commit's answer brought it back, and when: the views'
    /// body read, while it is fresh.
    bodies: Mutex<HashMap<PrNumber, (String, tokio::time::Instant)>>,
    /// The `D-<n>` decision records on the default branch, once read for a gate.
    decisions: Mutex<Option<std::collections::BTreeSet<u32>>>,
    /// The PR's record's candidate in the records the first reads found, which were read
    /// no later than the PR (see [`DeliveryCache::candidate_with_pull`]).
    candidate_with_pull: Mutex<Option<(PrNumber, Artifact)>>,
    /// The first page of the pull request's commits' linked accounts, from the first reads.
    commits: Mutex<Option<(PrNumber, crate::github::pull_commits::CommitPage)>>,
    /// The review threads, the diff and the file versions a command read ahead.
    pub(crate) ahead: crate::app::context::ahead_reads::AheadReads,
}

/// What making a claim found (see [`crate::app::claim`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Taken {
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
    pub(crate) fn ours(self) -> bool {
        self != Taken::Lost
    }
}

/// What the early reads did towards a reply (`status`, `help`); `None`: that call failed,
/// and is made again when the reply is posted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EarlyReply {
    /// What the first generation of the reply's claim found.
    pub(crate) taken: Option<Taken>,
    /// Whether the +1 was new (201) rather than there already (200).
    pub(crate) reaction_new: Option<bool>,
}

impl DeliveryCache {
    // Outer `None`: not read yet in this delivery; `Some(None)`: read, and the branch is absent.
    #[allow(clippy::option_option)]
    pub(crate) fn records_head(&self, branch: &str) -> Option<Option<CommitSha>> {
        let seen = self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.as_ref()
            .filter(|(b, _)| b == branch)
            .map(|(_, c)| c.clone())
    }

    pub(crate) fn saw_records(&self, branch: &str, commit: Option<&CommitSha>) {
        *self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((branch.to_owned(), commit.cloned()));
    }

    pub(crate) fn saw_records_head(&self, head: RecordsHead) {
        *self
            .records_head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(head));
    }

    /// What the first reads brought of records commit `commit`, if they found it.
    pub(crate) fn records_objects(&self, commit: &CommitSha) -> Option<Arc<RecordsHead>> {
        self.records_head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|h| &h.commit == commit)
            .cloned()
    }

    pub(crate) fn forget_records(&self) {
        *self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    pub(crate) fn saw_sharing(&self, head: CommitSha, pulls: Vec<Pull>) {
        *self
            .sharing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((head, pulls));
    }

    /// Whether the open PRs on `head` were listed already.
    pub(crate) fn has_sharing(&self, head: &CommitSha) -> bool {
        self.sharing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|(h, _)| h == head)
    }

    /// The open PRs on `head`, if they were listed early, once.
    pub(crate) fn take_sharing(&self, head: &CommitSha) -> Option<Vec<Pull>> {
        let mut seen = self
            .sharing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match seen.take() {
            Some((h, pulls)) if &h == head => Some(pulls),
            other => {
                *seen = other;
                None
            }
        }
    }

    /// `body`, read back with a records commit sent at `sent`.
    pub(crate) fn saw_body_after_commit(
        &self,
        pr: PrNumber,
        body: String,
        sent: tokio::time::Instant,
    ) {
        self.bodies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(pr, (body, sent));
    }

    /// The body a records commit of this delivery read back for `pr`, once, if that commit
    /// was sent less than `fresh` ago: another writer's views come after its own commit,
    /// a conflict and a read after this one; a body held longer may be older than them.
    pub(crate) fn take_body_after_commit(
        &self,
        pr: PrNumber,
        fresh: std::time::Duration,
    ) -> Option<String> {
        self.bodies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&pr)
            .filter(|(_, at)| at.elapsed() < fresh)
            .map(|(body, _)| body)
    }

    pub(crate) fn saw_decisions(&self, found: std::collections::BTreeSet<u32>) {
        *self
            .decisions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(found);
    }

    /// The decision records, if this delivery read them.
    pub(crate) fn decisions(&self) -> Option<std::collections::BTreeSet<u32>> {
        self.decisions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn saw_repository(&self, id: NodeId) {
        *self
            .repository
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(id);
    }

    /// The repository's GraphQL id, if this delivery's first reads brought it.
    pub(crate) fn repository(&self) -> Option<NodeId> {
        self.repository
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn claimed_early(&self, taken: Taken) {
        *self
            .early_claim
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(taken);
    }

    pub(crate) fn replied_early(&self, early: EarlyReply) {
        *self
            .early_reply
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(early);
    }

    /// The early reply claim and +1, once.
    pub(crate) fn take_early_reply(&self) -> Option<EarlyReply> {
        self.early_reply
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The early outcome claim, once: a later generation is always claimed afresh.
    pub(crate) fn take_early_claim(&self) -> Option<Taken> {
        self.early_claim
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Keeps the candidate PR `number`'s record had in the records the first reads
    /// found.
    pub(crate) fn saw_candidate_with_pull(&self, number: PrNumber, candidate: Artifact) {
        *self
            .candidate_with_pull
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((number, candidate));
    }

    /// The candidate PR `number`'s record had when the PR was read: the PR comes with the
    /// first reads or after them, so a look at the record that finds another candidate
    /// means someone rebound it after the PR was read. `None`: not known (no record then,
    /// or the records were not read with the first reads).
    pub(crate) fn candidate_with_pull(&self, number: PrNumber) -> Option<Artifact> {
        self.candidate_with_pull
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|(n, _)| *n == number)
            .map(|(_, c)| c.clone())
    }

    /// The pull request if this delivery read it already.
    /// Keeps the first page of `number`'s commits as the first reads brought it.
    pub(crate) fn saw_commits(
        &self,
        number: PrNumber,
        page: crate::github::pull_commits::CommitPage,
    ) {
        *lock(&self.commits) = Some((number, page));
    }

    /// The accounts GitHub links to `number`'s commits: the first reads' page and the rest,
    /// or every page when the first reads did not bring it.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub fails.
    pub(crate) async fn commit_identities(
        &self,
        api: &Api,
        repo: &RepoName,
        number: PrNumber,
    ) -> Result<Vec<crate::engine::transition::CommitIdentity>, GitHubError> {
        let first = lock(&self.commits)
            .take()
            .filter(|(n, _)| *n == number)
            .map(|(_, page)| page);
        match first {
            Some(page) => crate::github::pull_commits::read_on(api, repo, number, page).await,
            None => crate::github::pull_commits::read_all(api, repo, number).await,
        }
    }

    pub(crate) fn known_pull(&self, number: PrNumber) -> Option<Pull> {
        self.pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&number)
            .cloned()
    }

    /// The pull request as read earlier in this delivery, or read now.
    pub(crate) async fn pull(
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

    /// A pull request read by another query (the first reads), for [`DeliveryCache::pull`] to hand out.
    pub(crate) fn saw_pull(&self, pull: Pull) {
        self.pulls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(pull.number, pull);
    }

    /// The check runs on `head` as another query listed them, for [`DeliveryCache::head_runs`].
    pub(crate) fn saw_runs(&self, head: CommitSha, runs: Vec<CheckRunInfo>) {
        self.early_runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((head, runs));
    }

    /// Lists the check runs on `head` now, for the first [`DeliveryCache::head_runs`] to take.
    pub(crate) async fn list_runs_early(
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
    pub(crate) async fn head_runs(
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
    pub(crate) async fn permission(
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
