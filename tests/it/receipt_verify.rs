//! Receipts (docs/reference.md#receipts): signing round-trips, and every check refuses under its name.

use auditloop::engine::ids::RepoName;
use auditloop::engine::receipt::{
    sign_report, signing_bytes, verify, ReceiptContext, ReceiptError, TrustStore,
};
use auditloop::engine::report::{digest, parse_report, Receipt, Report, ReportDigest};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use ed25519_dalek::{Signer, SigningKey};

const VALID: &str = include_str!("../fixtures/reports/valid.json");
const KEY_ID: &str = "ci-auditor-1";

fn key() -> SigningKey {
    SigningKey::from_bytes(&[7; 32])
}

fn store() -> TrustStore {
    TrustStore::with_keys([(KEY_ID.to_owned(), key().verifying_key())])
}

fn repo() -> RepoName {
    RepoName::new("Owner/Repo").expect("repo")
}

fn issued() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
        .expect("time")
        .with_timezone(&Utc)
}

fn report() -> Report {
    parse_report(VALID).expect("valid").report
}

/// The fixture signed for `owner/repo`, split into normalized report and receipt.
fn signed() -> (Report, Receipt) {
    let mut r = sign_report(
        report(),
        &key(),
        KEY_ID,
        &RepoName::new("owner/repo").expect("repo"),
        issued(),
        Duration::hours(1),
        "b1946ac9-1".into(),
    );
    let receipt = r.receipt.take().expect("receipt attached");
    (r, receipt)
}

fn resign(mut receipt: Receipt, with: &SigningKey) -> Receipt {
    receipt.signature = STANDARD.encode(with.sign(&signing_bytes(&receipt)).to_bytes());
    receipt
}

fn check_at(
    receipt: &Receipt,
    report: &Report,
    now: DateTime<Utc>,
    used: &dyn Fn(&str) -> bool,
) -> Result<(), ReceiptError> {
    let repository = repo();
    let ctx = ReceiptContext {
        repository: &repository,
        now,
        receipt_used: used,
    };
    verify(receipt, report, &digest(report), &ctx, &store()).map(|_| ())
}

fn check(receipt: &Receipt, report: &Report) -> Result<(), ReceiptError> {
    check_at(receipt, report, issued() + Duration::minutes(1), &|_| false)
}

fn rule_of(result: Result<(), ReceiptError>) -> &'static str {
    result.err().map_or("accepted", |e| e.rule())
}

#[test]
fn sign_then_verify_round_trips() {
    let (report, receipt) = signed();
    assert_eq!(receipt.report_digest, digest(&report).to_string());
    assert_eq!(receipt.issued_at, "2026-11-29T10:00:00Z");
    assert_eq!(receipt.expires_at, "2026-11-29T11:00:00Z");
    assert_eq!(receipt.covered_tasks, ["#12", "T-041"]);
    let repository = repo();
    let ctx = ReceiptContext {
        repository: &repository,
        now: issued(),
        receipt_used: &|_| false,
    };
    let verified = verify(&receipt, &report, &digest(&report), &ctx, &store()).expect("verifies");
    assert_eq!(
        (verified.key_id.as_str(), verified.receipt_id.as_str()),
        (KEY_ID, "b1946ac9-1")
    );
    assert_eq!(verified.expires_at - verified.issued_at, Duration::hours(1));
}

#[test]
fn signed_report_text_passes_intake_and_verifies() {
    let mut report = report();
    report.assessment = format!("  {}\r\n", report.assessment);
    let signed = sign_report(
        report,
        &key(),
        KEY_ID,
        &repo(),
        issued(),
        Duration::minutes(30),
        "receipt-0001".into(),
    );
    let text = serde_json::to_string_pretty(&signed).expect("JSON");
    let intake = parse_report(&text).expect("signed report is valid");
    let receipt = intake.receipt.expect("receipt");
    let repository = repo();
    let ctx = ReceiptContext {
        repository: &repository,
        now: issued(),
        receipt_used: &|_| false,
    };
    verify(&receipt, &intake.report, &intake.digest, &ctx, &store())
        .expect("verifies after intake");
    assert_eq!(
        intake.digest,
        digest(&parse_report(VALID).expect("valid").report),
        "signing normalizes first"
    );
}

#[test]
fn signature_covers_jcs_of_the_receipt_without_signature() {
    let (_, receipt) = signed();
    let bytes = String::from_utf8(signing_bytes(&receipt)).expect("UTF-8");
    assert!(
        bytes.starts_with("{\"audit_id\":\"AUD-7\",\"candidate_artifact\":"),
        "{bytes}"
    );
    assert!(!bytes.contains("signature"));
    assert!(
        bytes.ends_with("\"version\":1,\"work_unit\":\"pr:42\"}"),
        "{bytes}"
    );
}

#[test]
fn flipping_any_signature_byte_is_refused() {
    let (report, receipt) = signed();
    let raw = STANDARD.decode(&receipt.signature).expect("base64");
    for i in 0..raw.len() {
        for bit in [0x01u8, 0x80] {
            let mut bytes = raw.clone();
            bytes[i] ^= bit;
            let forged = Receipt {
                signature: STANDARD.encode(&bytes),
                ..receipt.clone()
            };
            assert_eq!(
                rule_of(check(&forged, &report)),
                "receipt-signature",
                "byte {i}"
            );
        }
    }
}

#[test]
fn changing_any_signed_field_without_resigning_is_refused() {
    let (report, receipt) = signed();
    type Edit = Box<dyn Fn(&mut Receipt)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("key_id", Box::new(|r| r.key_id = "ci-auditor-2".into())),
        ("receipt_id", Box::new(|r| r.receipt_id.push('x'))),
        (
            "repository",
            Box::new(|r| r.repository = "owner/other".into()),
        ),
        ("audit_id", Box::new(|r| r.audit_id = "AUD-8".into())),
        ("work_unit", Box::new(|r| r.work_unit = "pr:43".into())),
        ("invocation_ref", Box::new(|r| r.invocation_ref.push('x'))),
        (
            "candidate_artifact",
            Box::new(|r| r.candidate_artifact = format!("commit:{}", "a".repeat(40))),
        ),
        (
            "covered_tasks",
            Box::new(|r| r.covered_tasks.push("#13".into())),
        ),
        (
            "report_digest",
            Box::new(|r| r.report_digest = format!("sha256:{}", "0".repeat(64))),
        ),
        (
            "issued_at",
            Box::new(|r| r.issued_at = "2026-11-29T10:00:01Z".into()),
        ),
        (
            "expires_at",
            Box::new(|r| r.expires_at = "2026-11-29T12:00:00Z".into()),
        ),
    ];
    let two = SigningKey::from_bytes(&[9; 32]);
    let store = TrustStore::with_keys([
        (KEY_ID.to_owned(), key().verifying_key()),
        ("ci-auditor-2".to_owned(), two.verifying_key()),
    ]);
    for (field, edit) in edits {
        let mut forged = receipt.clone();
        edit(&mut forged);
        let repository = repo();
        let ctx = ReceiptContext {
            repository: &repository,
            now: issued(),
            receipt_used: &|_| false,
        };
        let result = verify(&forged, &report, &digest(&report), &ctx, &store);
        assert_eq!(
            result.err().map(|e| e.rule()),
            Some("receipt-signature"),
            "{field}"
        );
    }
}

#[test]
fn each_check_refuses_under_its_rule() {
    let (report, receipt) = signed();
    let k = key();
    let with = |edit: &dyn Fn(&mut Receipt)| {
        let mut r = receipt.clone();
        edit(&mut r);
        resign(r, &k)
    };
    let other_key = SigningKey::from_bytes(&[8; 32]);
    let cases: Vec<(&str, Receipt)> = vec![
        ("receipt-version", with(&|r| r.version = 2)),
        ("receipt-role", with(&|r| r.role = "author".into())),
        (
            "receipt-timestamp",
            with(&|r| r.issued_at = "2026-11-29 10:00".into()),
        ),
        (
            "receipt-timestamp",
            with(&|r| r.expires_at = "tomorrow".into()),
        ),
        (
            "receipt-validity",
            with(&|r| r.expires_at = r.issued_at.clone()),
        ),
        (
            "receipt-signature-encoding",
            Receipt {
                signature: "not base64!".into(),
                ..receipt.clone()
            },
        ),
        (
            "receipt-signature-encoding",
            Receipt {
                signature: STANDARD.encode([0u8; 63]),
                ..receipt.clone()
            },
        ),
        (
            "receipt-unknown-key",
            with(&|r| r.key_id = "someone-else".into()),
        ),
        ("receipt-signature", resign(receipt.clone(), &other_key)),
        ("receipt-binding", with(&|r| r.audit_id = "AUD-8".into())),
        ("receipt-binding", with(&|r| r.work_unit = "pr:43".into())),
        (
            "receipt-binding",
            with(&|r| r.invocation_ref = "ci-run-1".into()),
        ),
        (
            "receipt-binding",
            with(&|r| r.candidate_artifact = format!("commit:{}", "a".repeat(40))),
        ),
        (
            "receipt-binding",
            with(&|r| r.covered_tasks = vec!["#12".into()]),
        ),
        ("receipt-binding", with(&|r| r.covered_tasks.reverse())),
        (
            "receipt-binding",
            with(&|r| r.covered_tasks.push("#12".into())),
        ),
        (
            "receipt-repository",
            with(&|r| r.repository = "owner/other".into()),
        ),
        (
            "receipt-digest",
            with(&|r| r.report_digest = format!("sha256:{}", "0".repeat(64))),
        ),
        ("accepted", with(&|r| r.repository = "OWNER/repo".into())),
    ];
    for (rule, forged) in cases {
        assert_eq!(rule_of(check(&forged, &report)), rule, "{forged:?}");
    }
}

#[test]
fn a_report_changed_after_signing_is_refused() {
    let (mut report, receipt) = signed();
    report.assessment.push_str(" Edited.");
    assert_eq!(rule_of(check(&receipt, &report)), "receipt-digest");
    let (mut report, receipt) = signed();
    report.invocation.reference = "ci-run-other".into();
    assert_eq!(rule_of(check(&receipt, &report)), "receipt-binding");
}

#[test]
fn validity_window_and_reuse() {
    let (report, receipt) = signed();
    let never = |_: &str| false;
    let cases: &[(Duration, &str)] = &[
        (Duration::minutes(-5), "accepted"),
        (
            Duration::minutes(-5) - Duration::seconds(1),
            "receipt-not-yet-valid",
        ),
        (Duration::zero(), "accepted"),
        (Duration::minutes(59) + Duration::seconds(59), "accepted"),
        (Duration::hours(1), "receipt-expired"),
        (Duration::days(3), "receipt-expired"),
    ];
    for (offset, rule) in cases {
        assert_eq!(
            rule_of(check_at(&receipt, &report, issued() + *offset, &never)),
            *rule,
            "{offset}"
        );
    }
    let used = |id: &str| id == "b1946ac9-1";
    assert_eq!(
        rule_of(check_at(&receipt, &report, issued(), &used)),
        "receipt-replayed"
    );
}

#[test]
fn digest_passed_in_is_the_one_compared() {
    let (report, receipt) = signed();
    let repository = repo();
    let ctx = ReceiptContext {
        repository: &repository,
        now: issued(),
        receipt_used: &|_| false,
    };
    let wrong = ReportDigest::of_bytes(b"other");
    let err = verify(&receipt, &report, &wrong, &ctx, &store()).expect_err("refused");
    assert_eq!(err.rule(), "receipt-digest");
    assert!(err.to_string().contains(wrong.as_str()), "{err}");
}
