//! A kept receipt verified again whenever the gate is evaluated (revalidated
//! at persistence and at closeout): the key must still be in the trust store in force, the
//! signature must hold, and the receipt must bind the record and run as recorded. Expiry
//! and replay were settled when the report was accepted and are not asked again. And the
//! stored report of any run the gate relies on, whatever its grade, must still have the
//! digest the run recorded.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::Signature;

use super::signing_bytes;
use super::trust::TrustStore;
use crate::record::{Grade, Record, ReportRun};
use crate::report::parse_report;

/// Why a run recorded `authenticated` no longer counts so.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Downgrade {
    #[error("its key `{0}` is no longer in the trust store")]
    KeyRemoved(String),
    #[error("its receipt's signature no longer verifies with key `{0}`")]
    BadSignature(String),
    #[error("its receipt signed the report digest {signed}, but the run records {stored}")]
    Digest { signed: String, stored: String },
    #[error("its stored report {path} no longer has the digest its receipt signed ({signed}; now {now})")]
    StoredReport {
        path: String,
        signed: String,
        now: String,
    },
    #[error("its receipt names {field} `{in_receipt}`, but the run records `{in_run}`")]
    Binding {
        field: &'static str,
        in_receipt: String,
        in_run: String,
    },
}

/// A stored report that no longer has the digest its run recorded: whatever the run's
/// grade, what the certification rests on was changed outside the app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "its stored report {path} no longer has the digest the run recorded ({recorded}; now {now})"
)]
pub struct StoredReportChanged {
    pub(crate) path: String,
    pub(crate) recorded: String,
    pub(crate) now: String,
}

/// Checks `run`'s stored report, as the records branch holds it now (`stored`, when it was
/// read), against the digest the run recorded.
///
/// # Errors
///
/// [`StoredReportChanged`] when the text no longer parses to that digest.
pub fn check_stored_report(
    run: &ReportRun,
    stored: Option<&str>,
) -> Result<(), StoredReportChanged> {
    let Some(now) = stored.map(digest_of) else {
        return Ok(());
    };
    if now == run.report_digest {
        return Ok(());
    }
    Err(StoredReportChanged {
        path: run.report.clone(),
        recorded: run.report_digest.clone(),
        now,
    })
}

fn digest_of(text: &str) -> String {
    parse_report(text).map_or_else(
        |_| "a report that no longer parses".to_owned(),
        |intake| intake.digest.to_string(),
    )
}

/// The grade `run` of `record` counts at now: its recorded grade, or `session_reported`
/// with the reason when its kept receipt no longer verifies, or no longer binds what the
/// record holds (audit id, work unit, candidate, tasks, invocation, report digest).
/// `stored`: the run's stored report as the records branch holds it now, when it was read.
/// A run recorded before receipts were kept has nothing to verify again and keeps its grade.
///
/// # Errors
///
/// The [`Downgrade`] saying why an `authenticated` run counts as `session_reported`.
pub fn regrade(
    record: &Record,
    run: &ReportRun,
    trust: &TrustStore,
    stored: Option<&str>,
) -> Result<Grade, Downgrade> {
    let (Grade::Authenticated, Some(receipt)) = (run.grade, &run.receipt) else {
        return Ok(run.grade);
    };
    let key = trust
        .get(&receipt.key_id)
        .ok_or_else(|| Downgrade::KeyRemoved(receipt.key_id.clone()))?;
    let signature: Option<[u8; 64]> = STANDARD
        .decode(&receipt.signature)
        .ok()
        .and_then(|b| b.try_into().ok());
    let verified = signature.is_some_and(|s| {
        key.verify_strict(&signing_bytes(receipt), &Signature::from_bytes(&s))
            .is_ok()
    });
    if !verified {
        return Err(Downgrade::BadSignature(receipt.key_id.clone()));
    }
    if receipt.report_digest != run.report_digest {
        return Err(Downgrade::Digest {
            signed: receipt.report_digest.clone(),
            stored: run.report_digest.clone(),
        });
    }
    let sorted = |tasks: Vec<String>| {
        let mut tasks = tasks;
        tasks.sort();
        tasks.join(", ")
    };
    let bindings = [
        ("audit_id", receipt.audit_id.clone(), record.id.to_string()),
        (
            "work_unit",
            receipt.work_unit.clone(),
            record.work_unit.to_string(),
        ),
        (
            "invocation_ref",
            receipt.invocation_ref.clone(),
            run.invocation_ref.clone(),
        ),
        (
            "candidate_artifact",
            receipt.candidate_artifact.clone(),
            run.candidate_artifact.to_string(),
        ),
        (
            "covered_tasks",
            sorted(receipt.covered_tasks.clone()),
            sorted(run.covered_tasks.iter().map(ToString::to_string).collect()),
        ),
    ];
    for (field, in_receipt, in_run) in bindings {
        if in_receipt != in_run {
            return Err(Downgrade::Binding {
                field,
                in_receipt,
                in_run,
            });
        }
    }
    if let Err(changed) = check_stored_report(run, stored) {
        return Err(Downgrade::StoredReport {
            path: changed.path,
            signed: receipt.report_digest.clone(),
            now: changed.now,
        });
    }
    Ok(Grade::Authenticated)
}
