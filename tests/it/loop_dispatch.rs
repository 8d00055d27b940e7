//! The app starts the auditor itself (docs/reference.md#driving-the-loop): `repository_dispatch` when a record
//! becomes ready for a fresh run, recorded as a `dispatch` event, once per candidate and
//! run, and never when the record cannot take a report.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::checks::check_run;
use support::layouts::record_file;
use support::steps::{asks_human, new_command};

pub const DISPATCH: &str = "auditor:\n  dispatch: repository_dispatch\n";
pub const WITH_CHECKS: &str =
    "auditor:\n  dispatch: repository_dispatch\nevidence:\n  required_checks: [test, lint]\n";

pub async fn start(config: &str) -> Loop {
    let l = Loop::start(42).await;
    l.gh.set_file(".github/auditloop.yml", config);
    l.gh.set_permission("maint", "maintain");
    l
}

/// A command carried out (a +1, no refusal); it may also commit a dispatch.
pub async fn carried(l: &mut Loop, login: &str, body: &str, _commits: bool) {
    let before = l.reactions();
    l.comment(42, login, body).await;
    assert!(l.refusals(42).is_empty(), "{body}: {:?}", l.refusals(42));
    assert_eq!(l.reactions(), before + 1, "{body}: a +1");
}

/// `(candidate sha, run)` of every dispatch GitHub accepted.
pub fn asked(l: &Loop) -> Vec<(String, u64)> {
    l.gh.dispatches()
        .iter()
        .map(|d| {
            let p = &d["client_payload"];
            (
                p["candidate_artifact"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_start_matches("commit:")
                    .to_owned(),
                p["run"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

pub fn dispatch_events(l: &Loop) -> Vec<Value> {
    l.history("AUD-1")
        .into_iter()
        .filter(|e| e["type"] == "dispatch")
        .collect()
}

fn summary(l: &Loop, sha: &str) -> String {
    l.gate(sha)["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn new_with_evidence_dispatches_run_1_with_the_reference_payload() {
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    assert!(l.gh.dispatches().is_empty(), "nothing before a record");
    carried(&mut l, "alice", &new_command(""), true).await;
    let sent = l.gh.dispatches();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert_eq!(sent[0]["event_type"], "auditloop-audit");
    let head = l.head().unwrap();
    let events = dispatch_events(&l);
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e["candidate_artifact"], format!("commit:{SHA1}"));
    assert_eq!(e["run"], 1);
    // The payload names the records commit the record was judged ready on: the one that
    // created it, the parent of the commit that records the dispatch.
    let log = l.log();
    assert!(
        log[0].starts_with("Dispatch the auditor for run 1"),
        "{log:#?}"
    );
    let payload = &sent[0]["client_payload"];
    assert_eq!(
        payload,
        &json!({
            "audit_id": "AUD-1", "pull_request": 42, "candidate_artifact": format!("commit:{SHA1}"),
            "covered_tasks": ["#12"], "run": 1, "records_branch": "auditloop-records",
            "records_commit": e["records_commit"], "packet_path": record_file("AUD-1")
        })
    );
    assert_ne!(
        e["records_commit"],
        json!(head),
        "judged before the dispatch commit"
    );
    assert!(e["records_commit"].is_string());
    assert_eq!(l.gate(SHA1)["external_id"], json!(head));
    let s = summary(&l, SHA1);
    assert!(
        s.contains("Run 1 on 1111111 is awaited: auditor dispatched at "),
        "{s}"
    );

    // The report of that run ends the wait, and dispatches nothing more on its candidate.
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    carried(&mut l, "auditor", &report_comment(&r), true).await;
    assert_eq!(l.gh.dispatches().len(), 1, "a report on the same candidate");
    assert!(!summary(&l, SHA1).contains("auditor dispatched"));
    // Neither status nor gate starts the auditor, though run 2 could be taken.
    l.comment(42, "reader", "/audit status").await;
    assert!(l.last_reply(42).starts_with("auditloop: status"));
    l.comment(42, "reader", "/audit gate").await;
    assert_eq!(l.gh.dispatches().len(), 1, "status and gate");
}

#[tokio::test]
async fn nothing_is_dispatched_without_the_setting() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command(""), true).await;
    assert!(l.gh.dispatches().is_empty());
    assert!(dispatch_events(&l).is_empty());
}

#[tokio::test]
async fn a_push_without_evidence_waits_and_baseline_evidence_dispatches() {
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command(""), true).await;
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA2}")
    );
    assert_eq!(
        asked(&l),
        vec![(SHA1.to_owned(), 1)],
        "no evidence for SHA2 yet"
    );
    carried(
        &mut l,
        "alice",
        "/audit baseline --evidence \"CI run 2 green on the new head\"",
        true,
    )
    .await;
    assert_eq!(
        asked(&l),
        vec![(SHA1.to_owned(), 1), (SHA2.to_owned(), 1)],
        "run 1 is asked again for the new candidate"
    );
    assert!(summary(&l, SHA2).contains("auditor dispatched at"));
}

#[tokio::test]
async fn adopt_and_resolve_dispatch() {
    // adopt: the record of a PR closed unmerged moves to a PR whose CI is green.
    let mut l = start(WITH_CHECKS).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l,
        "alice",
        "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"",
        true,
    )
    .await;
    assert!(l.gh.dispatches().is_empty(), "no CI on SHA1 yet");
    l.gh.close_pull(42, false);
    l.gh.add_pull(43, SHA2, "Another take.\n\nCloses #12\n", "alice");
    for name in ["test", "lint"] {
        l.gh.add_ci_check(SHA2, name, "completed", Some("success"));
    }
    l.pull_event("opened", 43, SHA2).await;
    l.comment(43, "maint", "/audit adopt AUD-1").await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    assert_eq!(asked(&l), vec![(SHA2.to_owned(), 1)]);
    assert_eq!(l.gh.dispatches()[0]["client_payload"]["pull_request"], 43);

    // resolve: a human answers the decision run 1 asked for; run 2 is asked on the same
    // candidate. The report that asked dispatched nothing.
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command(""), true).await;
    carried(
        &mut l,
        "auditor",
        &report_comment(&asks_human("ci-run-1")),
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "awaiting_human");
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)]);
    carried(
        &mut l,
        "maint",
        "/audit resolve --note \"Proceed without GHES\"",
        true,
    )
    .await;
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1), (SHA1.to_owned(), 2)]);
}

/// The record with run 1 (`needs_remediation`) on SHA1 under required checks, then a push
/// to SHA2 whose CI has not run yet.
async fn pushed_with_checks() -> Loop {
    let mut l = start(WITH_CHECKS).await;
    for name in ["test", "lint"] {
        l.gh.add_ci_check(SHA1, name, "completed", Some("success"));
    }
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l,
        "alice",
        "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"",
        true,
    )
    .await;
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "CI already green");
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    carried(&mut l, "auditor", &report_comment(&r), true).await;
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    assert_eq!(asked(&l).len(), 1, "the push: CI has not run on SHA2");
    l
}

#[tokio::test]
async fn the_check_run_that_completes_the_required_checks_dispatches_once() {
    let mut l = pushed_with_checks().await;
    l.gh.add_ci_check(SHA2, "test", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA2, Some("success")),
    )
    .await;
    assert_eq!(asked(&l).len(), 1, "lint has not run");
    l.gh.add_ci_check(SHA2, "lint", "completed", Some("failure"));
    l.deliver(
        "check_run",
        &check_run("completed", "lint", SHA2, Some("failure")),
    )
    .await;
    assert_eq!(asked(&l).len(), 1, "a red required check");
    l.gh.add_ci_check(SHA2, "lint", "completed", Some("success"));
    let completing = check_run("completed", "lint", SHA2, Some("success"));
    let id = l.deliver("check_run", &completing).await;
    assert_eq!(asked(&l)[1..], [(SHA2.to_owned(), 2)]);
    assert!(summary(&l, SHA2).contains("Run 2 on 2222222 is awaited"));
    // Its redelivery, and a later re-run of a check, ask nothing more.
    let r = l.app.deliver("check_run", &id, &completing).await;
    assert_eq!(r.status(), 200);
    l.deliver(
        "check_run",
        &check_run("completed", "test", SHA2, Some("success")),
    )
    .await;
    assert_eq!(asked(&l).len(), 2);
    assert_eq!(dispatch_events(&l).len(), 2);
}

#[tokio::test]
async fn nothing_is_dispatched_when_the_record_cannot_take_a_report() {
    // blocked: a budget of 1 spent; a new head with evidence changes nothing.
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command("--budget 1"), true).await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    carried(&mut l, "auditor", &report_comment(&r), true).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "blocked");
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    carried(
        &mut l,
        "alice",
        "/audit baseline --evidence \"CI green on SHA2\"",
        true,
    )
    .await;
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "blocked");

    // awaiting a human: a rebind with evidence waits for the answer.
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command(""), true).await;
    carried(
        &mut l,
        "auditor",
        &report_comment(&asks_human("ci-run-1")),
        true,
    )
    .await;
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    carried(
        &mut l,
        "alice",
        "/audit baseline --evidence \"CI green on SHA2\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "awaiting_human");
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "awaiting");

    // spent: resolving the last run's decision with the budget used up blocks the record.
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command("--budget 1"), true).await;
    carried(
        &mut l,
        "auditor",
        &report_comment(&asks_human("ci-run-1")),
        true,
    )
    .await;
    carried(
        &mut l,
        "maint",
        "/audit resolve --note \"Out of runs\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "blocked");
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "spent");

    // certified: new evidence for the same head keeps the certification.
    let mut l = start(DISPATCH).await;
    l.pull_event("opened", 42, SHA1).await;
    carried(&mut l, "alice", &new_command(""), true).await;
    let c = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    carried(&mut l, "auditor", &report_comment(&c), true).await;
    carried(
        &mut l,
        "alice",
        "/audit baseline --evidence \"CI re-run green\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "certified");
    assert_eq!(dispatch_events(&l).len(), 1);
}
