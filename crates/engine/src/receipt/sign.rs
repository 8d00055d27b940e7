//! The producing side of receipts, used by `auditloop sign`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use ed25519_dalek::{Signer, SigningKey};

use super::{signing_bytes, ROLE_AUDITOR, VERSION};
use crate::ids::RepoName;
use crate::report::{digest, normalize_report, Receipt, Report};

/// Normalizes `report` and attaches a receipt binding it to `repository`, valid from
/// `issued_at` for `ttl`, signed with `key` under `key_id`.
pub fn sign_report(
    report: Report,
    key: &SigningKey,
    key_id: &str,
    repository: &RepoName,
    issued_at: DateTime<Utc>,
    ttl: Duration,
    receipt_id: String,
) -> Report {
    let mut report = normalize_report(report);
    let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let mut receipt = Receipt {
        version: VERSION,
        key_id: key_id.to_owned(),
        receipt_id,
        role: ROLE_AUDITOR.to_owned(),
        repository: repository.to_string(),
        audit_id: report.audit_id.to_string(),
        work_unit: report.work_unit.to_string(),
        invocation_ref: report.invocation.reference.clone(),
        candidate_artifact: report.candidate_artifact.to_string(),
        covered_tasks: report
            .covered_tasks
            .iter()
            .map(ToString::to_string)
            .collect(),
        report_digest: digest(&report).to_string(),
        issued_at: stamp(issued_at),
        expires_at: stamp(issued_at + ttl),
        signature: String::new(),
    };
    let signature = key.sign(&signing_bytes(&receipt));
    receipt.signature = STANDARD.encode(signature.to_bytes());
    report.receipt = Some(receipt);
    report
}
