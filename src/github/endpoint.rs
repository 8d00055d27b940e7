//! Where GitHub's GraphQL endpoint is, derived from the REST base URL so that GitHub
//! Enterprise Server works.

/// Where GraphQL documents are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A path joined to the REST base like any route (`https://api.github.com/graphql`);
    /// octocrab attaches the token.
    Joined(&'static str),
    /// GHES serves GraphQL beside its REST base, not under it (`https://HOST/api/graphql`
    /// for `https://HOST/api/v3`), so the URL is absolute and the token attached here.
    Absolute(String),
}

impl Endpoint {
    /// The endpoint for a REST base URL: `…/api/v3` becomes `…/api/graphql`; any other
    /// base gets `/graphql` appended, as github.com's does.
    #[must_use]
    pub fn for_api_url(api_url: &str) -> Self {
        let base = api_url.trim_end_matches('/');
        match base.strip_suffix("/api/v3") {
            Some(host) if host.contains("://") => Self::Absolute(format!("{host}/api/graphql")),
            _ => Self::Joined("/graphql"),
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
