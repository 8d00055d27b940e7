//! Receipt verification (docs/reference.md#receipts), pure: the caller passes `now` and the receipt-id
//! registry. Checks run in a fixed order (shape, key, signature, bindings, digest, time,
//! reuse) so that a forged receipt is refused for its signature before anything it claims
//! is looked at.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use ed25519_dalek::Signature;

use super::error::ReceiptError;
use super::trust::TrustStore;
use super::{signing_bytes, ROLE_AUDITOR, VERSION};
use crate::ids::RepoName;
use crate::report::{Receipt, Report, ReportDigest};

/// How far a receipt may be issued in the future (clock skew of the signer).
pub const MAX_CLOCK_SKEW: Duration = Duration::minutes(5);

pub struct ReceiptContext<'a> {
    /// The repository the report was submitted to.
    pub repository: &'a RepoName,
    pub now: DateTime<Utc>,
    /// Whether a receipt id was already registered by an accepted report.
    pub receipt_used: &'a dyn Fn(&str) -> bool,
}

/// What a verified receipt establishes, for the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedReceipt {
    pub key_id: String,
    pub receipt_id: String,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Verifies `receipt` for the normalized `report` whose digest is `digest`.
///
/// # Errors
///
/// The [`ReceiptError`] naming why the receipt does not verify.
pub fn verify(
    receipt: &Receipt,
    report: &Report,
    digest: &ReportDigest,
    ctx: &ReceiptContext<'_>,
    store: &TrustStore,
) -> Result<VerifiedReceipt, ReceiptError> {
    if receipt.version != VERSION {
        return Err(ReceiptError::Version(receipt.version));
    }
    if receipt.role != ROLE_AUDITOR {
        return Err(ReceiptError::Role(receipt.role.clone()));
    }
    let issued_at = timestamp("issued_at", &receipt.issued_at)?;
    let expires_at = timestamp("expires_at", &receipt.expires_at)?;
    if expires_at <= issued_at {
        return Err(ReceiptError::Validity {
            issued_at: receipt.issued_at.clone(),
            expires_at: receipt.expires_at.clone(),
        });
    }
    check_signature(receipt, store)?;

    check_bindings(receipt, report)?;
    if !receipt
        .repository
        .eq_ignore_ascii_case(ctx.repository.as_str())
    {
        return Err(ReceiptError::Repository {
            in_receipt: receipt.repository.clone(),
            expected: ctx.repository.to_string(),
        });
    }
    if receipt.report_digest != digest.as_str() {
        return Err(ReceiptError::Digest {
            in_receipt: receipt.report_digest.clone(),
            actual: digest.to_string(),
        });
    }

    if ctx.now >= expires_at {
        return Err(ReceiptError::Expired(receipt.expires_at.clone()));
    }
    if ctx.now < issued_at - MAX_CLOCK_SKEW {
        return Err(ReceiptError::NotYetValid(receipt.issued_at.clone()));
    }
    if (ctx.receipt_used)(&receipt.receipt_id) {
        return Err(ReceiptError::Replayed(receipt.receipt_id.clone()));
    }
    Ok(VerifiedReceipt {
        key_id: receipt.key_id.clone(),
        receipt_id: receipt.receipt_id.clone(),
        issued_at,
        expires_at,
    })
}

/// Checks `receipt`'s signature with its key from `store`: the part of [`verify`] that
/// needs the trust store, which `auditloop validate --trust-store` also runs.
///
/// # Errors
///
/// [`ReceiptError::SignatureEncoding`], [`ReceiptError::UnknownKey`] or
/// [`ReceiptError::BadSignature`].
pub fn check_signature(receipt: &Receipt, store: &TrustStore) -> Result<(), ReceiptError> {
    let signature: [u8; 64] = STANDARD
        .decode(&receipt.signature)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(ReceiptError::SignatureEncoding)?;
    let key = store
        .get(&receipt.key_id)
        .ok_or_else(|| ReceiptError::UnknownKey(receipt.key_id.clone()))?;
    key.verify_strict(&signing_bytes(receipt), &Signature::from_bytes(&signature))
        .map_err(|_| ReceiptError::BadSignature(receipt.key_id.clone()))
}

/// Checks that every field `receipt` binds (audit id, work unit, invocation ref, candidate,
/// covered tasks) equals the normalized `report`'s: the part of [`verify`] that needs no
/// key, repository or clock, which `auditloop validate` also runs.
///
/// # Errors
///
/// [`ReceiptError::Binding`] for the first field that differs.
pub fn check_bindings(receipt: &Receipt, report: &Report) -> Result<(), ReceiptError> {
    let bindings = [
        ("audit_id", &receipt.audit_id, report.audit_id.to_string()),
        (
            "work_unit",
            &receipt.work_unit,
            report.work_unit.to_string(),
        ),
        (
            "invocation_ref",
            &receipt.invocation_ref,
            report.invocation.reference.clone(),
        ),
        (
            "candidate_artifact",
            &receipt.candidate_artifact,
            report.candidate_artifact.to_string(),
        ),
    ];
    for (field, in_receipt, in_report) in bindings {
        if *in_receipt != in_report {
            return Err(ReceiptError::Binding {
                field,
                in_receipt: in_receipt.clone(),
                in_report,
            });
        }
    }
    // The normalized report holds its tasks deduplicated and sorted; so must the receipt.
    let report_tasks: Vec<&str> = report
        .covered_tasks
        .iter()
        .map(crate::ids::TaskId::as_str)
        .collect();
    if receipt
        .covered_tasks
        .iter()
        .map(String::as_str)
        .ne(report_tasks.iter().copied())
    {
        return Err(ReceiptError::Binding {
            field: "covered_tasks",
            in_receipt: receipt.covered_tasks.join(", "),
            in_report: report_tasks.join(", "),
        });
    }
    Ok(())
}

fn timestamp(field: &'static str, value: &str) -> Result<DateTime<Utc>, ReceiptError> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| ReceiptError::Timestamp {
            field,
            value: value.to_owned(),
        })
}
