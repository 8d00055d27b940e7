//! Newtypes for identifiers that are easy to mix up. Each validates on construction and
//! (de)serializes as its plain string or number, so a malformed id never enters the core.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// A value did not have the form its type requires.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} must look like {expected}, got {got:?}")]
pub struct IdError {
    pub what: &'static str,
    pub expected: &'static str,
    pub(crate) got: String,
}

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident, $what:literal, $expected:literal, $re:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// # Errors
            ///
            /// When `value` does not match the id's pattern.
            pub fn new(value: impl Into<String>) -> Result<Self, IdError> {
                static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new($re).expect("valid id regex"));
                let value = value.into();
                if RE.is_match(&value) {
                    Ok(Self(value))
                } else {
                    Err(IdError { what: $what, expected: $expected, got: value })
                }
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(value: String) -> Result<Self, IdError> {
                Self::new(value)
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, IdError> {
                Self::new(s)
            }
        }
    };
}

string_id!(
    /// An audit record id, `AUD-<n>`.
    AuditId, "an audit id", "AUD-7", r"^AUD-[1-9][0-9]*$"
);
string_id!(
    /// A full 40-hex commit SHA, lowercase.
    CommitSha, "a commit SHA", "40 lowercase hex digits", r"^[0-9a-f]{40}$"
);
string_id!(
    /// A full 40-hex git object SHA (tree or blob), lowercase. Every [`CommitSha`] is one too.
    ObjectSha, "a git object SHA", "40 lowercase hex digits", r"^[0-9a-f]{40}$"
);
string_id!(
    /// A covered task: `#12` (an issue of the repository) or `T-041`.
    TaskId, "a task id", "#12 or T-041", r"^(#[1-9][0-9]*|[A-Za-z][A-Za-z0-9_.-]*-[0-9]+)$"
);
string_id!(
    /// A work unit: `pr:42`, `phase:4`, `milestone:M2`, `epic:x`, `custom:x`, `work-unit:x`.
    WorkUnit, "a work unit", "pr:42, phase:4, milestone:M2, epic:x, custom:x or work-unit:x",
    r"^(pr:[1-9][0-9]*|phase:[^\s]+|milestone:[^\s]+|epic:[^\s]+|custom:[^\s]+|work-unit:[^\s]+)$"
);
string_id!(
    /// A GitHub login (users and `name[bot]` apps).
    Login, "a GitHub login", "octocat or my-app[bot]", r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$"
);
string_id!(
    /// A GraphQL node id (`PR_kwDOAB…`, or the older base64 `MDExOlB1bGxSZXF1ZXN0…`):
    /// opaque, only handed back to GitHub.
    NodeId, "a GraphQL node id", "PR_kwDOABCD", r"^[A-Za-z0-9_=+/-]{1,200}$"
);
string_id!(
    /// A finding id inside one report, `A-NN`.
    FindingId, "a finding id", "A-01", r"^A-[0-9]{2,}$"
);
string_id!(
    /// A limitation id inside one report, `L-NN`.
    LimitationId, "a limitation id", "L-01", r"^L-[0-9]{2,}$"
);
string_id!(
    /// A key that names a finding or limitation across runs.
    FindingKey, "a finding key", "webhook-replay", r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$"
);
string_id!(
    /// A repository's full name, `owner/repo`.
    RepoName, "a repository", "owner/repo", r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
);

impl AuditId {
    #[must_use]
    pub fn from_number(n: u64) -> Self {
        Self(format!("AUD-{n}"))
    }

    /// The number after `AUD-` (one past `u64::MAX` reads as `u64::MAX`: such an id is
    /// never made, only read).
    #[must_use]
    pub(crate) fn number(&self) -> u64 {
        self.0[4..].parse().unwrap_or(u64::MAX)
    }
}

impl CommitSha {
    /// The first seven hex digits, as GitHub shows commits.
    #[must_use]
    pub fn short(&self) -> &str {
        &self.0[..7]
    }
}

impl From<CommitSha> for ObjectSha {
    /// A commit is a git object: no check needed, the forms are the same.
    fn from(sha: CommitSha) -> Self {
        Self(sha.0)
    }
}

impl WorkUnit {
    #[must_use]
    pub fn for_pull(number: PrNumber) -> Self {
        Self(format!("pr:{}", number.0))
    }

    /// `pr:` units may default their covered tasks from the PR body; others need them named.
    #[must_use]
    pub fn is_pull_request(&self) -> bool {
        self.0.starts_with("pr:")
    }
}

impl Login {
    /// Logins compare case-insensitively on GitHub.
    #[must_use]
    pub(crate) fn same_as(&self, other: &Login) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl RepoName {
    #[must_use]
    pub fn owner(&self) -> &str {
        self.0.split_once('/').map(|(o, _)| o).unwrap_or_default()
    }

    #[must_use]
    pub fn name(&self) -> &str {
        self.0.split_once('/').map(|(_, n)| n).unwrap_or_default()
    }
}

/// `commit:<sha>`: the exact frozen candidate an audit binds to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Artifact(CommitSha);

impl Artifact {
    #[must_use]
    pub fn commit(sha: CommitSha) -> Self {
        Self(sha)
    }

    #[must_use]
    pub fn sha(&self) -> &CommitSha {
        &self.0
    }

    /// The first seven hex digits, as GitHub shows commits.
    #[must_use]
    pub fn short(&self) -> &str {
        self.0.short()
    }
}

impl TryFrom<String> for Artifact {
    type Error = IdError;
    fn try_from(value: String) -> Result<Self, IdError> {
        let err = || IdError {
            what: "a candidate artifact",
            expected: "commit:<40 hex>",
            got: value.clone(),
        };
        let sha = value.strip_prefix("commit:").ok_or_else(err)?;
        CommitSha::new(sha).map(Self).map_err(|_| err())
    }
}

impl From<Artifact> for String {
    fn from(value: Artifact) -> String {
        value.to_string()
    }
}

impl fmt::Display for Artifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "commit:{}", self.0)
    }
}

impl std::str::FromStr for Artifact {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, IdError> {
        Self::try_from(s.to_owned())
    }
}

macro_rules! number_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

number_id!(
    /// A pull request number, shown as `#42`.
    PrNumber, "#"
);
number_id!(
    /// An issue number, shown as `#42` (an issue the app files; a PR's conversation is an
    /// issue too, but the app names those by [`PrNumber`]).
    IssueNumber, "#"
);
number_id!(
    /// The id of an issue comment (the `/audit` command's comment, or a reply).
    CommentId, ""
);
number_id!(
    /// The id of a check run.
    CheckRunId, ""
);

/// GitHub's `X-GitHub-Delivery` GUID. Free-form on purpose: it is only compared.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeliveryId(pub String);

impl DeliveryId {
    #[must_use]
    pub fn as_str_lossy(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DeliveryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
