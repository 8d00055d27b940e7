//! Where GitHub's GraphQL endpoint is, derived from the REST base URL so that GitHub
//! Enterprise Server works.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use octocrab::Octocrab;

use crate::github::error::GitHubError;

/// `text` as a REST base URL without its trailing `/`, or what is wrong with it (for the
/// caller to prefix with where it came from). Octocrab takes a URL without a scheme or host
/// and panics on its first request, so every command checks it first, with these words.
pub(crate) fn rest_base(text: &str) -> Result<String, String> {
    let url = text.trim();
    let parsed: http::Uri = url.parse().map_err(|_| format!("{url:?} is not a URL"))?;
    if parsed.scheme().is_none() || parsed.host().is_none() {
        return Err(format!(
            "{url:?} needs a scheme and host, e.g. https://ghe.example.com/api/v3"
        ));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// The path GraphQL is served at, under whichever base.
pub(crate) const GRAPHQL_PATH: &str = "/graphql";

/// Where GraphQL documents are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// A path joined to the REST base like any route (`https://api.github.com/graphql`);
    /// octocrab attaches the token.
    Joined(&'static str),
    /// GHES serves GraphQL beside its REST base, not under it (`https://HOST/api/graphql`
    /// for `https://HOST/api/v3`). octocrab joins every path under its base, absolute ones
    /// too, so these go through a client of their own whose base is `https://HOST/api`,
    /// with the installation token attached by hand.
    Absolute(String),
}

/// The endpoint, and for GHES the client that reaches it (built on first use).
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) endpoint: Endpoint,
    beside: OnceLock<Arc<Octocrab>>,
}

impl Target {
    #[must_use]
    pub(crate) fn for_api_url(api_url: &str) -> Self {
        Self {
            endpoint: Endpoint::for_api_url(api_url),
            beside: OnceLock::new(),
        }
    }

    /// The client for an `Absolute` endpoint: its base is the URL without
    /// [`GRAPHQL_PATH`], so that the path joined to it lands on the URL.
    pub(crate) fn beside(&self, url: &str) -> Result<Arc<Octocrab>, GitHubError> {
        if let Some(client) = self.beside.get() {
            return Ok(client.clone());
        }
        let base = url.strip_suffix(GRAPHQL_PATH).unwrap_or(url);
        let timeout = Some(Duration::from_secs(30));
        let client = Octocrab::builder()
            .base_uri(base)
            .map_err(|e| GitHubError::Setup(format!("bad GitHub GraphQL URL: {e}")))?
            .set_connect_timeout(timeout)
            .set_read_timeout(timeout)
            .set_write_timeout(timeout)
            .build()
            .map_err(|e| GitHubError::Setup(e.to_string()))?;
        Ok(self.beside.get_or_init(|| Arc::new(client)).clone())
    }
}

impl Endpoint {
    /// The endpoint for a REST base URL: `…/api/v3` becomes `…/api/graphql`; any other
    /// base gets `/graphql` appended, as github.com's does.
    #[must_use]
    pub(crate) fn for_api_url(api_url: &str) -> Self {
        let base = api_url.trim_end_matches('/');
        match base.strip_suffix("/api/v3") {
            Some(host) if host.contains("://") => {
                Self::Absolute(format!("{host}/api{GRAPHQL_PATH}"))
            }
            _ => Self::Joined(GRAPHQL_PATH),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_follows_the_rest_base() {
        let cases = [
            ("https://api.github.com", Endpoint::Joined("/graphql")),
            ("https://api.github.com/", Endpoint::Joined("/graphql")),
            ("http://127.0.0.1:8080", Endpoint::Joined("/graphql")),
            (
                "https://ghe.example.com/api/v3",
                Endpoint::Absolute("https://ghe.example.com/api/graphql".into()),
            ),
            (
                "https://ghe.example.com/api/v3/",
                Endpoint::Absolute("https://ghe.example.com/api/graphql".into()),
            ),
            (
                "https://proxy.example.com/github",
                Endpoint::Joined("/graphql"),
            ),
        ];
        for (base, want) in cases {
            assert_eq!(Endpoint::for_api_url(base), want, "{base}");
        }
    }
}
