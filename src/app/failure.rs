//! Why a command was not carried out: the user's mistake (answered on the PR), GitHub
//! failing (a 5xx, so the delivery is retried), or a fault of the app itself (a 5xx too,
//! logged). One type, so `?` carries any of them up to the one place that answers.

use crate::app::reply::Refused;
use crate::github::GitHubError;

#[derive(Debug, thiserror::Error)]
pub enum CommandFailure {
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
