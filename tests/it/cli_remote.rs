//! `auditloop packet` and `auditloop post` as binaries against the fake GitHub, with a
//! token (docs/reference.md#command-line).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use auditloop::engine::layout::{shard_path, IndexMap};
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::deliveries::{pr_comment, REPO};
use support::steps::new_command;

pub const TOKEN: &str = "ghs_workflowtoken123";
const SHA3: &str = "3333333333333333333333333333333333333333";

/// Runs the binary with only the environment GitHub Actions would give it.
pub async fn auditloop(api_url: &str, dir: &Path, args: &[&str]) -> Output {
    let api_url = api_url.to_owned();
    let dir = dir.to_owned();
    let args: Vec<String> = args.iter().map(std::string::ToString::to_string).collect();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .current_dir(dir)
            .env_clear()
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_API_URL", api_url)
            .args(args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// A run's exit code and both streams, for an assertion's message.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// PR 42 with two runs, a waiver, a filed issue and a veto.
async fn two_runs() -> Loop {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    for body in [
        "/audit waive A-02 --basis triage-threshold --reason \"Cosmetic, below the bar\"",
        "/audit dispose A-01 file --note \"Tracked separately\"",
        "/audit veto webhook-replay --reason \"Replay must be fixed\"",
    ] {
        l.comment(42, "maint", body).await;
    }
    let second = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&second)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

fn find<'a>(findings: &'a Value, id: &str) -> &'a Value {
    findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap()
}

#[tokio::test]
async fn packet_shows_the_runs_and_what_became_of_their_findings() {
    let l = two_runs().await;
    let dir = tempfile::tempdir().unwrap();
    let before = l.gh.requests().len();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["packet", "--repo", REPO, "--pr", "42"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let p: Value = serde_json::from_slice(&out.stdout).unwrap();
    support::schemas::assert_packet(&p);
    assert_eq!(p["schema"], "auditloop_packet_v1");
    assert_eq!(p["audit_id"], "AUD-1");
    assert_eq!(p["goal"], "Refuse replayed webhook deliveries");
    assert_eq!(
        p["completion_oracle"],
        "A replayed delivery id has no second effect"
    );
    assert_eq!(p["evidence"]["text"], "CI run 1 green");
    assert_eq!(p["evidence"]["for_candidate"], true);
    assert_eq!(p["candidate_artifact"], format!("commit:{SHA1}"));
    assert_eq!(p["covered_tasks"], json!(["#12"]));
    assert_eq!(
        p["budget"],
        json!({"audit_budget": 3, "runs_used": 2, "runs_left": 1})
    );
    assert_eq!(p["next_run"], 3);
    assert_eq!(
        p["report"]["schema_url"],
        "https://auditloop.dev/schema/auditor_report_v1.schema.json"
    );
    assert_eq!(
        p["report"]["bind"]["candidate_artifact"],
        format!("commit:{SHA1}")
    );
    assert_eq!(p["records"]["branch"], "auditloop-records");
    assert_eq!(p["records"]["commit"], json!(l.head().unwrap()));

    let runs = p["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["invocation_ref"], "ci-run-1");
    assert_eq!(runs[1]["invocation_ref"], "ci-run-2");
    // Blocking first: A-01 before A-02.
    let ids: Vec<&str> = runs[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["A-01", "A-02"]);
    let a01 = find(&runs[0]["findings"], "A-01");
    // Filed, then vetoed: the veto makes it `fix`, and the filed issue stays linked.
    assert_eq!(a01["disposition"]["kind"], "fix");
    assert_eq!(a01["disposition"]["issue"], 500, "the filed issue: {a01:#}");
    assert_eq!(a01["disposition"]["authority"], "human: maint");
    assert_eq!(a01["vetoed"]["reason"], "Replay must be fixed");
    assert_eq!(
        a01["required_outcome"],
        "A delivery id already handled is answered 200 and has no further effect."
    );
    let a02 = find(&runs[0]["findings"], "A-02");
    assert_eq!(a02["waivers"][0]["basis"], "triage-threshold");
    assert_eq!(a02["waivers"][0]["authority"], "human: maint");
    let latest = find(&runs[1]["findings"], "A-01");
    assert!(
        latest["disposition"].is_null(),
        "a new run starts undecided: {latest:#}"
    );
    assert_eq!(latest["vetoed"]["from_round"], 2);
    assert_eq!(p["vetoes_in_force"][0]["key"], "webhook-replay");
    assert_eq!(runs[1]["limitations"][0]["id"], "L-01");
    assert!(runs[1]["limitations"][0]["authority"].is_string());

    // Nothing beyond the records branch: no delivery ids, no comment links.
    let raw = String::from_utf8_lossy(&out.stdout);
    assert!(
        !raw.contains("\"delivery\"") && !raw.contains("comment_url"),
        "{raw}"
    );
    // Read with the token, through relative routes under the configured base URL.
    let calls: Vec<_> = l.gh.requests()[before..].to_vec();
    assert!(!calls.is_empty());
    for c in &calls {
        let auth = c.headers.get("authorization").cloned().unwrap_or_default();
        assert!(auth.ends_with(TOKEN), "{} {}: {auth}", c.method, c.path);
        // Reads only: REST GETs and the packet's one GraphQL query.
        let read = c.method == "GET" || c.graphql == Some("query");
        assert!(read, "{} {}", c.method, c.path);
    }
}

#[tokio::test]
async fn post_posts_one_report_comment_that_the_server_accepts() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "permissions:\n  auditors: [\"github-actions[bot]\"]\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let r = report("AUD-1", 42, SHA1, "gha-77-1", "needs_remediation");
    std::fs::write(&path, serde_json::to_string_pretty(&r).unwrap()).unwrap();
    let file = path.to_str().unwrap();
    let comments = l.gh.comments_on(42).len();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &[
            "post",
            "--repo",
            REPO,
            "--pr",
            "42",
            "--expect-run",
            "1",
            file,
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let posted = l.gh.comments_on(42);
    assert_eq!(posted.len(), comments + 1);
    let body = posted.last().unwrap().clone();
    assert!(body.starts_with("/audit report\n\n```json\n{"), "{body}");
    assert!(body.ends_with("}\n```\n"), "{body}");

    // The comment's own delivery, by the workflow's bot, is a run.
    let mut delivery = pr_comment(42, "github-actions[bot]", &body);
    delivery["comment"]["user"]["type"] = json!("Bot");
    delivery["sender"] = delivery["comment"]["user"].clone();
    l.deliver("issue_comment", &delivery).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.record("AUD-1")["history"][1]["type"], "report");
    assert_eq!(
        l.record("AUD-1")["history"][1]["invocation_ref"],
        "gha-77-1"
    );

    // A repeated dispatch posts nothing for a run that exists.
    let again = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &[
            "post",
            "--repo",
            REPO,
            "--pr",
            "42",
            "--expect-run",
            "1",
            file,
        ],
    )
    .await;
    assert!(again.status.success(), "{}", text(&again));
    assert!(
        String::from_utf8_lossy(&again.stdout)
            .contains("run 1 of AUD-1 already exists; nothing posted"),
        "{}",
        text(&again)
    );
    assert_eq!(l.gh.comments_on(42).len(), comments + 1, "nothing more");
}

#[tokio::test]
async fn post_refuses_an_invalid_or_oversize_report_and_posts_nothing() {
    let l = Loop::start(42).await;
    let dir = tempfile::tempdir().unwrap();
    let posts = || {
        l.gh.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/comments"))
            .count()
    };

    // The same problems, worded as `validate` words them.
    let mut bad = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    bad["assessment"] = json!("TBD");
    bad["surprise"] = json!(true);
    let path = dir.path().join("bad.json");
    std::fs::write(&path, bad.to_string()).unwrap();
    let file = path.to_str().unwrap();
    let post = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["post", "--repo", REPO, "--pr", "42", file],
    )
    .await;
    let validate = auditloop(&l.gh.api_url(), dir.path(), &["validate", file]).await;
    assert_eq!(post.status.code(), Some(1), "{}", text(&post));
    assert_eq!(post.stdout, validate.stdout);
    assert!(!post.stdout.is_empty());

    // Over GitHub's comment limit, saying by how much.
    let mut big = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    // Each text within the schema's 20,000, the whole over the comment limit.
    for p in [
        "outcome",
        "completeness",
        "integration",
        "engineering_quality",
        "verification",
        "risk",
    ] {
        big["perspectives"][p] = json!(format!("{p}: {}", "y".repeat(11_000)));
    }
    let path = dir.path().join("big.json");
    std::fs::write(&path, serde_json::to_string(&big).unwrap()).unwrap();
    let text_len = support::audit::report_comment(&big).len();
    let body = auditloop::remote::post::comment_body(&std::fs::read_to_string(&path).unwrap());
    let over = body.chars().count() - 65_536;
    assert!(text_len > 65_536);
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["post", "--repo", REPO, "--pr", "42", path.to_str().unwrap()],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{over} over GitHub's limit of 65,536")),
        "{}",
        text(&out)
    );
    assert!(err.contains("nothing was posted"), "{err}");
    assert_eq!(posts(), 0, "nothing posted");

    // No token: a usage error, no call.
    let requests = l.gh.requests().len();
    let good = dir.path().join("good.json");
    std::fs::write(
        &good,
        report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation").to_string(),
    )
    .unwrap();
    let out = tokio::task::spawn_blocking({
        let good = good.clone();
        move || {
            Command::new(env!("CARGO_BIN_EXE_auditloop"))
                .env_clear()
                .args(["post", "--repo", REPO, "--pr", "42", good.to_str().unwrap()])
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("GITHUB_TOKEN"),
        "{}",
        text(&out)
    );
    assert_eq!(l.gh.requests().len(), requests);
}

/// The auditor's side reads a PR's record as the app does: an index that maps this PR to
/// another PR's record is damage, named, not a packet of the wrong record.
#[tokio::test]
async fn packet_refuses_an_index_that_maps_the_pr_to_another_prs_record() {
    let mut l = two_runs().await;
    l.gh.add_pull(43, SHA3, "Logs delivery ids.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 43, SHA3).await;
    l.comment(43, "alice", &new_command("")).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    assert_eq!(l.index()["pulls"]["43"], "AUD-2");
    // The pulls shard that holds #42 (layout version 2) is edited by hand.
    let shard = shard_path(IndexMap::Pulls, "42");
    let mut pulls: Value = serde_json::from_str(&l.files()[&shard]).unwrap();
    pulls["42"] = json!("AUD-2");
    l.gh.commit_files(
        REPO,
        support::audit::BRANCH,
        &[(&shard, &pulls.to_string())],
        "hand edit",
    );
    assert_eq!(l.index()["pulls"]["42"], "AUD-2");
    let dir = tempfile::tempdir().unwrap();
    let out = auditloop(
        &l.gh.api_url(),
        dir.path(),
        &["packet", "--repo", REPO, "--pr", "42"],
    )
    .await;
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "index.json disagrees with the records: it maps #42 to AUD-2, which is bound to #43"
        ),
        "{}",
        text(&out)
    );
    assert!(out.stdout.is_empty(), "{}", text(&out));
}
