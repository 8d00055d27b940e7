//! The canonical bytes (RFC 8785) of a normalized report and its `sha256:` digest (docs/reference.md#normalization-and-digest).

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::document::Report;

/// `sha256:` + 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReportDigest(String);

impl ReportDigest {
    /// The digest of arbitrary canonical bytes.
    #[must_use]
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Self(format!("sha256:{}", hex::encode(Sha256::digest(bytes))))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ReportDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// RFC 8785 bytes of `report` as given: pass a normalized report for its digest (docs/reference.md#normalization-and-digest).
#[must_use]
pub fn canonical_bytes(report: &Report) -> Vec<u8> {
    canonical_json(report)
}

/// RFC 8785 bytes of any serializable value of ours. Our types have string keys and no
/// floats, the only things the canonicalizer refuses, so failure is a programming error.
pub(crate) fn canonical_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json_canonicalizer::to_vec(value).expect("string-keyed, float-free types serialize")
}

/// The digest of a normalized report (docs/reference.md#normalization-and-digest).
#[must_use]
pub fn digest(report: &Report) -> ReportDigest {
    ReportDigest::of_bytes(&canonical_bytes(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_of_empty_input_is_the_known_sha256() {
        assert_eq!(
            ReportDigest::of_bytes(b"").as_str(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            serde_json::to_string(&ReportDigest::of_bytes(b""))
                .ok()
                .as_deref(),
            Some("\"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"")
        );
    }
}
