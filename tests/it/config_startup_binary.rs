//! The binary at start: some App credentials but not all is an error naming the rest (setup
//! only with none), `hardened` with no trust store does not start, the settings it runs with
//! are logged without a secret, and `--log` goes before or after the subcommand's name.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn auditloop(dir: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_auditloop"));
    command
        .current_dir(dir)
        .env_clear()
        .env("AUDITLOOP_LISTEN", "127.0.0.1:0");
    command
}

/// Runs the command, killing it if it is still running (serving setup) after 20 s.
fn finished(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn some_credentials_but_not_all_name_what_is_missing_instead_of_opening_setup() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = auditloop(dir.path());
    command.env("AUDITLOOP_WEBHOOK_SECRET", "whsec-not-printed");
    let out = finished(command);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("Open http"), "no setup page: {stdout}");
    assert!(stderr.contains("missing AUDITLOOP_APP_ID"), "{stderr}");
    assert!(
        stderr.contains("AUDITLOOP_PRIVATE_KEY or AUDITLOOP_PRIVATE_KEY_PATH"),
        "{stderr}"
    );
    assert!(!stderr.contains("AUDITLOOP_WEBHOOK_SECRET or"), "{stderr}");
    assert!(!stderr.contains("whsec-not-printed"), "{stderr}");
}

#[test]
fn hardened_without_a_trust_store_does_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let key = format!("{}/tests/fixtures/app-key.pem", env!("CARGO_MANIFEST_DIR"));
    let mut command = auditloop(dir.path());
    command.args([
        "serve",
        "--app-id",
        "42",
        "--private-key-path",
        &key,
        "--min-assurance",
        "hardened",
    ]);
    command.env("AUDITLOOP_WEBHOOK_SECRET", "s");
    let out = finished(command);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--min-assurance: hardened needs a trust store"),
        "{stderr}"
    );
    assert!(stderr.contains("every report would be refused"), "{stderr}");
}

/// Starts `serve` with a real key and reads its JSON log until it listens.
#[test]
fn the_start_logs_the_app_the_api_the_assurance_and_the_trusted_keys_never_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let key = format!("{}/tests/fixtures/app-key.pem", env!("CARGO_MANIFEST_DIR"));
    let mut child = auditloop(dir.path())
        .env("AUDITLOOP_APP_ID", "42")
        .env("AUDITLOOP_PRIVATE_KEY_PATH", &key)
        .env("AUDITLOOP_WEBHOOK_SECRET", "whsec-not-printed")
        .env("AUDITLOOP_GITHUB_API_URL", "http://127.0.0.1:9/api/v3")
        .env("AUDITLOOP_REDELIVER_INTERVAL", "0")
        .env("AUDITLOOP_RECONCILE_INTERVAL", "0")
        .env("AUDITLOOP_LOG_FORMAT", "json")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        let listening = line.contains("auditloop listening");
        lines.push(line);
        if listening || lines.len() > 50 {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let log = lines.join("\n");
    assert!(
        !log.contains("whsec-not-printed") && !log.contains("BEGIN RSA"),
        "{log}"
    );
    let start: serde_json::Value = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|l| l["message"] == "auditloop starting")
        .unwrap_or_else(|| panic!("no start line: {log}"));
    assert_eq!(start["app_id"], 42, "{start}");
    assert_eq!(start["api_url"], "http://127.0.0.1:9/api/v3", "{start}");
    assert_eq!(start["min_assurance"], "standard", "{start}");
    assert_eq!(start["trusted_keys"], 0, "{start}");
}

/// `--log` and `--log-format` are global: accepted before and after the subcommand's name.
#[test]
fn log_flags_go_before_or_after_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, "{}").unwrap();
    let report = report.display().to_string();
    let run = |args: &[&str]| {
        let mut command = auditloop(dir.path());
        command.args(args);
        finished(command)
    };
    for args in [
        ["--log", "warn", "validate", report.as_str()],
        ["validate", report.as_str(), "--log", "warn"],
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("cannot be used with"),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
    for args in [
        ["--log-format", "bogus", "validate", report.as_str()],
        ["validate", report.as_str(), "--log-format", "bogus"],
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("--log-format: \"bogus\" is neither pretty nor json"),
            "{args:?}: {stderr}"
        );
    }
    let out = run(&["--app-id", "1", "validate", &report]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--app-id is a flag of `serve`"), "{stderr}");
}
