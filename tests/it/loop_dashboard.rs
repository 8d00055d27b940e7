//! The repository's audit dashboard (docs/reference.md#the-audit-dashboard): one issue,
//! found by its marker, rebuilt from the records of the open PRs at most once a minute,
//! reopened when closed by hand, closed when turned off; and `status --repo`, which prints
//! the same sections with each PR's gate.

use std::time::Duration;

use crate::support;

use auditloop::app::dashboard::Rebuilt;
use auditloop::app::ReconcileLimits;
use auditloop::engine::dashboard::{self, Row, Section, Sources, BODY_LIMIT};
use auditloop::engine::ids::{AuditId, PrNumber};
use auditloop::engine::md::Md;
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::deliveries::REPO;
use support::steps::new_command;

use crate::cli_remote::auditloop;

const SHA3: &str = "3333333333333333333333333333333333333333";
const SHA4: &str = "4444444444444444444444444444444444444444";
const MINUTE: Duration = Duration::from_secs(60);

fn report_on(audit: &str, pr: u64, sha: &str, run: &str, verdict: &str, task: &str) -> Value {
    let mut r = report(audit, pr, sha, run, verdict);
    r["covered_tasks"] = json!([task]);
    r
}

/// With `config`: PR 42 certified (AUD-1), PR 43 open with no run (AUD-2), PR 44 needing
/// remediation (AUD-3), each covering its own task.
async fn three_prs(config: &str) -> Loop {
    let mut l = Loop::start(42).await;
    l.gh.set_file(".github/auditloop.yml", config);
    l.gh.add_pull(43, SHA3, "Logs delivery ids.\n\nCloses #13\n", "alice");
    l.gh.add_pull(44, SHA4, "Limits bursts.\n\nCloses #14\n", "alice");
    l.gh.set_pull_title(43, "Log | delivery <ids>");
    for (pr, sha) in [(42, SHA1), (43, SHA3), (44, SHA4)] {
        l.pull_event("opened", pr, sha).await;
        l.comment(pr, "alice", &new_command("")).await;
    }
    let certified = report_on("AUD-1", 42, SHA1, "ci-run-1", "certified", "#12");
    l.comment(42, "auditor", &report_comment(&certified)).await;
    let raised = report_on("AUD-3", 44, SHA4, "ci-run-44-1", "needs_remediation", "#14");
    l.comment(44, "auditor", &report_comment(&raised)).await;
    for pr in [42, 43, 44] {
        assert!(l.refusals(pr).is_empty(), "#{pr}: {:?}", l.refusals(pr));
    }
    l
}

async fn flush(l: &Loop, interval: Duration) -> Vec<Rebuilt> {
    l.app
        .app
        .flush_dashboards(interval)
        .await
        .into_iter()
        .map(|(_, o)| o)
        .collect()
}

/// One reconcile sweep, which must fail nowhere.
async fn sweep(l: &Loop) {
    let report = l
        .app
        .app
        .reconcile(ReconcileLimits::default())
        .await
        .unwrap();
    assert!(report.failed.is_empty(), "{report:?}");
}

/// The text under `## heading`, up to the next heading.
fn section<'b>(body: &'b str, heading: &str) -> &'b str {
    let start = body
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading}: {body}"));
    let rest = &body[start + heading.len() + 5..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

fn the_dashboard(l: &Loop) -> Value {
    let all = l.gh.dashboards();
    assert_eq!(all.len(), 1, "one dashboard: {all:#?}");
    all[0].clone()
}

fn issue_writes(l: &Loop) -> usize {
    l.gh.requests()
        .iter()
        .filter(|r| {
            (r.method == "POST" && r.path.ends_with("/issues"))
                || (r.method == "PATCH" && r.path.contains("/issues/"))
        })
        .count()
}

#[tokio::test]
async fn three_prs_land_in_their_sections_of_one_issue() {
    let l = three_prs("dashboard: true\n").await;
    assert_eq!(flush(&l, MINUTE).await, [Rebuilt::Created]);
    let issue = the_dashboard(&l);
    assert_eq!(issue["title"], "Audit dashboard");
    assert_eq!(issue["labels"], json!(["audit-dashboard"]));
    let body = issue["body"].as_str().unwrap();
    assert!(body.contains("<!-- auditloop:dashboard -->"));
    let headings: Vec<&str> = body.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        [
            "## Waiting on a maintainer",
            "## Blocked",
            "## Needs remediation",
            "## Waiting on the auditor",
            "## Certified, ready to merge",
            "## Most seen patterns",
        ]
    );
    assert_eq!(section(body, "Waiting on a maintainer").trim(), "None.");
    assert_eq!(section(body, "Blocked").trim(), "None.");
    let certified = section(body, "Certified, ready to merge");
    assert!(
        certified.contains(&format!("[#42](https://github.com/{REPO}/pull/42)"))
            && certified.contains("AUD-1"),
        "{certified}"
    );
    let waiting = section(body, "Waiting on the auditor");
    assert!(
        waiting.contains("#43") && waiting.contains("AUD-2"),
        "{waiting}"
    );
    // The title is the author's text: escaped, so it neither splits the row nor adds markup.
    assert!(
        !waiting.contains("Log | delivery") && !waiting.contains("<ids>"),
        "{waiting}"
    );
    let remediation = section(body, "Needs remediation");
    assert!(
        remediation.contains("#44") && remediation.contains("AUD-3"),
        "{remediation}"
    );
}

#[tokio::test]
async fn a_change_moves_a_pr_within_a_minute_in_the_same_issue() {
    let mut l = three_prs("dashboard: true\n").await;
    flush(&l, MINUTE).await;
    let number = the_dashboard(&l)["number"].clone();

    let certified = report_on("AUD-2", 43, SHA3, "ci-run-43-1", "certified", "#13");
    l.comment(43, "auditor", &report_comment(&certified)).await;
    // Within the minute the change waits, folded into the next rebuild.
    assert_eq!(flush(&l, MINUTE).await, []);
    let body = the_dashboard(&l)["body"].as_str().unwrap().to_owned();
    assert!(section(&body, "Waiting on the auditor").contains("#43"));

    // The minute is up.
    assert_eq!(flush(&l, Duration::ZERO).await, [Rebuilt::Updated]);
    let issue = the_dashboard(&l);
    assert_eq!(issue["number"], number, "the same issue");
    let body = issue["body"].as_str().unwrap();
    assert!(
        section(body, "Certified, ready to merge").contains("#43"),
        "{body}"
    );
    assert_eq!(section(body, "Waiting on the auditor").trim(), "None.");

    // The sweep finds it current: nothing is sent.
    let before = issue_writes(&l);
    sweep(&l).await;
    assert_eq!(issue_writes(&l), before);
}

#[tokio::test]
async fn a_dashboard_closed_by_hand_is_reopened_and_replicas_make_one() {
    let mut l = three_prs("dashboard: true\n").await;
    // Two replicas sweep at the same moment: one issue.
    let other = support::harness::TestApp::start(&l.gh).await;
    let (a, b) = tokio::join!(
        l.app.app.reconcile(ReconcileLimits::default()),
        other.app.reconcile(ReconcileLimits::default())
    );
    assert!(a.unwrap().failed.is_empty() && b.unwrap().failed.is_empty());
    let number = the_dashboard(&l)["number"].as_u64().unwrap();

    l.gh.close_issue(number);
    let certified = report_on("AUD-2", 43, SHA3, "ci-run-43-1", "certified", "#13");
    l.comment(43, "auditor", &report_comment(&certified)).await;
    assert_eq!(flush(&l, Duration::ZERO).await, [Rebuilt::Reopened]);
    let issue = the_dashboard(&l);
    assert_eq!(issue["number"], number);
    assert_eq!(issue["state"], "open");
}

#[tokio::test]
async fn without_the_setting_no_issue_is_made_and_turning_it_off_closes_it() {
    let l = three_prs("patterns: true\n").await;
    assert_eq!(flush(&l, Duration::ZERO).await, []);
    l.app
        .app
        .reconcile(ReconcileLimits::default())
        .await
        .unwrap();
    assert!(l.gh.dashboards().is_empty());
    assert_eq!(issue_writes(&l), 0);

    let l = three_prs("dashboard: true\n").await;
    flush(&l, Duration::ZERO).await;
    l.gh.set_file(".github/auditloop.yml", "dashboard: false\n");
    l.app
        .app
        .reconcile(ReconcileLimits::default())
        .await
        .unwrap();
    let issue = the_dashboard(&l);
    assert_eq!(issue["state"], "closed");
    assert!(
        issue["body"]
            .as_str()
            .unwrap()
            .contains("Closed: `dashboard` is no longer `true`"),
        "{issue:#}"
    );
    // Settled: the next sweeps do not look again.
    let before = l.gh.requests().len();
    l.app
        .app
        .reconcile(ReconcileLimits::default())
        .await
        .unwrap();
    let listings = l.gh.requests()[before..]
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/issues"))
        .count();
    assert_eq!(listings, 0);
}

#[tokio::test]
async fn status_repo_agrees_with_the_check_runs() {
    let l = three_prs("dashboard: true\n").await;
    let dir = tempfile::tempdir().unwrap();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["status", "--repo", REPO, "--json"],
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pulls = printed["pulls"].as_array().unwrap();
    assert_eq!(pulls.len(), 3, "{printed:#}");
    for (pr, sha, section) in [
        (42, SHA1, "certified"),
        (43, SHA3, "waiting_on_auditor"),
        (44, SHA4, "needs_remediation"),
    ] {
        let p = pulls.iter().find(|p| p["number"] == pr).unwrap();
        let gate = l.gate(sha);
        assert_eq!(p["section"], section, "{p:#}");
        assert_eq!(
            p["passes"],
            json!(gate["conclusion"] == "success"),
            "#{pr}: {p:#} {gate:#}"
        );
        assert_eq!(p["verdict_line"], gate["output"]["title"], "#{pr}");
        for key in ["title", "record", "state", "waits_on", "since"] {
            assert!(p.get(key).is_some(), "{key}: {p:#}");
        }
    }

    let text = auditloop(&l.gh.api_url(), dir.path(), &["status", "--repo", REPO]).await;
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Certified, ready to merge\n  #42"), "{text}");

    // The MCP tool answers the same.
    let client = crate::mcp_tools::connect(&l.gh.api_url(), crate::cli_remote::TOKEN).await;
    let result = crate::mcp_tools::call(&client, "list_audits", json!({"repo": REPO})).await;
    assert_ne!(result["isError"], json!(true), "{result:#}");
    let listed = &result["structuredContent"]["pulls"];
    let numbers = |v: &Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["number"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(numbers(listed), numbers(&printed["pulls"]));
    client.cancel().await.unwrap();
}

fn row(n: u64, section: Section, minute: u32) -> Row {
    Row {
        number: PrNumber(n),
        title: format!("Change {n} with a title long enough to take room in every row of it"),
        record: AuditId::new(format!("AUD-{n}")).unwrap(),
        state: "open".to_owned(),
        section,
        verdict_line: Md::text("Needs remediation — 2 blocking findings; the fixer pushes a fix"),
        since: Some(
            chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
                .unwrap()
                .with_timezone(&chrono::Utc)
                + chrono::TimeDelta::minutes(i64::from(minute)),
        ),
        not_converging: false,
        gate: dashboard::Standing::passing(Md::lit("Audit gate passes")),
    }
}

#[test]
fn past_githubs_limit_each_section_keeps_its_oldest_rows_and_says_how_many_more() {
    let mut rows = Vec::new();
    for n in 1..=900 {
        rows.push(row(
            n,
            Section::NeedsRemediation,
            900 - u32::try_from(n).unwrap(),
        ));
    }
    for n in 1001..=1010 {
        rows.push(row(n, Section::Certified, 0));
    }
    let rows = {
        let pulls: Vec<Row> = rows;
        let mut sorted = pulls;
        sorted.sort_by_key(|r| (r.section, r.since, r.number));
        sorted
    };
    let view = auditloop::engine::views::ViewContext {
        html_base: "https://github.com".to_owned(),
        repository: auditloop::engine::ids::RepoName::new(REPO.to_owned()).unwrap(),
        records_branch: "auditloop-records".to_owned(),
    };
    let body = dashboard::body(
        &rows,
        &Sources {
            view: &view,
            patterns: None,
            records_commit: None,
        },
    );
    assert!(
        body.chars().count() <= BODY_LIMIT,
        "{}",
        body.chars().count()
    );
    let remediation = section(&body, "Needs remediation");
    let kept = remediation
        .lines()
        .filter(|l| l.starts_with("| [#"))
        .count();
    assert!(kept > 10 && kept < 900, "{kept}");
    let more = format!(
        "… and {} more: `auditloop status --repo {REPO}`",
        900 - kept
    );
    assert!(remediation.contains(&more), "{remediation}");
    // The oldest are kept: #900 changed first.
    assert!(remediation.contains("[#900]") && !remediation.contains("[#1]("));
    // A small section is whole.
    let certified = section(&body, "Certified, ready to merge");
    assert_eq!(
        certified.lines().filter(|l| l.starts_with("| [#")).count(),
        10
    );
    assert!(body.trim_end().ends_with("<!-- auditloop:dashboard -->"));
}

#[test]
fn the_dashboard_body_snapshot() {
    let body = crate::views_support::dashboard_body(&crate::views_support::rich_record());
    crate::views_render::assert_reads_right("dashboard", &body);
    insta::assert_snapshot!("dashboard_body", body);
}

#[tokio::test]
async fn a_replica_never_takes_the_claim_of_one_with_no_records_commit_for_its_own() {
    let l = three_prs("dashboard: true\n").await;
    // Another replica, which has made no records commit, claimed the dashboard's creation:
    // its claim points at the anchor, the records head, which is the commit this replica
    // made last. Its issue comes half a second later.
    let head = l.gh.branch_head(REPO, support::audit::BRANCH).unwrap();
    l.gh.state()
        .git
        .get_mut(REPO)
        .unwrap()
        .refs
        .insert("auditloop/claims/dashboard/create-1".to_owned(), head);
    let state = l.gh.state.clone();
    let holder = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let body = format!("{}\n\nmade by the other replica", dashboard::MARKER);
        state
            .lock()
            .unwrap()
            .issues
            .push(json!({"number": 900, "title": dashboard::TITLE,
            "body": body, "labels": [dashboard::LABEL], "state": "open"}));
    });
    // This replica waits for the holder instead of creating a second issue.
    let outcomes = flush(&l, Duration::ZERO).await;
    holder.await.unwrap();
    assert_eq!(the_dashboard(&l)["number"], 900, "{outcomes:?}");
}

#[tokio::test]
async fn a_certified_record_whose_gate_fails_is_not_listed_as_ready_to_merge() {
    let mut l = three_prs("dashboard: true\n").await;
    // PR 42's body now closes #99 too, an issue its record does not cover: condition 3
    // fails, though the record stays certified.
    l.gh.set_pull_body(
        42,
        "Adds webhook replay protection.\n\nCloses #12\nCloses #99\n",
    );
    l.pull_event("edited", 42, SHA1).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "failure", "{:#}", l.gate(SHA1));

    sweep(&l).await;
    let issue = the_dashboard(&l);
    let body = issue["body"].as_str().unwrap();
    assert_eq!(
        section(body, "Certified, ready to merge").trim(),
        "None.",
        "{body}"
    );
    let blocked = section(body, "Blocked");
    assert!(
        blocked.contains("#42") && blocked.contains("the gate fails"),
        "{blocked}"
    );

    let printed = status_repo_json(&l).await;
    let p = printed["pulls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["number"] == 42)
        .unwrap()
        .clone();
    assert_eq!(p["state"], "certified", "{p:#}");
    assert_eq!(p["section"], "blocked", "{p:#}");
    assert_eq!(p["passes"], false, "{p:#}");
    assert_eq!(p["verdict_line"], l.gate(SHA1)["output"]["title"], "{p:#}");
}

/// What `auditloop status --repo REPO --json` prints.
async fn status_repo_json(l: &Loop) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["status", "--repo", REPO, "--json"],
    )
    .await;
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A repository with `n` open PRs, each with a record; the gate reads an evidence check,
/// so the heads' checks are read too.
async fn many_prs(n: u64) -> Loop {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "dashboard: true\nevidence:\n  required_checks: [ci]\n",
    );
    for pr in 43..42 + n {
        let sha = format!("{pr:040}");
        l.gh.add_pull(
            pr,
            &sha,
            &format!("Change {pr}.\n\nCloses #{pr}\n"),
            "alice",
        );
    }
    for pr in 42..42 + n {
        let sha = if pr == 42 {
            SHA1.to_owned()
        } else {
            format!("{pr:040}")
        };
        l.pull_event("opened", pr, &sha).await;
        l.comment(pr, "alice", &new_command("")).await;
    }
    l
}

/// The calls `run` makes on `l`'s fake GitHub.
async fn calls_of<F: std::future::Future<Output = ()>>(l: &Loop, run: F) -> usize {
    let before = l.gh.requests().len();
    run.await;
    l.gh.requests().len() - before
}

#[tokio::test]
async fn the_dashboard_and_status_repo_make_as_many_calls_for_twelve_prs_as_for_two() {
    let mut counted = Vec::new();
    for n in [2, 12] {
        let l = many_prs(n).await;
        let dashboard = calls_of(&l, async {
            assert_eq!(flush(&l, MINUTE).await, [Rebuilt::Created]);
        })
        .await;
        assert!(
            the_dashboard(&l)["body"]
                .as_str()
                .unwrap()
                .contains(&format!("#{}", 41 + n)),
            "every PR is listed"
        );
        let status = calls_of(&l, async {
            let printed = status_repo_json(&l).await;
            assert_eq!(printed["pulls"].as_array().unwrap().len() as u64, n);
        })
        .await;
        // BENCHMARKS.md quotes these.
        eprintln!("{n} PRs: dashboard {dashboard} calls, status --repo {status} calls");
        counted.push((dashboard, status));
    }
    assert_eq!(counted[0], counted[1], "(dashboard, status --repo) calls");
}
