//! Percent-encoding of the names that go into REST paths and query strings. A branch may
//! hold `#`, `%`, `+`, `?` or non-ASCII characters (git allows them); unencoded they would
//! end the path, start a fragment or turn into a space, and the call would go elsewhere.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but RFC 3986's unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One path segment or query value: `/` is encoded too.
#[must_use]
pub(crate) fn component(value: &str) -> String {
    utf8_percent_encode(value, COMPONENT).to_string()
}

/// A path of several segments (a branch `a/b`, a file `dir/x.md`): each segment encoded,
/// the `/` between them kept.
pub(crate) fn path(value: &str) -> String {
    value
        .split('/')
        .map(component)
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_git_allows_are_encoded() {
        assert_eq!(path("audit+records#1"), "audit%2Brecords%231");
        assert_eq!(path("team/rec%ords?x"), "team/rec%25ords%3Fx");
        assert_eq!(path("dette-ã"), "dette-%C3%A3");
        assert_eq!(component("a/b c,d&e=f"), "a%2Fb%20c%2Cd%26e%3Df");
        assert_eq!(path("auditloop-records"), "auditloop-records");
    }
}
