//! The REST base URL a command is given, checked before any GitHub client is built: the
//! check `serve` makes of `AUDITLOOP_GITHUB_API_URL`, with its words. Octocrab takes a
//! URL without a scheme or host and panics on its first request.

use super::exit_codes::Usage;

/// The URL without its trailing `/`, or why it is no REST base URL; `flag` names where it
/// came from (`--github-api-url (or GITHUB_API_URL)`).
///
/// # Errors
///
/// A [`Usage`] error when `text` does not parse as a URL or has no scheme or host.
pub(crate) fn checked(flag: &str, text: &str) -> Result<String, Usage> {
    crate::github::endpoint::rest_base(text).map_err(|why| Usage(format!("{flag}: {why}")))
}

/// How the commands that take `--github-api-url` name it in an error.
pub(crate) const FLAG: &str = "--github-api-url (or GITHUB_API_URL)";

#[cfg(test)]
mod tests {
    use super::{checked, FLAG};

    #[test]
    fn a_url_needs_a_scheme_and_a_host() {
        assert_eq!(
            checked(FLAG, "https://ghe.example.com/api/v3/").unwrap(),
            "https://ghe.example.com/api/v3"
        );
        for bad in ["not-a-url", "", "/api/v3", "ghe.example.com:443", "http://"] {
            let words = checked(FLAG, bad).unwrap_err().0;
            assert!(words.starts_with("--github-api-url"), "{bad}: {words}");
        }
    }
}
