//! Every open PR of a repository with a record, as `auditloop status --repo` and the
//! `list_audits` tool show them: the dashboard's rows, each placed by its head's gate
//! evaluated from the same reads. A bounded number of calls, whatever the PR count.

use crate::app::context::Operator;
use crate::app::repository::{self, OpenAudits, OPEN_PULL_PAGES};
use crate::engine::dashboard::PullStatus;
use crate::engine::receipt::TrustStore;
use crate::engine::repo_config::Assurance;
use crate::github::rest;
use crate::github::{Api, GitHubError};
use crate::ids::RepoName;

/// The open audits of a repository now.
#[derive(Debug)]
pub(crate) struct RepoNow {
    pub(crate) pulls: Vec<PullStatus>,
    /// Some record cannot be trusted: the answer cannot tell.
    pub(crate) damaged: bool,
}

/// Reads `repo`'s open PRs and records, and places each audited PR by its gate.
///
/// # Errors
///
/// [`GitHubError`] when a read fails (no access, no such repository, GitHub down).
pub(crate) async fn repo_now(
    api: &Api,
    repo: &RepoName,
    records_branch: Option<&str>,
    operator_min: Assurance,
    trust: Option<&TrustStore>,
) -> Result<RepoNow, GitHubError> {
    let operator = Operator::outside(operator_min, trust);
    let (ctx, pulls) = futures::try_join!(
        repository::outside(api, repo, records_branch, operator),
        rest::open_pulls(api, repo, OPEN_PULL_PAGES),
    )?;
    let rows = OpenAudits::read(&ctx, pulls).await?.rows(&ctx);
    Ok(RepoNow {
        damaged: rows.iter().any(|r| r.state == "damaged"),
        pulls: rows.iter().map(PullStatus::new).collect(),
    })
}
