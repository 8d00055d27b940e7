//! The command line's exit codes and failure words through the real binary: 2 for a usage
//! error (clap's, an API URL that is no URL, a file that cannot be read), 3 when `status`
//! cannot tell, one line on standard error at the default log level, and what a 401 or a
//! 404 asks the user to check (docs/reference.md#command-line).

use crate::cli_remote::text;

use crate::cli_remote::{auditloop, TOKEN};
use crate::support::fake::FakeGitHub;

use std::process::{Command, Output};

use serde_json::Value;

const REPO: &str = "octo-org/hello";

/// Runs the binary with no environment but `env`, in a scratch directory.
pub fn run_bare(args: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .current_dir(dir.path())
        .env_clear()
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap()
}

fn stderr_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A local address nothing listens on.
fn unreachable_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

fn fixture() -> String {
    format!(
        "{}/tests/fixtures/reports/valid.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn an_api_url_that_is_no_url_is_a_usage_error_for_every_command() {
    let report = fixture();
    let commands: [&[&str]; 5] = [
        &["packet", "--repo", REPO, "--pr", "1"],
        &["status", "--repo", REPO, "--pr", "1"],
        &["status", "--repo", REPO],
        &["post", "--repo", REPO, "--pr", "1", &report],
        &[
            "post",
            "--repo",
            REPO,
            "--pr",
            "1",
            "--error",
            "x",
            "--invocation",
            "r",
        ],
    ];
    for url in ["not-a-url", "", "/api/v3", "http://", "ghe.example.com"] {
        for command in commands {
            let mut args = command.to_vec();
            args.extend(["--token", "x", "--github-api-url", url]);
            let out = run_bare(&args, &[]);
            assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
            let lines = stderr_lines(&out);
            assert_eq!(lines.len(), 1, "{args:?}\n{}", text(&out));
            assert!(
                lines[0].starts_with("auditloop: --github-api-url (or GITHUB_API_URL): "),
                "{}",
                lines[0]
            );
            assert!(out.stdout.is_empty(), "{args:?}\n{}", text(&out));
        }
        let out = run_bare(&["mcp", "--github-api-url", url], &[]);
        assert_eq!(out.status.code(), Some(2), "mcp {url:?}\n{}", text(&out));
        assert_eq!(stderr_lines(&out).len(), 1, "{}", text(&out));
    }
    // The environment's value is checked the same way, and `status --json` says it as JSON.
    let out = run_bare(
        &["status", "--repo", REPO, "--pr", "1", "--json"],
        &[("GITHUB_TOKEN", "x"), ("GITHUB_API_URL", "not-a-url")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(printed["exit_code"], 2);
    assert!(printed["error"].as_str().unwrap().contains("not-a-url"));
}

#[test]
fn an_unreachable_api_is_one_line_on_standard_error() {
    let url = unreachable_url();
    let packet = ["packet", "--repo", REPO, "--pr", "1", "--token", "x"];
    let out = run_bare(&packet, &[("GITHUB_API_URL", &url)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert!(lines[0].starts_with("auditloop: "), "{}", lines[0]);
    assert!(lines[0].contains("no answer from GitHub"), "{}", lines[0]);

    let status = [
        "status", "--repo", REPO, "--pr", "1", "--token", "x", "--json",
    ];
    let out = run_bare(&status, &[("GITHUB_API_URL", &url)]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert!(
        lines[0].starts_with("auditloop: cannot tell: "),
        "{}",
        lines[0]
    );
    let printed: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(printed["exit_code"], 3);
    assert_eq!(
        format!("auditloop: {}", printed["error"].as_str().unwrap()),
        lines[0]
    );

    // `--log debug` shows what the libraries and the retries say.
    let mut debug = packet.to_vec();
    debug.extend(["--log", "debug"]);
    let out = run_bare(&debug, &[("GITHUB_API_URL", &url)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("retrying GitHub call"), "{}", text(&out));
    assert!(stderr_lines(&out).len() > 1, "{}", text(&out));
}

#[test]
fn a_file_that_cannot_be_read_is_a_usage_error_not_an_invalid_report() {
    for args in [
        &["validate", "nofile.json"][..],
        &[
            "sign",
            "--key",
            "nofile.json",
            "--key-id",
            "a",
            "--repository",
            REPO,
            "r.json",
        ],
        &[
            "post",
            "--repo",
            REPO,
            "--pr",
            "1",
            "--token",
            "x",
            "nofile.json",
        ],
    ] {
        let out = run_bare(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "{}", text(&out));
        assert!(lines[0].contains("cannot read nofile.json"), "{}", lines[0]);
    }
    // A report with problems is still 1.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let out = run_bare(&["validate", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn usage_errors_are_clap_s_2_and_help_names_every_code() {
    for args in [
        &["status", "--repo", REPO, "--pr", "x"][..],
        &["status", "--repo", "no-slash"],
        &["packet", "--repo", REPO],
        &["validate"],
        &["no-such-command"],
    ] {
        let out = run_bare(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let out = run_bare(&["status", "--repo", REPO, "--pr", "1"], &[]);
    assert_eq!(out.status.code(), Some(2), "no token\n{}", text(&out));
    assert_eq!(stderr_lines(&out).len(), 1, "{}", text(&out));
    let help = |command: &str| {
        let out = run_bare(&[command, "--help"], &[]);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let status = help("status");
    assert!(
        status.contains("2 usage error") && status.contains("3 cannot tell"),
        "{status}"
    );
    for command in [
        "validate",
        "post",
        "packet",
        "sign",
        "keygen",
        "healthcheck",
    ] {
        let words = help(command);
        assert!(words.contains("Exit codes: 0"), "{command}: {words}");
        assert!(words.contains("2 usage error"), "{command}: {words}");
    }
}

#[tokio::test]
async fn a_401_or_a_404_says_what_to_check() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let packet = ["packet", "--repo", REPO, "--pr", "1"];

    gh.fail_next("GET", "/repos/octo-org/hello", 404, &[]);
    let out = auditloop(&gh.api_url(), dir.path(), &packet).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert!(
        lines[0].starts_with("auditloop: the token cannot see octo-org/hello (GitHub answered 404"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("check the repository name and the token's access"));

    gh.fail_next("GET", "/repos/octo-org/hello", 401, &[]);
    let status = ["status", "--repo", REPO, "--pr", "1", "--json"];
    let out = auditloop(&gh.api_url(), dir.path(), &status).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    let words = printed["error"].as_str().unwrap();
    assert!(
        words.starts_with("cannot tell: GitHub does not accept the token (GitHub answered 401"),
        "{words}"
    );
    assert!(
        words.contains("check that --token or GITHUB_TOKEN"),
        "{words}"
    );
    assert!(!words.contains(TOKEN), "{words}");
}
