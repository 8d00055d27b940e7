//! `auditloop validate` of a signed report (docs/reference.md#command-line): a report edited
//! after signing fails with words that say so, the receipt's bindings and period are
//! checked, its signature with `--trust-store`, and what is not checked is said.

use std::path::Path;
use std::process::ExitCode;

use auditloop::cli::validate;
use auditloop::engine::ids::RepoName;
use auditloop::engine::receipt::{sign_report, signing_key_from_pem, trust_store_entry};
use auditloop::engine::report::parse_report;
use chrono::{Duration, Utc};
use ed25519_dalek::SigningKey;
use serde_json::Value;

const EXAMPLE: &str = include_str!("../../examples/report.json");
const KEY: &str = include_str!("../fixtures/keys/openssl_ed25519.pem");

fn key() -> SigningKey {
    signing_key_from_pem(KEY).expect("the fixture key")
}

/// The example report signed with `key`, as `auditloop sign` prints it.
fn signed(key: &SigningKey, issued: chrono::DateTime<Utc>) -> Value {
    let report = parse_report(EXAMPLE).expect("valid").report;
    let repository = RepoName::new("owner/repo").expect("repo");
    let signed = sign_report(
        report,
        key,
        "ci-1",
        &repository,
        issued,
        Duration::hours(1),
        "b1946ac9-0000-4000-8000-000000000001".into(),
    );
    serde_json::to_value(signed).expect("JSON")
}

fn run(dir: &Path, report: &Value, trust_store: Option<&str>) -> (ExitCode, String) {
    let path = dir.join("report.json");
    std::fs::write(&path, serde_json::to_string_pretty(report).expect("JSON")).expect("write");
    let trust_path = trust_store.map(|text| {
        let p = dir.join("trust.toml");
        std::fs::write(&p, text).expect("write");
        p
    });
    let args = validate::ValidateArgs {
        report: path,
        trust_store: trust_path,
    };
    let mut out = Vec::new();
    let code = validate::run(&args, &mut out).expect("runs");
    (code, String::from_utf8(out).expect("UTF-8"))
}

#[test]
fn a_report_edited_after_signing_fails_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut report = signed(&key(), Utc::now());
    let (code, out) = run(dir.path(), &report, None);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");

    report["findings"][0]["blocking"] = Value::Bool(false);
    report["verdict"] = "certified_with_accepted_limitations".into();
    let (code, out) = run(dir.path(), &report, None);
    assert_eq!(code, ExitCode::FAILURE, "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("receipt-digest: receipt.report_digest: "))
        .unwrap_or_else(|| panic!("no receipt-digest problem in {out}"));
    assert!(
        line.contains("the report was changed after it was signed"),
        "{line}"
    );
    assert!(
        line.contains("sign the report again with `auditloop sign`"),
        "{line}"
    );
    assert!(
        !out.lines().any(|l| l.starts_with("sha256:")),
        "no digest as if it passed: {out}"
    );
}

#[test]
fn an_edited_binding_names_the_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut report = signed(&key(), Utc::now());
    report["invocation"]["ref"] = "gha-88123-2".into();
    let (code, out) = run(dir.path(), &report, None);
    assert_eq!(code, ExitCode::FAILURE, "{out}");
    assert!(
        out.lines().any(|l| l.starts_with(
            "receipt-binding: receipt.invocation_ref: receipt invocation_ref is \"gha-88123-1\" but the report says \"gha-88123-2\""
        )),
        "{out}"
    );
}

#[test]
fn an_expired_receipt_fails_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = signed(&key(), Utc::now() - Duration::hours(2));
    let (code, out) = run(dir.path(), &report, None);
    assert_eq!(code, ExitCode::FAILURE, "{out}");
    assert!(
        out.starts_with("receipt-expired: receipt.expires_at: "),
        "{out}"
    );
}

#[test]
fn without_a_trust_store_it_says_the_signature_was_not_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out) = run(dir.path(), &signed(&key(), Utc::now()), None);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("sha256:"), "{out}");
    assert!(
        lines.contains(&"receipt: report_digest and every binding match the report"),
        "{out}"
    );
    assert!(
        lines.contains(&"receipt: signature not checked: no --trust-store"),
        "{out}"
    );
}

#[test]
fn with_a_trust_store_the_signature_is_verified() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = key();
    let entry = trust_store_entry("ci-1", &key.verifying_key());
    let report = signed(&key, Utc::now());
    let (code, out) = run(dir.path(), &report, Some(&entry));
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(
        out.contains("receipt: signature verified with key \"ci-1\""),
        "{out}"
    );

    // Another key under the same id: the signature does not verify.
    let other = SigningKey::from_bytes(&[7; 32]);
    let (code, out) = run(
        dir.path(),
        &report,
        Some(&trust_store_entry("ci-1", &other.verifying_key())),
    );
    assert_eq!(code, ExitCode::FAILURE, "{out}");
    assert!(
        out.starts_with("receipt-signature: receipt.signature: "),
        "{out}"
    );

    // A key the store does not pin.
    let (code, out) = run(
        dir.path(),
        &report,
        Some(&trust_store_entry("other", &key.verifying_key())),
    );
    assert_eq!(code, ExitCode::FAILURE, "{out}");
    assert!(
        out.starts_with("receipt-unknown-key: receipt.key_id: "),
        "{out}"
    );
}

#[test]
fn a_trust_store_that_cannot_be_read_is_a_usage_error_not_an_invalid_report() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("report.json");
    let report = signed(&key(), Utc::now());
    std::fs::write(&path, report.to_string()).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .args(["validate", "--trust-store", "no-such-trust.toml"])
        .arg(&path)
        .current_dir(dir.path())
        .env_clear()
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("cannot read the trust store"), "{said}");
}
