//! Knowing a repository, the one way every reader does: where it is ([`Place`], its
//! default branch guessed in one place), its configuration from the default branch with
//! one policy for an invalid file (kept as the error, so the gate fails saying so and
//! nothing quietly runs on defaults), and its open audits read at one moment
//! ([`OpenAudits`]).

mod open_audits;

use std::sync::Arc;

pub(crate) use open_audits::OpenAudits;

use crate::app::context::memory::Memory;
use crate::app::context::{Ctx, Operator, Origin, Place};
use crate::engine::repo_config::{ConfigError, RepoConfig, CONFIG_PATH};
use crate::github::rest::{self, FileRead};
use crate::github::{Api, GitHubError};
use crate::ids::RepoName;

/// Pages of open pull requests (100 each) a repository's listing reads.
pub(crate) const OPEN_PULL_PAGES: usize = 10;

/// The configuration a read of `.github/auditloop.yml` gives: the defaults when there is no
/// file, the parse error when it is invalid. `None`: the read said the cached one stands.
pub(crate) fn config_of(read: FileRead) -> Option<Result<RepoConfig, ConfigError>> {
    match read {
        FileRead::NotModified => None,
        FileRead::Missing => Some(Ok(RepoConfig::default())),
        FileRead::Found { text, .. } => Some(RepoConfig::from_yaml(&text)),
    }
}

/// Whether the gate reads other checks on a head (condition 8's evidence checks): when it
/// does not, no check run of another source is read.
pub(crate) fn reads_checks(ctx: &Ctx) -> bool {
    ctx.config.as_ref().is_ok_and(|c| {
        !c.evidence.required_checks.is_empty()
            || c.evidence.archetype.is_some()
            || !c.evidence.gates.is_empty()
    })
}

/// `repo` as a reader outside the App knows it (`auditloop status`, the MCP server): its
/// place and configuration, read with any token that can read it; `records_branch`
/// overrides the configured one. Two calls.
///
/// # Errors
///
/// [`GitHubError`] when a read fails (no access, no such repository, GitHub down).
pub(crate) async fn outside(
    api: &Api,
    repo: &RepoName,
    records_branch: Option<&str>,
    operator: Operator,
) -> Result<Ctx, GitHubError> {
    let repository = rest::get_repo(api, repo).await?;
    let place = Place::new(
        api.clone(),
        repo.clone(),
        repository.default_branch.clone(),
        repository.html_url.as_deref(),
    );
    let read = rest::read_file(api, repo, CONFIG_PATH, &place.default_branch, None).await?;
    let mut config = config_of(read).unwrap_or_else(|| Ok(RepoConfig::default()));
    if let (Some(branch), Ok(c)) = (records_branch, &mut config) {
        branch.clone_into(&mut c.records_branch);
    }
    Ok(Ctx::new(
        place,
        &Origin::Status,
        config,
        operator,
        Arc::new(Memory::default()),
    ))
}
