//! Why a command was not carried out: the user's mistake (answered on the PR), GitHub
//! failing (a 5xx, so the delivery is retried), or a fault of the app itself (a 5xx too,
//! logged). One type, so `?` carries any of them up to the one place that answers.

use crate::engine::md::Md;
use crate::github::GitHubError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandFailure {
    /// What was wrong and how to fix it: one `auditloop: refused` reply, nothing recorded.
    #[error("refused: {}", .0.what.plain())]
    Refused(Refused),
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    /// A broken promise inside the app; nothing was written.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<Refused> for CommandFailure {
    fn from(why: Refused) -> Self {
        CommandFailure::Refused(why)
    }
}

impl From<crate::engine::transition::Refusal> for CommandFailure {
    fn from(why: crate::engine::transition::Refusal) -> Self {
        CommandFailure::Refused(why.into())
    }
}

/// What was wrong and how to put it right, as the reply shows them. An app literal keeps
/// its Markdown; an owned string is untrusted and escaped (see [`Md`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) what: Md,
    pub(crate) fix: Md,
}

impl Refused {
    pub(crate) fn new(what: impl Into<Md>, fix: impl Into<Md>) -> Self {
        Self {
            what: what.into(),
            fix: fix.into(),
        }
    }
}

impl From<crate::engine::transition::Refusal> for Refused {
    fn from(r: crate::engine::transition::Refusal) -> Self {
        Refused {
            what: crate::md!("{} ({})", r.what_md(), Md::code(r.rule())),
            fix: r.fix(),
        }
    }
}
