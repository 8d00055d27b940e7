//! The composite action (`action.yml`) and the example workflow, run locally with the
//! environment GitHub Actions sets, against the fake GitHub and the real server; and the
//! whole loop with nobody typing: push, CI green, dispatch, auditor, new run.

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::actions::{eval_workflow, workflow_with, Runner, Step};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::checks::check_run;
use support::deliveries::{pr_comment, REPO};
use support::steps::new_command;

use crate::cli_remote::TOKEN;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn workflow() -> String {
    std::fs::read_to_string(format!("{ROOT}/examples/auditor-workflow.yml")).unwrap()
}

/// Runs the action as the example workflow's step does for `dispatch`, with `command` in
/// place of the workflow's when given.
async fn run_action(
    l: &Loop,
    dir: &Path,
    dispatch: &Value,
    command: Option<&str>,
    extra: &[(&str, &str)],
) -> Vec<Step> {
    let mut runner = Runner::new(Path::new(ROOT), dir, &l.gh.api_url(), REPO, TOKEN);
    let payload = dispatch["client_payload"].clone();
    let temp = runner.temp.clone();
    let mut with: Vec<(String, String)> = workflow_with(&workflow())
        .into_iter()
        .map(|(k, v)| (k, eval_workflow(&v, &payload, &temp)))
        .collect();
    if let Some(c) = command {
        with.retain(|(k, _)| k != "command");
        with.push(("command".into(), c.into()));
    }
    with.push(("binary".into(), env!("CARGO_BIN_EXE_auditloop").into()));
    for (k, v) in extra {
        with.push((k.to_string(), v.to_string()));
    }
    tokio::task::spawn_blocking(move || {
        let with: Vec<(&str, &str)> = with.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        runner.run(&with)
    })
    .await
    .unwrap()
}

fn all_ok(steps: &[Step]) {
    for s in steps {
        assert_eq!(s.status, 0, "{}: {}\n{}", s.name, s.stdout, s.stderr);
    }
    assert_eq!(steps.len(), 6, "every step ran");
}

/// The comment the action posted, delivered as its `issue_comment` event by the workflow's
/// bot.
async fn deliver_posted(l: &mut Loop, body: &str) {
    let mut delivery = pr_comment(42, "github-actions[bot]", body);
    delivery["comment"]["user"]["type"] = json!("Bot");
    delivery["sender"] = delivery["comment"]["user"].clone();
    l.deliver("issue_comment", &delivery).await;
}

#[tokio::test]
async fn the_example_workflow_runs_the_placeholder_auditor_and_posts_once() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\npermissions:\n  auditors: [\"github-actions[bot]\"]\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let dispatch = l.gh.dispatches()[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let comments = l.gh.comments_on(42).len();
    let steps = run_action(&l, dir.path(), &dispatch, None, &[]).await;
    // The placeholder audits nothing: the job fails at the auditor step, saying why, and
    // neither validates, signs nor posts a report.
    assert_eq!(steps.len(), 3, "{steps:#?}");
    assert_ne!(steps[2].status, 0);
    assert!(
        steps[2]
            .stdout
            .contains("::error::the auditor did not run: No auditor is configured"),
        "{}",
        steps[2].stdout
    );
    let posted = l.gh.comments_on(42);
    assert_eq!(posted.len(), comments + 1, "one invocation failure");
    let body = posted.last().unwrap().clone();
    assert!(body.contains("AUDIT: ERROR"), "{body}");
    assert!(!body.contains("auditor_report_v1"), "{body}");
    deliver_posted(&mut l, &body).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    let failed = l.last_event();
    assert_eq!(failed["type"], "invocation_failure", "{failed:#}");
    assert_eq!(failed["invocation_ref"], "gha-7001-1");
    assert!(
        l.event_types().iter().all(|t| t != "report"),
        "no run spent"
    );
    assert_eq!(record["audit_state"], "open");
    // The check run names the setup step, not a dispatched run that is still awaited.
    let gate = l.gate(SHA1);
    let summary = gate["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("The auditor could not run on 1111111")
            && summary.contains("Set the command input of its auditloop step to your auditor"),
        "{summary}"
    );
    assert!(!summary.contains("is awaited"), "{summary}");
    assert_ne!(gate["conclusion"], "success");

    // Run 1 posted in between (the auditor ran after all): the failure is not posted.
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.ok("auditor", &report_comment(&r), true).await;
    let dir = tempfile::tempdir().unwrap();
    let steps = run_action(&l, dir.path(), &dispatch, None, &[]).await;
    assert_ne!(steps[2].status, 0);
    assert!(
        steps[2].stdout.contains("run 1 of AUD-1 already exists"),
        "{}",
        steps[2].stdout
    );
    assert_eq!(
        l.gh.comments_on(42).len(),
        comments + 1,
        "nothing more posted"
    );
}

#[tokio::test]
async fn an_auditor_command_that_fails_is_posted_as_an_invocation_failure() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\npermissions:\n  auditors: [\"github-actions[bot]\"]\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let dispatch = l.gh.dispatches()[0].clone();
    let dir = tempfile::tempdir().unwrap();
    // It cannot even see the token the failure is posted with.
    let steps = run_action(
        &l,
        dir.path(),
        &dispatch,
        Some("test -z \"${AUDITLOOP_POST_TOKEN:-}\" && exit 3"),
        &[],
    )
    .await;
    assert_eq!(steps.len(), 3);
    let body = l.gh.comments_on(42).last().unwrap().clone();
    assert!(body.contains("exited with status 3"), "{body}");
    deliver_posted(&mut l, &body).await;
    assert_eq!(l.last_event()["type"], "invocation_failure");
    assert!(
        l.event_types().iter().all(|t| t != "report"),
        "no run spent"
    );
}

#[tokio::test]
async fn the_action_signs_with_a_key_the_operator_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let keygen = std::process::Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .current_dir(dir.path())
        .env_clear()
        .args(["keygen", "--key-id", "ci-auditor-1", "--out", "auditor.key"])
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let trust =
        auditloop::engine::receipt::TrustStore::from_toml(&String::from_utf8_lossy(&keygen.stdout))
            .unwrap();
    let key = std::fs::read_to_string(dir.path().join("auditor.key")).unwrap();
    let mut l = Loop::start_full(
        42,
        trust,
        auditloop::engine::repo_config::Assurance::Hardened,
    )
    .await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", &new_command("")).await;
    let dispatch = l.gh.dispatches()[0].clone();
    let steps = run_action(
        &l,
        dir.path(),
        &dispatch,
        Some(CERTIFYING_AUDITOR),
        &[("signing-key", &key), ("key-id", "ci-auditor-1")],
    )
    .await;
    all_ok(&steps);
    assert!(
        !dir.path()
            .join("runner-temp/auditloop-signing.key")
            .exists(),
        "the key file is removed"
    );
    // The signed report's path is a step output: nothing a later use of the action in this
    // job would read.
    for entry in std::fs::read_dir(dir.path().join("runner-temp")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("GITHUB_ENV-")
        {
            let exported = std::fs::read_to_string(&path).unwrap();
            assert!(!exported.contains("AUDITLOOP_SIGNED"), "{exported}");
        }
    }
    let body = l.gh.comments_on(42).last().unwrap().clone();
    assert!(body.contains("\"receipt\""), "{body}");
    deliver_posted(&mut l, &body).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let run = l.record("AUD-1")["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "report")
        .cloned()
        .unwrap();
    assert_eq!(run["grade"], "authenticated");
}

/// An auditor that certifies the candidate the packet names.
const CERTIFYING_AUDITOR: &str = r#"jq --arg ref "$AUDITLOOP_INVOCATION_REF" '{schema: "auditor_report_v1", audit_id: .report.bind.audit_id, work_unit: .report.bind.work_unit, candidate_artifact: .report.bind.candidate_artifact, covered_tasks: .report.bind.covered_tasks, invocation: {ref: $ref, mode: "explicit_agent_invocation"}, perspectives: {outcome: "A replayed delivery is answered 200 with no second effect.", completeness: "Both webhook routes share the check.", integration: "The check sits in the router before any handler.", engineering_quality: "One small function with a test.", verification: "The redelivery test passes on the candidate.", risk: "Low: the check only drops repeats."}, assessment: ("Finding A-01 of round \(.runs[-1].run) is fixed on this head."), evidence: ["CI test and lint green on the candidate"], verdict: "certified", findings: []}' "$AUDITLOOP_PACKET" > "$AUDITLOOP_REPORT""#;

fn interesting(method: &str, path: &str) -> bool {
    let p = path;
    (method == "POST"
        && (p.ends_with("/dispatches")
            || p.ends_with("/comments")
            || p.ends_with("/check-runs")
            || p.ends_with("/reactions")
            || p.ends_with("/createCommitOnBranch")))
        || (method == "PATCH"
            && (p.contains("/check-runs/") || p.contains("/pulls/") || p.contains("/git/refs/")))
        || (method == "GET" && p.contains("/git/ref/heads/"))
}

#[tokio::test]
async fn a_push_and_green_ci_lead_to_a_new_run_with_nobody_typing() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\nevidence:\n  required_checks: [test, lint]\npermissions:\n  auditors: [\"github-actions[bot]\"]\n",
    );
    for name in ["test", "lint"] {
        l.gh.add_ci_check(SHA1, name, "completed", Some("success"));
    }
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"").await;
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.gh.dispatches().len(), 1, "run 1 was asked on SHA1");

    // From here on nobody types: a push, CI, the auditor workflow.
    let mark = l.gh.requests().len();
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    assert_eq!(l.gh.dispatches().len(), 1, "CI has not run on SHA2");
    l.gh.add_ci_check(SHA2, "test", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA2, Some("success")),
    )
    .await;
    assert_eq!(l.gh.dispatches().len(), 1, "lint still missing");
    l.gh.add_ci_check(SHA2, "lint", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "lint", SHA2, Some("success")),
    )
    .await;
    let dispatches = l.gh.dispatches();
    assert_eq!(dispatches.len(), 2);
    let dispatch = dispatches[1].clone();
    assert_eq!(
        dispatch["client_payload"]["candidate_artifact"],
        format!("commit:{SHA2}")
    );
    assert_eq!(dispatch["client_payload"]["run"], 2);
    assert!(l.gate(SHA2)["output"]["summary"]
        .as_str()
        .unwrap()
        .contains("auditor dispatched at"));

    let dir = tempfile::tempdir().unwrap();
    let steps = run_action(&l, dir.path(), &dispatch, Some(CERTIFYING_AUDITOR), &[]).await;
    all_ok(&steps);
    let body = l.gh.comments_on(42).last().unwrap().clone();
    deliver_posted(&mut l, &body).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));

    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "certified");
    assert_eq!(record["certified_artifact"], format!("commit:{SHA2}"));
    let runs: Vec<&Value> = record["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "report")
        .collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["invocation_ref"], "gha-7001-1");
    let gate = l.gate(SHA2);
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
    assert!(!gate["output"]["summary"]
        .as_str()
        .unwrap()
        .contains("auditor dispatched"));
    let pr_body = l.gh.pull_body(42);
    assert!(
        pr_body.contains("| 2 | [`2222222`]"),
        "round 2 in the PR body: {pr_body}"
    );

    println!(
        "\nThe fake's log from the push on (method, path, the delivery it served or the token):"
    );
    for r in &l.gh.requests()[mark..] {
        if !interesting(&r.method, &r.path) {
            continue;
        }
        let by = match r.headers.get("x-github-delivery") {
            Some(d) => format!("delivery {d}"),
            None if r
                .headers
                .get("authorization")
                .is_some_and(|a| a.ends_with(TOKEN)) =>
            {
                "workflow token".to_owned()
            }
            None => "-".to_owned(),
        };
        println!("{:<6} {:<70} {by}", r.method, r.path);
    }
}
