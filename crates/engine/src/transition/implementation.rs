//! How a report's poster is one of the pull request's implementers, and the words the
//! refusals name it and the awaited checks by.

use crate::ids::Artifact;
use crate::md;
use crate::md::Md;

pub(super) fn awaited_words(awaited: &[(String, String)]) -> String {
    awaited
        .iter()
        .map(|(name, stands)| format!("{name}: {stands}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How the poster of a report is one of the pull request's implementers
/// (docs/reference.md#independence-of-the-auditor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Implementation {
    /// It opened the pull request.
    Author,
    /// It pushed this head.
    Pushed(Artifact),
    /// A record written before pushes were kept names it as having set this candidate.
    SetCandidate(Artifact),
    /// GitHub links it as the author of this commit of the pull request.
    CommitAuthor(String),
    /// GitHub links it as the committer of this commit of the pull request.
    CommitCommitter(String),
}

impl Implementation {
    fn short(sha: &str) -> String {
        sha.chars().take(7).collect()
    }

    /// The words the refusal names it by, its SHAs as code spans.
    #[must_use]
    pub(crate) fn to_md(&self) -> Md {
        match self {
            Implementation::Author => Md::lit("author"),
            Implementation::Pushed(a) => md!("pushed {}", Md::code(a.short())),
            Implementation::SetCandidate(a) => md!("set the candidate {}", Md::code(a.short())),
            Implementation::CommitAuthor(sha) => {
                md!("author of commit {}", Md::code(&Self::short(sha)))
            }
            Implementation::CommitCommitter(sha) => {
                md!("committer of commit {}", Md::code(&Self::short(sha)))
            }
        }
    }
}

impl std::fmt::Display for Implementation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.to_md().plain())
    }
}
