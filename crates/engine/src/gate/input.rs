//! What the gate reads: the configuration, the head commit, the record(s) and the checks.

use crate::ids::{CommitSha, TaskId};
use crate::receipt::TrustStore;
use crate::record::Record;
use crate::repo_config::{Assurance, RepoConfig};

pub struct GateInput<'a> {
    pub config: &'a RepoConfig,
    pub operator_min: Assurance,
    pub head: &'a CommitSha,
    /// The record(s) found for this PR's work unit; an Err is a structural failure (chain
    /// broken, records branch missing and not recoverable …) with a maintainer-readable reason.
    pub records: Result<Vec<&'a Record>, String>,
    /// Same-repository issues the PR body closes now (closing keywords), as `TaskIds` `#N`.
    pub closing_issues: &'a [TaskId],
    /// The latest run of each check name on `head` (excluding our own check).
    pub checks: &'a [CheckObservation],
    /// The trust store in force, against which an `authenticated` certification's kept
    /// receipt is verified again (condition 9); `None`: the recorded grade stands.
    pub trust: Option<&'a TrustStore>,
    /// The certifying run's stored report as the records branch holds it now, when the
    /// run was authenticated and the file was read: its digest must be the one signed.
    pub certified_report: Option<&'a str>,
    /// The `D-<n>` decision records under `decisions_path` on the default branch now,
    /// when read (condition 7); `None`: not read, a cited one is taken as present.
    pub decisions: Option<&'a std::collections::BTreeSet<u32>>,
}

/// One check run on the head commit, as GitHub reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckObservation {
    pub name: String,
    pub status: CheckStatus,
    /// GitHub's conclusion word once completed: `success`, `failure`, `neutral`, …
    pub conclusion: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckStatus {
    Queued,
    InProgress,
    Completed,
}

impl CheckObservation {
    #[must_use]
    pub(crate) fn succeeded(&self) -> bool {
        self.status == CheckStatus::Completed && self.conclusion.as_deref() == Some("success")
    }

    #[must_use]
    pub(crate) fn running(&self) -> bool {
        self.status != CheckStatus::Completed
    }
}
