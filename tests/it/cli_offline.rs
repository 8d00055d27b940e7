//! The offline commands `keygen`, `sign` and `validate`, driven through their `run`.

use std::process::ExitCode;

use auditloop::cli::{keygen, sign, validate};
use auditloop::engine::ids::RepoName;
use auditloop::engine::receipt::{signing_key_from_pem, verify, ReceiptContext, TrustStore};
use auditloop::engine::report::{digest, parse_report};
use chrono::{Duration, Utc};

const VALID: &str = include_str!("../fixtures/reports/valid.json");

fn run_validate(path: &std::path::Path) -> (ExitCode, String) {
    let mut out = Vec::new();
    let code = validate::run(
        &validate::ValidateArgs {
            report: path.into(),
            trust_store: None,
        },
        &mut out,
    )
    .expect("runs");
    (code, String::from_utf8(out).expect("UTF-8"))
}

#[test]
fn validate_prints_the_engine_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    std::fs::write(&path, VALID).expect("write");
    let (code, out) = run_validate(&path);
    assert_eq!(code, ExitCode::SUCCESS);
    let expected = digest(&parse_report(VALID).expect("valid").report);
    assert_eq!(out, format!("{expected}\n"));
}

#[test]
fn validate_prints_every_problem_and_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    let bad = VALID.replace(
        "\"assessment\": \"",
        "\"extra\": 1, \"assessment\": \"TODO\", \"x\": \"",
    );
    std::fs::write(&path, bad).expect("write");
    let (code, out) = run_validate(&path);
    assert_eq!(code, ExitCode::FAILURE);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"shape: extra: unknown field"), "{out}");
    assert!(lines.contains(&"shape: x: unknown field"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("placeholder: assessment: ")),
        "{out}"
    );
}

#[test]
fn validate_reports_a_missing_file_as_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut out = Vec::new();
    assert!(validate::run(
        &validate::ValidateArgs {
            report: dir.path().join("nope.json"),
            trust_store: None,
        },
        &mut out
    )
    .is_err());
}

#[test]
fn keygen_writes_a_private_pem_and_prints_the_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("auditor.key");
    let args = keygen::KeygenArgs {
        key_id: "ci-auditor-1".into(),
        out: Some(path.clone()),
    };
    let mut out = Vec::new();
    assert_eq!(
        keygen::run(&args, &mut out).expect("runs"),
        ExitCode::SUCCESS
    );
    let printed = String::from_utf8(out).expect("UTF-8");

    let pem = std::fs::read_to_string(&path).expect("key written");
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem}");
    let key = signing_key_from_pem(&pem).expect("readable");
    let entry_start = printed.find("[keys.ci-auditor-1]").expect("entry printed");
    let store = TrustStore::from_toml(&printed[entry_start..]).expect("entry is a trust store");
    assert_eq!(store.get("ci-auditor-1"), Some(&key.verifying_key()));

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Never overwrite a key.
    assert!(keygen::run(&args, &mut Vec::new()).is_err());
    assert_eq!(std::fs::read_to_string(&path).expect("still there"), pem);
}

#[test]
fn keygen_refuses_a_key_id_that_breaks_the_trust_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    for key_id in ["", "a b", "a.b", "x]\n[keys.y"] {
        let args = keygen::KeygenArgs {
            key_id: key_id.into(),
            out: Some(dir.path().join("k")),
        };
        assert!(keygen::run(&args, &mut Vec::new()).is_err(), "{key_id:?}");
        assert!(!dir.path().join("k").exists());
    }
}

#[test]
fn sign_output_verifies_and_validates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key_path = dir.path().join("k.key");
    keygen::run(
        &keygen::KeygenArgs {
            key_id: "ci-1".into(),
            out: Some(key_path.clone()),
        },
        &mut Vec::new(),
    )
    .expect("keygen");
    let report_path = dir.path().join("report.json");
    std::fs::write(&report_path, VALID).expect("write");
    let args = sign::SignArgs {
        key: key_path.clone(),
        key_id: "ci-1".into(),
        repository: RepoName::new("owner/repo").expect("repo"),
        ttl: sign::parse_ttl("30m").expect("ttl"),
        report: report_path,
    };
    let mut out = Vec::new();
    let before = Utc::now();
    assert_eq!(sign::run(&args, &mut out).expect("runs"), ExitCode::SUCCESS);
    let text = String::from_utf8(out).expect("UTF-8");

    let intake = parse_report(&text).expect("signed report passes intake");
    let receipt = intake.receipt.expect("receipt");
    assert_eq!(
        uuid::Uuid::parse_str(&receipt.receipt_id)
            .map(|u| u.get_version_num())
            .ok(),
        Some(4)
    );
    let key = signing_key_from_pem(&std::fs::read_to_string(&key_path).expect("key")).expect("key");
    let store = TrustStore::with_keys([("ci-1".to_owned(), key.verifying_key())]);
    let repository = RepoName::new("owner/repo").expect("repo");
    let ctx = ReceiptContext {
        repository: &repository,
        now: before + Duration::minutes(29),
        receipt_used: &|_| false,
    };
    verify(&receipt, &intake.report, &intake.digest, &ctx, &store).expect("verifies");
    let late = ReceiptContext {
        now: before + Duration::minutes(31),
        ..ctx
    };
    assert_eq!(
        verify(&receipt, &intake.report, &intake.digest, &late, &store)
            .err()
            .map(|e| e.rule()),
        Some("receipt-expired")
    );

    // `validate` of the signed file prints the same digest as of the unsigned one, then
    // what it checked of the receipt.
    let signed_path = dir.path().join("signed.json");
    std::fs::write(&signed_path, &text).expect("write");
    let (code, printed) = run_validate(&signed_path);
    assert_eq!(code, ExitCode::SUCCESS, "{printed}");
    assert_eq!(
        printed.lines().next(),
        Some(digest(&parse_report(VALID).expect("valid").report).as_str())
    );
    assert!(
        printed.contains("signature not checked: no --trust-store"),
        "{printed}"
    );
}

#[test]
fn sign_refuses_an_invalid_report_with_its_problems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key_path = dir.path().join("k.key");
    std::fs::write(
        &key_path,
        include_str!("../fixtures/keys/openssl_ed25519.pem"),
    )
    .expect("write");
    let report_path = dir.path().join("report.json");
    std::fs::write(
        &report_path,
        VALID.replace("host_subagent", "single_agent_fallback"),
    )
    .expect("write");
    let args = sign::SignArgs {
        key: key_path,
        key_id: "ci-1".into(),
        repository: RepoName::new("owner/repo").expect("repo"),
        ttl: Duration::hours(1),
        report: report_path,
    };
    let mut out = Vec::new();
    assert_eq!(sign::run(&args, &mut out).expect("runs"), ExitCode::FAILURE);
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.starts_with("invocation-mode: invocation.mode: "),
        "{text}"
    );
}

#[test]
fn sign_refuses_a_file_that_is_not_a_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key_path = dir.path().join("k.key");
    std::fs::write(&key_path, "nothing").expect("write");
    let report_path = dir.path().join("report.json");
    std::fs::write(&report_path, VALID).expect("write");
    let args = sign::SignArgs {
        key: key_path,
        key_id: "ci-1".into(),
        repository: RepoName::new("owner/repo").expect("repo"),
        ttl: Duration::hours(1),
        report: report_path,
    };
    let mut out = Vec::new();
    assert!(sign::run(&args, &mut out).is_err());
    assert!(out.is_empty());
}

#[test]
fn arguments_parse_from_a_command_line() {
    use clap::Parser as _;
    #[derive(clap::Parser, Debug)]
    struct Sign {
        #[command(flatten)]
        args: sign::SignArgs,
    }
    let parsed = Sign::try_parse_from([
        "sign",
        "--key",
        "k.key",
        "--key-id",
        "ci-1",
        "--repository",
        "owner/repo",
        "--ttl",
        "2h30m",
        "r.json",
    ])
    .expect("parses");
    assert_eq!(parsed.args.ttl, Duration::minutes(150));
    assert_eq!(parsed.args.repository.as_str(), "owner/repo");
    let defaulted = Sign::try_parse_from([
        "sign",
        "--key",
        "k",
        "--key-id",
        "a",
        "--repository",
        "o/r",
        "-",
    ])
    .expect("parses");
    assert_eq!(defaulted.args.ttl, Duration::hours(1));
    assert_eq!(defaulted.args.report, std::path::PathBuf::from("-"));
    for bad in [["--repository", "not-a-repo"], ["--ttl", "soon"]] {
        let mut argv = vec![
            "sign",
            "--key",
            "k",
            "--key-id",
            "a",
            "--repository",
            "o/r",
            "r.json",
        ];
        argv.extend(bad);
        assert!(Sign::try_parse_from(argv).is_err(), "{bad:?}");
    }
}
