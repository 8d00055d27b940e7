//! The offline commands through the real binary: keygen → sign → validate, and the digest
//! `validate` prints is the library's.

use std::process::Command;

fn auditloop(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .current_dir(dir)
        .env_clear()
        .args(args)
        .output()
        .unwrap()
}

fn fixture() -> String {
    format!(
        "{}/tests/fixtures/reports/valid.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn validate_prints_the_librarys_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = auditloop(dir.path(), &["validate", &fixture()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(fixture()).unwrap();
    let intake = auditloop::engine::report::parse_report(&text).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        intake.digest.as_str()
    );
}

#[test]
fn validate_lists_every_problem_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    v["invocation"]["mode"] = "single_agent_fallback".into();
    v["surprise"] = true.into();
    v["assessment"] = "TBD".into();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let out = auditloop(dir.path(), &["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    for rule in ["invocation-mode", "shape", "placeholder"] {
        assert!(text.contains(rule), "{rule} missing from:\n{text}");
    }
}

#[test]
fn keygen_then_sign_produces_a_report_that_validates_with_the_same_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = auditloop(dir.path(), &["keygen", "--key-id", "ci-auditor-1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entry = String::from_utf8_lossy(&out.stdout);
    assert!(
        entry.contains("[keys.ci-auditor-1]") && entry.contains("public_key = \""),
        "{entry}"
    );
    let key = dir.path().join("ci-auditor-1.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let out = auditloop(
        dir.path(),
        &[
            "sign",
            "--key",
            "ci-auditor-1.key",
            "--key-id",
            "ci-auditor-1",
            "--repository",
            "octo-org/hello",
            &fixture(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let signed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(signed["receipt"]["repository"], "octo-org/hello");
    std::fs::write(dir.path().join("signed.json"), &out.stdout).unwrap();
    let plain = auditloop(dir.path(), &["validate", &fixture()]);
    let with_receipt = auditloop(dir.path(), &["validate", "signed.json"]);
    assert!(with_receipt.status.success());
    let with_receipt = String::from_utf8_lossy(&with_receipt.stdout);
    // The digest first, then what was checked of the receipt.
    let digest = with_receipt.lines().next().unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout).trim(),
        digest,
        "the receipt is not part of the digest"
    );
    assert_eq!(digest, signed["receipt"]["report_digest"]);
    assert!(
        with_receipt.contains("receipt: signature not checked: no --trust-store"),
        "{with_receipt}"
    );
}
