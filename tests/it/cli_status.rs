//! `auditloop status` as a binary against the fake GitHub: its exit codes, and its `--json`
//! agreeing with the check run the server publishes for the same state (docs/reference.md#command-line).

use crate::cli_remote::auditloop;
use crate::support;

use std::process::{Command, Output};

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, BRANCH, SHA1};
use support::deliveries::REPO;

async fn status(l: &Loop, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["status", "--repo", REPO, "--pr", "42"];
    args.extend_from_slice(extra);
    auditloop(&l.gh.api_url(), dir.path(), &args).await
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The conditions a published check run lists, as (n, holds, reason) where the reason is
/// the Markdown of a condition with a reason of its own, and `None` for one that only waits
/// on an earlier one (`- ⏸️ 4. … · 5. … wait on 6`).
fn published_rows(gate: &Value) -> Vec<(u64, bool, Option<String>)> {
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    let mut rows = Vec::new();
    for line in summary.lines() {
        if let Some(rest) = line.strip_prefix("- ⏸️ ") {
            let names = rest.rsplit_once(" on ").map_or(rest, |(names, _)| names);
            for name in names.split(" · ") {
                if let Some(n) = name.split_once(". ").and_then(|(n, _)| n.parse().ok()) {
                    rows.push((n, false, None));
                }
            }
            continue;
        }
        let Some((mark, rest)) = line.strip_prefix("- ").and_then(|l| l.split_once(" **")) else {
            continue;
        };
        let Some((head, reason)) = rest.split_once("** — ") else {
            continue;
        };
        let Some(n) = head.split_once(". ").and_then(|(n, _)| n.parse().ok()) else {
            continue;
        };
        rows.push((n, mark == "✅", Some(reason.to_owned())));
    }
    rows.sort_by_key(|r| r.0);
    rows
}

/// The text a reader sees of one line of the app's Markdown: links as their words, code
/// spans and emphasis unmarked, escapes undone.
fn seen(md: &str) -> String {
    let mut out = String::new();
    let mut chars = md.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            ']' if chars.peek() == Some(&'(') => {
                for c in chars.by_ref() {
                    if c == ')' {
                        break;
                    }
                }
            }
            '`' | '*' | '[' => {}
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `status --json` says what the check run the server published for this state says.
fn assert_agrees(out: &Output, gate: &Value) -> Value {
    let s: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)));
    let published = gate["conclusion"].as_str().unwrap_or("in_progress");
    assert_eq!(s["conclusion"], published, "{}\n{gate:#}", text(out));
    assert_eq!(
        s["passes"],
        json!(published == "success" || published == "neutral")
    );
    let ours: Vec<(u64, bool, Option<String>)> = s["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let reason = c["reason"].as_str().unwrap();
            (
                c["n"].as_u64().unwrap(),
                c["passes"].as_bool().unwrap(),
                c["waits_on"]
                    .is_null()
                    .then(|| reason.split_whitespace().collect::<Vec<_>>().join(" ")),
            )
        })
        .collect();
    let theirs: Vec<(u64, bool, Option<String>)> = published_rows(gate)
        .into_iter()
        .map(|(n, holds, reason)| (n, holds, reason.as_deref().map(seen)))
        .collect();
    assert_eq!(ours, theirs, "{}", text(out));
    assert_eq!(ours.len(), 9);
    s
}

#[tokio::test]
async fn status_exits_as_the_published_gate_concludes_and_agrees_with_it() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;

    // No record yet: the gate fails condition 1, which status can tell.
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let s = assert_agrees(&out, &l.gate(SHA1));
    assert_eq!(s["record"], Value::Null);

    // A record without a run.
    l.new_record(42).await;
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let s = assert_agrees(&out, &l.gate(SHA1));
    assert_eq!(s["record"]["id"], "AUD-1");
    assert_eq!(s["record"]["audit_state"], "open");
    assert_eq!(
        s["record"]["budget"],
        json!({"audit_budget": 3, "runs_used": 0, "runs_left": 3})
    );

    // A run that asks for remediation: its blocking finding is open.
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let s = assert_agrees(&out, &l.gate(SHA1));
    let findings = s["record"]["open_findings"].as_array().unwrap();
    assert_eq!(findings[0]["id"], "A-01");
    assert_eq!(findings[0]["blocking"], true);
    assert_eq!(s["record"]["budget"]["runs_used"], 1);

    // Certified: the gate passes, and status exits 0 in both forms.
    let second = report("AUD-1", 42, SHA1, "ci-run-2", "certified");
    l.comment(42, "auditor", &report_comment(&second)).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let s = assert_agrees(&out, &l.gate(SHA1));
    assert_eq!(s["record"]["audit_state"], "certified");
    assert_eq!(s["record"]["latest_verdict"], "certified");
    let out = status(&l, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(words.starts_with("gate passes: "), "{words}");
    assert!(words.contains("record AUD-1: certified"), "{words}");
    assert!(
        words.contains("budget: 2 of 3 runs used, 1 left"),
        "{words}"
    );
}

#[tokio::test]
async fn status_reads_only() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let before = l.gh.requests().len();
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let calls = &l.gh.requests()[before..];
    assert!(!calls.is_empty());
    for c in calls {
        // A GraphQL query (the records read by path) reads too; a mutation would write.
        let query = c.path.ends_with("/graphql/repository")
            && c.body["query"]
                .as_str()
                .is_some_and(|q| q.starts_with("query "));
        assert!(c.method == "GET" || query, "{} {}", c.method, c.path);
        let auth = c.headers.get("authorization").cloned().unwrap_or_default();
        assert!(
            auth.ends_with(crate::cli_remote::TOKEN),
            "{}: {auth}",
            c.path
        );
    }
}

#[tokio::test]
async fn status_exits_3_when_it_cannot_tell_saying_why() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;

    // No token: a usage error, no call, exit 2.
    let requests = l.gh.requests().len();
    let out = tokio::task::spawn_blocking(|| {
        Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .env_clear()
            .args(["status", "--repo", REPO, "--pr", "42"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no token"),
        "{}",
        text(&out)
    );
    assert_eq!(l.gh.requests().len(), requests);

    // A token GitHub refuses.
    l.gh.fail_next("GET", "/repos/octo-org/hello", 401, &[]);
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot tell") && err.contains("401"), "{err}");
    let printed: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(printed["exit_code"], 3, "{}", text(&out));
    assert_eq!(
        format!("auditloop: {}", printed["error"].as_str().unwrap()),
        err.trim()
    );

    // A record that no longer loads: the gate fails condition 1, and status says the
    // records are damaged and how to repair them.
    let path =
        auditloop::engine::layout::record_path(&auditloop::engine::ids::AuditId::from_number(1));
    l.gh.commit_files(REPO, BRANCH, &[(path.as_str(), "{")], "oops");
    l.comment(42, "reader", "/audit gate").await;
    let out = status(&l, &["--json"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged") && err.contains(&path), "{err}");
    assert!(err.contains("must repair it"), "{err}");
    // The published run shows condition 1 alone; status shows it failing first.
    let gate = l.gate(SHA1);
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["conclusion"], gate["conclusion"], "{gate:#}");
    assert_eq!(s["passes"], false);
    assert_eq!(published_rows(&gate)[0].0, 1);
    assert!(!published_rows(&gate)[0].1);
    assert_eq!(s["conditions"][0]["n"], 1);
    assert_eq!(s["conditions"][0]["passes"], false);
}

#[tokio::test]
async fn status_sees_a_rewound_records_branch() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let created = l.head().unwrap();
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert_ne!(l.head().unwrap(), created);
    // Someone force-moves the branch back behind the commit the check run names.
    l.gh.state()
        .git
        .get_mut(REPO)
        .unwrap()
        .refs
        .insert(format!("heads/{BRANCH}"), created);
    let out = status(&l, &[]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rewound or rewritten"), "{err}");
}
