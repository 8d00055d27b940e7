//! A client authenticated with a plain token (`GITHUB_TOKEN` in GitHub Actions), for the
//! auditor-side commands `packet` and `post`. Same relative routes and retry policy as the
//! App's client, so the same commands work on GitHub Enterprise Server.

use std::sync::Arc;
use std::time::Duration;

use octocrab::Octocrab;
use secrecy::{ExposeSecret, SecretString};

use crate::github::api::Api;
use crate::github::endpoint::Target;
use crate::github::error::GitHubError;
use crate::github::retry::RetryPolicy;
use crate::metrics::Metrics;

/// A client that calls GitHub with a plain token (an Actions `GITHUB_TOKEN`), for
/// `packet` and `post`.
///
/// # Errors
///
/// [`GitHubError::Setup`] when the API URL or the HTTP client cannot be set up.
pub(crate) fn token_api(
    api_url: &str,
    token: &SecretString,
    timeout: Duration,
) -> Result<Api, GitHubError> {
    let octo = Octocrab::builder()
        .base_uri(api_url)
        .map_err(|e| GitHubError::Setup(format!("bad GitHub API URL: {e}")))?
        .personal_token(token.expose_secret().to_owned())
        .set_connect_timeout(Some(timeout))
        .set_read_timeout(Some(timeout))
        .set_write_timeout(Some(timeout))
        .build()
        .map_err(|e| GitHubError::Setup(e.to_string()))?;
    Ok(Api::new(
        Arc::new(octo),
        None,
        Metrics::new(),
        RetryPolicy::default(),
        Arc::new(Target::for_api_url(api_url)),
    ))
}
