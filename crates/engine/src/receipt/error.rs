//! Why a receipt was refused: one variant per check, in the order they run.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReceiptError {
    #[error("receipt version must be 1, got {0}")]
    Version(u8),
    #[error("receipt role must be \"auditor\", got {0:?}")]
    Role(String),
    #[error("receipt {field} {value:?} is not an RFC 3339 date-time")]
    Timestamp { field: &'static str, value: String },
    #[error("receipt expires_at ({expires_at}) must be after issued_at ({issued_at})")]
    Validity {
        issued_at: String,
        expires_at: String,
    },
    #[error("receipt signature must be standard base64 of 64 bytes")]
    SignatureEncoding,
    #[error("receipt key {0:?} is not in the operator's trust store; the operator pins auditor keys in AUDITLOOP_TRUST_STORE")]
    UnknownKey(String),
    #[error("receipt signature does not verify with key {0:?}; sign the normalized report again with `auditloop sign`")]
    BadSignature(String),
    #[error("receipt {field} is {in_receipt:?} but the report says {in_report:?}")]
    Binding {
        field: &'static str,
        in_receipt: String,
        in_report: String,
    },
    #[error("receipt is for repository {in_receipt:?}, not {expected:?}")]
    Repository {
        in_receipt: String,
        expected: String,
    },
    #[error("receipt report_digest {in_receipt} does not match the normalized report's {actual}")]
    Digest { in_receipt: String, actual: String },
    #[error("receipt expired at {0}; sign the report again")]
    Expired(String),
    #[error("receipt is issued at {0}, more than 5 minutes from now; check the signer's clock")]
    NotYetValid(String),
    #[error("receipt {0:?} was already used; every report needs a fresh receipt")]
    Replayed(String),
}

impl ReceiptError {
    /// Stable rule name, as refusals cite it.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        match self {
            ReceiptError::Version(_) => "receipt-version",
            ReceiptError::Role(_) => "receipt-role",
            ReceiptError::Timestamp { .. } => "receipt-timestamp",
            ReceiptError::Validity { .. } => "receipt-validity",
            ReceiptError::SignatureEncoding => "receipt-signature-encoding",
            ReceiptError::UnknownKey(_) => "receipt-unknown-key",
            ReceiptError::BadSignature(_) => "receipt-signature",
            ReceiptError::Binding { .. } => "receipt-binding",
            ReceiptError::Repository { .. } => "receipt-repository",
            ReceiptError::Digest { .. } => "receipt-digest",
            ReceiptError::Expired(_) => "receipt-expired",
            ReceiptError::NotYetValid(_) => "receipt-not-yet-valid",
            ReceiptError::Replayed(_) => "receipt-replayed",
        }
    }
}
