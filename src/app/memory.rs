//! What the app remembers between deliveries (records branches, its own check-run ids) and
//! within one delivery (the reads it already made), so that no call is made twice.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::engine::policy::Permission;
use crate::github::rest::{self, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, RepoName};
use crate::records::RecordsCache;

/// Check-run ids remembered at most; the map starts over when full.
pub const MAX_RUN_IDS: usize = 8192;

/// Kept for the life of the process, shared by all deliveries.
#[derive(Default)]
pub struct Memory {
    pub records: RecordsCache,
    /// Our newest check run per repository, head commit and name, as this process created
    /// or listed it: an update needs its id, not a listing.
    runs: Mutex<HashMap<String, OurRun>>,
}

/// A check run of ours: its id and the records commit it was computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OurRun {
    pub id: u64,
    pub records: Option<String>,
}

fn run_key(repo: &RepoName, head: &str, name: &str) -> String {
    format!("{}\n{head}\n{name}", repo.as_str().to_ascii_lowercase())
}

impl Memory {
    pub fn run_of(&self, repo: &RepoName, head: &str, name: &str) -> Option<OurRun> {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        runs.get(&run_key(repo, head, name)).cloned()
    }

    pub fn remember_run(&self, repo: &RepoName, head: &str, name: &str, run: OurRun) {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if runs.len() >= MAX_RUN_IDS {
            runs.clear();
        }
        runs.insert(run_key(repo, head, name), run);
    }
}

/// The reads one delivery made, reused by its later steps.
#[derive(Default)]
pub struct Seen {
    /// The records branch and where its ref was (`None`: absent).
    records: Mutex<Option<(String, Option<CommitSha>)>>,
    pulls: Mutex<HashMap<u64, Pull>>,
    permissions: Mutex<HashMap<String, Permission>>,
}

impl Seen {
    pub fn records_head(&self, branch: &str) -> Option<Option<CommitSha>> {
        let seen = self.records.lock().unwrap_or_else(|p| p.into_inner());
        seen.as_ref()
            .filter(|(b, _)| b == branch)
            .map(|(_, c)| c.clone())
    }

    pub fn saw_records(&self, branch: &str, commit: Option<&CommitSha>) {
        *self.records.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((branch.to_owned(), commit.cloned()));
    }

    pub fn forget_records(&self) {
        *self.records.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The pull request as read earlier in this delivery, or read now.
    pub async fn pull(&self, api: &Api, repo: &RepoName, number: u64) -> Result<Pull, GitHubError> {
        let known = self
            .pulls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&number)
            .cloned();
        if let Some(pull) = known {
            return Ok(pull);
        }
        let pull = rest::get_pull(api, repo, number).await?;
        self.pulls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(number, pull.clone());
        Ok(pull)
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
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .copied();
        if let Some(p) = known {
            return Ok(p);
        }
        let held = rest::permission(api, repo, login).await?;
        self.permissions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, held);
        Ok(held)
    }
}
