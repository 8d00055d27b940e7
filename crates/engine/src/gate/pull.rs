//! The gate of one pull request at its head, from what the server and `auditloop status`
//! both read: the one function either calls, so the two can never judge a PR differently.

use super::evaluate::evaluate;
use super::input::{CheckObservation, GateInput};
use super::result::GateResult;
use crate::closing::closing_issues;
use crate::ids::{CommitSha, RepoName};
use crate::receipt::TrustStore;
use crate::record::Record;
use crate::repo_config::{Assurance, RepoConfig};

/// One PR as the gate sees it.
pub struct PullGate<'a> {
    /// The configuration from the default branch.
    pub config: &'a RepoConfig,
    pub operator_min: Assurance,
    pub repo: &'a RepoName,
    /// The PR's head commit H.
    pub head: &'a CommitSha,
    /// The PR body, for the issues it closes now (condition 3).
    pub body: &'a str,
    /// The PR's record on the records branch: none yet, or why it cannot be read.
    pub record: Result<Option<&'a Record>, String>,
    /// The other checks on H (condition 8).
    pub checks: &'a [CheckObservation],
    /// The trust store in force, to verify a kept receipt again (condition 9).
    pub trust: Option<&'a TrustStore>,
    /// The certifying run's stored report, when authenticated and read (condition 9).
    pub certified_report: Option<&'a str>,
    /// The decision records on the default branch, when read (condition 7).
    pub decisions: Option<&'a std::collections::BTreeSet<u32>>,
}

/// The gate of the PR at its head.
#[must_use]
pub fn pull_gate(pull: &PullGate<'_>) -> GateResult {
    let closing = closing_issues(pull.body, pull.repo);
    let records = pull
        .record
        .clone()
        .map(|r| r.into_iter().collect::<Vec<_>>());
    evaluate(&GateInput {
        config: pull.config,
        operator_min: pull.operator_min,
        head: pull.head,
        records,
        closing_issues: &closing,
        checks: pull.checks,
        trust: pull.trust,
        certified_report: pull.certified_report,
        decisions: pull.decisions,
    })
}
