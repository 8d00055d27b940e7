//! The real binary under SIGKILL and in replicas. A server killed at each step of a
//! command (after the tree, the commit, the ref update, the PR body, the check run) and
//! started again, then handed the same delivery, records the command exactly once on a
//! linear, chain-valid history, and the PR body and check run show it. Several servers
//! with the same App credentials on one GitHub record every command once, keep one linear
//! history and never reply twice, also when the same delivery reaches two at once.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, BRANCH, SHA1, SHA2};
use support::deliveries::{pr_comment, pull_request, REPO};
use support::fake::{FakeGitHub, APP_SLUG};
use support::layouts::record_text;
use support::process::{kill, Server};

const NEW: &str = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";
const VETO: &str = "/audit veto crash-key --reason \"Must be fixed\"";

async fn repo() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    for (pr, sha) in [(42, SHA1), (43, SHA2)] {
        gh.add_pull(
            pr,
            sha,
            &format!("Change {pr}.\n\nCloses #{}\n", pr - 30),
            "alice",
        );
    }
    gh.set_permission("alice", "write");
    gh.set_permission("auditor", "write");
    gh.set_permission("maint", "maintain");
    gh.set_permission("reader", "read");
    gh
}

async fn ok(server: &Server, event: &str, id: &str, payload: &Value) {
    assert_eq!(
        server.deliver(event, id, payload).await,
        Some(200),
        "{id}: {}",
        server.log()
    );
}

fn record(gh: &FakeGitHub, id: &str) -> auditloop::engine::record::Record {
    let files = gh.branch_files(REPO, BRANCH);
    let text = record_text(&files, id).unwrap_or_else(|| panic!("no record {id}"));
    auditloop::engine::record::load_record(&text).expect("the record is chain-valid")
}

fn events_of(gh: &FakeGitHub, id: &str, delivery: &str) -> usize {
    let files = gh.branch_files(REPO, BRANCH);
    let text = record_text(&files, id).unwrap_or_else(|| panic!("no record {id}"));
    let v: Value = serde_json::from_str(&text).unwrap();
    v["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["delivery"] == delivery)
        .count()
}

/// PR 42 opened with AUD-1 and one `needs_remediation` run, through `server`.
async fn with_run(server: &Server) {
    let mut opened = pull_request("opened", 42, SHA1);
    opened["pull_request"]["body"] = json!("Change 42.\n\nCloses #12\n");
    ok(server, "pull_request", "setup-open", &opened).await;
    ok(
        server,
        "issue_comment",
        "setup-new",
        &pr_comment(42, "alice", NEW),
    )
    .await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    ok(
        server,
        "issue_comment",
        "setup-report",
        &pr_comment(42, "auditor", &report_comment(&r)),
    )
    .await;
}

#[tokio::test]
async fn a_command_killed_at_each_step_is_recorded_once_after_restart() {
    type Arm = fn(&FakeGitHub, &support::process::Handle);
    let steps: Vec<(&str, Arm)> = vec![
        ("before the records commit", |gh, s| {
            gh.kill_on("POST", "/graphql/createCommitOnBranch", s);
        }),
        ("after the records commit", |gh, s| {
            gh.kill_after("POST", "/graphql/createCommitOnBranch", s);
        }),
        ("after the PR body", |gh, s| {
            gh.kill_after("PATCH", "/pulls/42", s);
        }),
        ("after the check run", |gh, s| {
            gh.kill_after("PATCH", "/check-runs/", s);
        }),
    ];
    for (step, arm) in steps {
        let gh = repo().await;
        let server = Server::spawn(&gh).await;
        with_run(&server).await;
        let before = gh.branch_log(REPO, BRANCH).len();
        arm(&gh, &server.child);
        let veto = pr_comment(42, "maint", VETO);
        let first = server.deliver("issue_comment", "crash-veto", &veto).await;
        // Killed midway: no answer (a step whose next request never came may still have
        // answered; the process is killed now either way).
        assert!(first.is_none() || first == Some(200), "{step}: {first:?}");
        kill(&server.child);
        assert!(!server.is_running(), "{step}");
        gh.state().triggers.clear();

        let restarted = Server::spawn(&gh).await;
        ok(&restarted, "issue_comment", "crash-veto", &veto).await;
        let log = gh.branch_log(REPO, BRANCH);
        assert_eq!(
            log.len(),
            before + 1,
            "{step}: one commit for the command: {log:#?}"
        );
        assert_eq!(
            events_of(&gh, "AUD-1", "crash-veto"),
            1,
            "{step}: in the history once"
        );
        let rec = record(&gh, "AUD-1");
        assert_eq!(rec.history.len(), 3, "{step}");
        assert!(
            gh.pull_body(42).contains("crash-key"),
            "{step}: the PR body shows the veto"
        );
        let gate = gh.gate_runs(SHA1).last().cloned().unwrap();
        assert_eq!(
            gate["external_id"],
            json!(gh.branch_head(REPO, BRANCH).unwrap()),
            "{step}: the check run is computed from the commit that holds the veto"
        );
        assert_eq!(gate["status"], "completed", "{step}");
        assert!(
            gate["output"]["summary"]
                .as_str()
                .unwrap()
                .contains("its history of 3 events"),
            "{step}: {:#}",
            gate["output"]
        );
        let replies = gh.comments_on(42);
        assert!(
            replies.iter().all(|c| !c.starts_with("auditloop: refused")),
            "{step}: {replies:#?}"
        );
        drop(server);
    }
}

#[tokio::test]
// `a`, `b`: the two replicas, named as the scenario names them.
#[allow(clippy::many_single_char_names)]
async fn replicas_record_every_command_once_on_one_linear_history() {
    let gh = repo().await;
    let a = Server::spawn(&gh).await;
    let b = Server::spawn(&gh).await;
    with_run(&a).await;
    let mut opened = pull_request("opened", 43, SHA2);
    opened["pull_request"]["body"] = json!("Change 43.\n\nCloses #13\n");
    ok(&b, "pull_request", "open-43", &opened).await;
    ok(&b, "issue_comment", "new-43", &pr_comment(43, "alice", NEW)).await;
    let before = gh.branch_log(REPO, BRANCH).len();

    // Commands on both PRs, each sent to one replica; then each also to the other.
    let mut sends = Vec::new();
    for n in 0..8u64 {
        let pr = 42 + n % 2;
        let body = format!("/audit veto key-{n} --reason \"case {n}\"");
        sends.push((format!("rep-{n}"), pr_comment(pr, "maint", &body)));
    }
    let first = futures::future::join_all(sends.iter().enumerate().map(|(i, (id, p))| {
        let server = if i % 2 == 0 { &a } else { &b };
        server.deliver("issue_comment", id, p)
    }))
    .await;
    assert!(first.iter().all(|s| *s == Some(200)), "{first:?}");
    // The same deliveries to both at once (two sweeps, or a retrying balancer).
    let twice = futures::future::join_all(sends.iter().flat_map(|(id, p)| {
        [
            a.deliver("issue_comment", id, p),
            b.deliver("issue_comment", id, p),
        ]
    }))
    .await;
    assert!(twice.iter().all(|s| *s == Some(200)), "{twice:?}");

    let log = gh.branch_log(REPO, BRANCH);
    assert_eq!(log.len(), before + 8, "one commit per command: {log:#?}");
    for (n, (id, _)) in sends.iter().enumerate() {
        let audit = if n % 2 == 0 { "AUD-1" } else { "AUD-2" };
        assert_eq!(events_of(&gh, audit, id), 1, "{id}");
    }
    record(&gh, "AUD-1");
    record(&gh, "AUD-2");

    // Replies: the same refusal and the same help to both at once, several times.
    for n in 0..4 {
        let id = format!("reply-{n}");
        let body = if n % 2 == 0 {
            "/audit help"
        } else {
            "/audit veto x --reason \"no\""
        };
        let p = pr_comment(42, "reader", body);
        let (x, y) = tokio::join!(
            a.deliver("issue_comment", &id, &p),
            b.deliver("issue_comment", &id, &p)
        );
        assert_eq!((x, y), (Some(200), Some(200)));
    }
    for n in 0..4 {
        let marker = format!("<!-- auditloop:delivery:reply-{n} -->");
        let replies = gh
            .comments_on(42)
            .into_iter()
            .filter(|c| c.contains(&marker))
            .count();
        assert_eq!(replies, 1, "reply-{n} posted once");
    }
    assert!(gh
        .gate_runs(SHA1)
        .iter()
        .all(|r| r["app"]["slug"] == APP_SLUG));
}
