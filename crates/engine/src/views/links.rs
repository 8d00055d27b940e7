//! Where the views link to: the GitHub host, the repository and the records branch.

use crate::ids::{Artifact, AuditId, CommitSha, IssueNumber, RepoName};

/// What every view needs to build links. `html_base` is `https://github.com` or the
/// GitHub Enterprise Server host, without a trailing slash (one is tolerated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewContext {
    pub html_base: String,
    pub repository: RepoName,
    pub records_branch: String,
}

impl ViewContext {
    fn base(&self) -> String {
        format!(
            "{}/{}",
            self.html_base.trim_end_matches('/'),
            self.repository.as_str()
        )
    }

    /// The commit page of a candidate.
    #[must_use]
    pub(crate) fn commit_url(&self, artifact: &Artifact) -> String {
        crate::md::escape::url(&format!("{}/commit/{}", self.base(), artifact.sha()))
    }

    /// `[abc1234](…/commit/…)`: a candidate by its short SHA, linked.
    #[must_use]
    pub(crate) fn commit_link(&self, artifact: &Artifact) -> String {
        format!("[`{}`]({})", artifact.short(), self.commit_url(artifact))
    }

    /// The page of a commit on the records branch (a commit of the same repository).
    #[must_use]
    pub fn records_commit_url(&self, sha: &CommitSha) -> String {
        crate::md::escape::url(&format!("{}/commit/{sha}", self.base()))
    }

    /// An issue (or pull request) of the repository.
    #[must_use]
    pub(crate) fn issue_url(&self, number: IssueNumber) -> String {
        crate::md::escape::url(&format!("{}/issues/{}", self.base(), number.0))
    }

    /// A pull request's page.
    #[must_use]
    pub(crate) fn pull_url(&self, number: crate::ids::PrNumber) -> String {
        crate::md::escape::url(&format!("{}/pull/{}", self.base(), number.0))
    }

    /// `records/AUD-n.json` on the records branch: the audit packet.
    #[must_use]
    pub fn record_url(&self, id: &AuditId) -> String {
        crate::md::escape::url(&format!(
            "{}/blob/{}/{}",
            self.base(),
            crate::md::escape::url_path(&self.records_branch),
            record_path(id)
        ))
    }
}

pub use crate::layout::record_path;
