//! The typed authority of a limitation (docs/reference.md#report-rules): a human's acceptance or a decision
//! record. Whether it HOLDS is decided against the record, not here.

use std::fmt;

use super::document::Limitation;
use crate::ids::Login;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Authority {
    /// `human: LOGIN`: that login accepted the limitation's key with `/audit resolve L-NN`.
    Human(Login),
    /// `D-<n>`: a decision record file `D-<n>*.md` under `decisions_path`.
    Decision(u32),
}

impl Authority {
    /// Parses `human: LOGIN` (one space, as the schema fixes) or `D-<n>` with n ≥ 1.
    pub(crate) fn parse(s: &str) -> Option<Authority> {
        if let Some(login) = s.strip_prefix("human: ") {
            return Login::new(login).ok().map(Authority::Human);
        }
        let n = s.strip_prefix("D-")?;
        if n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        n.parse().ok().map(Authority::Decision)
    }
}

impl fmt::Display for Authority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Authority::Human(login) => write!(f, "human: {login}"),
            Authority::Decision(n) => write!(f, "D-{n}"),
        }
    }
}

impl Limitation {
    /// The typed authority, or `None` when absent (or malformed, which intake refuses).
    pub fn authority_kind(&self) -> Option<Authority> {
        self.authority.as_deref().and_then(Authority::parse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        let cases: &[(&str, Option<&str>)] = &[
            ("human: octocat", Some("human: octocat")),
            ("human: my-bot", Some("human: my-bot")),
            ("D-7", Some("D-7")),
            ("D-4294967295", Some("D-4294967295")),
            ("D-4294967296", None),
            ("D-0", None),
            ("D-07", None),
            ("D-", None),
            ("D-+1", None),
            ("human:octocat", None),
            ("human:  octocat", None),
            ("human: ", None),
            ("human: -bad", None),
            ("octocat", None),
        ];
        for (text, shown) in cases {
            assert_eq!(
                Authority::parse(text).map(|a| a.to_string()).as_deref(),
                *shown,
                "{text}"
            );
        }
        assert_eq!(Authority::parse("D-12"), Some(Authority::Decision(12)));
    }
}
