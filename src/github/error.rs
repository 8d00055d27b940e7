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
}

impl GitHubError {
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            GitHubError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}
