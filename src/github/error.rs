use std::time::Duration;

/// A GitHub call that did not produce a usable answer. Callers match on `Status` for the
/// answers they expect (404 no access, 422 not a fast forward); the rest becomes a 5xx.
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    #[error("{route}: GitHub answered {status}: {message}")]
    Status {
        route: &'static str,
        status: u16,
        message: String,
    },
    #[error("{route}: rate limited for {wait:?}")]
    RateLimited { route: &'static str, wait: Duration },
    #[error("{route}: no answer from GitHub: {message}")]
    Transport {
        route: &'static str,
        message: String,
    },
    #[error("{route}: unexpected answer: {message}")]
    Decode {
        route: &'static str,
        message: String,
    },
    #[error("installation {installation}: cannot get a token: {message}")]
    Token { installation: u64, message: String },
    #[error("GitHub client setup: {0}")]
    Setup(String),
    /// Another handling of the delivery holds the claim on `effect` and showed nothing
    /// before this one's time was up: a redelivery looks again.
    #[error("{effect}: another handling holds its claim and showed no effect in time")]
    Contended { effect: String },
    /// Not sent: the delivery's deadline passed (see [`crate::github::deadline`]).
    #[error("{route}: not sent, the delivery's time is up")]
    Deadline { route: &'static str },
}

impl GitHubError {
    /// Whether the call may have been carried out although no answer says so: no answer,
    /// or a gateway's 5xx that GitHub also gives after the effect.
    #[must_use]
    pub(crate) fn outcome_unknown(&self) -> bool {
        match self {
            GitHubError::Transport { .. } => true,
            GitHubError::Status { status, .. } => (500..=504).contains(status),
            _ => false,
        }
    }

    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            GitHubError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}
