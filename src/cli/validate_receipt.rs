//! What `auditloop validate` checks of a report's embedded receipt (docs/reference.md#receipts):
//! the digest it signed against the report's normalized digest now, every field it binds,
//! its validity period against the clock, and with a trust store its signature. A report
//! edited after signing fails here, as the app would refuse it. What cannot be checked
//! offline is said, never passed over in silence.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::engine::receipt::verify::MAX_CLOCK_SKEW;
use crate::engine::receipt::{check_bindings, check_signature, ReceiptError, TrustStore};
use crate::engine::report::Intake;

/// The outcome of the receipt checks: problems (`rule: path: message`, as `validate`
/// prints every problem) and notes on what was checked and what was not.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ReceiptCheck {
    pub problems: Vec<String>,
    pub notes: Vec<String>,
}

/// Reads the trust store `--trust-store` names.
///
/// # Errors
///
/// When the file cannot be read or is not a trust store.
pub fn read_trust_store(path: &Path) -> anyhow::Result<TrustStore> {
    // A file that cannot be read, or is no trust store, is the command line's mistake.
    let usage = crate::remote::exit_codes::Usage;
    let text = std::fs::read_to_string(path).map_err(|e| {
        usage(format!(
            "cannot read the trust store {}: {e}",
            path.display()
        ))
    })?;
    Ok(TrustStore::from_toml(&text)
        .map_err(|e| usage(format!("{} is no trust store: {e}", path.display())))?)
}

/// Checks `intake`'s receipt, if it has one (nothing to say when it has none).
#[must_use]
pub fn check_receipt(
    intake: &Intake,
    trust: Option<&TrustStore>,
    now: DateTime<Utc>,
) -> ReceiptCheck {
    let mut check = ReceiptCheck::default();
    let Some(receipt) = &intake.receipt else {
        return check;
    };
    if let Err(e) = check_bindings(receipt, &intake.report) {
        let field = match &e {
            ReceiptError::Binding { field, .. } => *field,
            _ => "",
        };
        check.problems.push(format!(
            "{}: receipt.{field}: {e}; the report was changed after it was signed: sign it again with `auditloop sign`",
            e.rule()
        ));
    }
    if receipt.report_digest != intake.digest.as_str() {
        check.problems.push(format!(
            "receipt-digest: receipt.report_digest: the report was changed after it was signed: the receipt signed {}, but the normalized report's digest is {}; sign the report again with `auditloop sign`",
            receipt.report_digest, intake.digest
        ));
    }
    check
        .problems
        .extend(period(&receipt.issued_at, &receipt.expires_at, now));
    match trust {
        Some(store) => match check_signature(receipt, store) {
            Ok(()) => check.notes.push(format!(
                "receipt: signature verified with key {:?}",
                receipt.key_id
            )),
            Err(e) => {
                let path = match e {
                    ReceiptError::UnknownKey(_) => "receipt.key_id",
                    _ => "receipt.signature",
                };
                check.problems.push(format!("{}: {path}: {e}", e.rule()));
            }
        },
        None => check
            .notes
            .push("receipt: signature not checked: no --trust-store".to_owned()),
    }
    if check.problems.is_empty() {
        check.notes.insert(
            0,
            "receipt: report_digest and every binding match the report".to_owned(),
        );
    }
    check.notes.push(
        "receipt: not checked offline: the repository it is posted to, and whether its receipt_id was used before".to_owned(),
    );
    check
}

/// The validity period against `now`: expired, or issued too far in the future. The
/// timestamps' form was checked with the shape.
fn period(issued_at: &str, expires_at: &str, now: DateTime<Utc>) -> Vec<String> {
    let parse = |s: &str| DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc));
    let (Ok(issued), Ok(expires)) = (parse(issued_at), parse(expires_at)) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    if expires <= issued {
        problems.push(format!(
            "receipt-validity: receipt.expires_at: {}",
            ReceiptError::Validity {
                issued_at: issued_at.to_owned(),
                expires_at: expires_at.to_owned(),
            }
        ));
    } else if now >= expires {
        problems.push(format!(
            "receipt-expired: receipt.expires_at: {}",
            ReceiptError::Expired(expires_at.to_owned())
        ));
    } else if now < issued - MAX_CLOCK_SKEW {
        problems.push(format!(
            "receipt-not-yet-valid: receipt.issued_at: {}",
            ReceiptError::NotYetValid(issued_at.to_owned())
        ));
    }
    problems
}
