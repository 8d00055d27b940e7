//! Hardened-assurance receipts (docs/reference.md#receipts): Ed25519 signatures by operator-pinned
//! auditor keys that bind a report to one repository, record, invocation and digest.

pub(crate) mod error;
pub(crate) mod keyfile;
pub(crate) mod reverify;
pub(crate) mod sign;
pub(crate) mod trust;
pub mod verify;

pub use error::ReceiptError;
pub use keyfile::{
    public_key_base64, signing_key_from_pem, signing_key_to_pem, trust_store_entry, KeyFileError,
};
pub use reverify::{check_stored_report, regrade, Downgrade, StoredReportChanged};
pub use sign::sign_report;
pub use trust::{TrustStore, TrustStoreError};
pub use verify::{check_bindings, check_signature, verify, ReceiptContext, VerifiedReceipt};

use serde_json::Value;

use crate::report::digest::canonical_json;
use crate::report::Receipt;

/// The receipt's `role`.
pub(crate) const ROLE_AUDITOR: &str = "auditor";
/// The receipt format version.
pub(crate) const VERSION: u8 = 1;

/// Key ids appear as bare TOML keys (`[keys.ID]`), so they keep to a safe alphabet.
#[must_use]
pub fn is_valid_key_id(key_id: &str) -> bool {
    (1..=100).contains(&key_id.len())
        && key_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The bytes a receipt's signature covers: RFC 8785 of the receipt without `signature`.
#[must_use]
pub fn signing_bytes(receipt: &Receipt) -> Vec<u8> {
    let mut value = serde_json::to_value(receipt).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.remove("signature");
    }
    canonical_json(&value)
}
