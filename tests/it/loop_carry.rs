//! Identical content keeps its certification: a new head whose git tree is the certified
//! candidate's (an amended message, a squash, a re-signed commit) carries the
//! certification, spends no run, and still needs the required checks on the new commit.
//! One byte of difference, a base change, other tasks (asked for, or closed by the PR body)
//! or `carry_certification: never` rebind as before.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, BRANCH};
use support::checks::check_run;
use support::deliveries::REPO;

const FEATURE: &str = "feature";

/// A commit of the PR's branch holding `files`, as a push would leave it.
fn push_commit(l: &Loop, files: &[(&str, &str)], message: &str) -> String {
    l.gh.commit_files(REPO, FEATURE, files, message)
}

const FILES: &[(&str, &str)] = &[
    ("src/webhook.rs", "fn verify() {}\n"),
    ("README.md", "# hello\n"),
];

/// PR 42 on commit A (a real commit of the fake), record AUD-1 certified on A; `config`
/// is the repository configuration.
async fn certified_on_a(config: &str) -> (Loop, String) {
    let mut l = Loop::start(42).await;
    if !config.is_empty() {
        l.gh.set_file(".github/auditloop.yml", config);
    }
    let a = push_commit(&l, FILES, "Add replay protection");
    l.gh.set_pull_head(42, &a);
    l.pull_event("opened", 42, &a).await;
    l.new_record(42).await;
    // A report waits for the required checks on its candidate.
    if config.contains("required_checks: [test]") {
        l.gh.add_ci_check(&a, "test", "completed", Some("success"));
    }
    let certified = report("AUD-1", 42, &a, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&certified)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    (l, a)
}

async fn push(l: &mut Loop, sha: &str) {
    l.gh.set_pull_head(42, sha);
    l.pull_event("synchronize", 42, sha).await;
}

fn last_event(l: &Loop) -> Value {
    l.record("AUD-1")["history"]
        .as_array()
        .and_then(|h| h.last().cloned())
        .unwrap_or(Value::Null)
}

fn reports(l: &Loop) -> usize {
    l.record("AUD-1")["history"]
        .as_array()
        .map_or(0, |h| h.iter().filter(|e| e["type"] == "report").count())
}

fn summary(gate: &Value) -> String {
    gate["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Comparisons of `base` with `head`: how the trees are compared.
fn comparisons(l: &Loop, base: &str, head: &str) -> usize {
    l.gh.requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with(&format!("/compare/{base}...{head}")))
        .count()
}

#[tokio::test]
async fn an_identical_tree_keeps_the_certification_and_spends_no_run() {
    let (mut l, a) = certified_on_a("").await;
    // The message is amended: a new commit, the same tree.
    let b = push_commit(&l, FILES, "Add replay protection (reworded)");
    assert_ne!(a, b);
    push(&mut l, &b).await;

    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "certified", "{record:#}");
    assert_eq!(record["candidate_artifact"], json!(format!("commit:{b}")));
    assert_eq!(record["certified_artifact"], json!(format!("commit:{b}")));
    let event = last_event(&l);
    assert_eq!(event["type"], "baseline", "{event:#}");
    assert_eq!(event["carried_from"], json!(format!("commit:{a}")));
    assert_eq!(event["reason"], "identical_tree");
    assert_eq!(reports(&l), 1, "no run spent");

    let gate = l.gate(&b);
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
    let words = format!("certification carried from {} (identical tree)", &a[..7]);
    assert!(summary(&gate).contains(&words), "{}", summary(&gate));
    assert!(
        l.gh.pull_body(42).contains(&words),
        "{}",
        l.gh.pull_body(42)
    );
    assert!(
        l.log()[0].contains("Carry the certification"),
        "{:?}",
        l.log()
    );
    assert_eq!(comparisons(&l, &a, &b), 1, "one call compares the trees");

    // Carried once more: still the one run backs it.
    let c = push_commit(&l, FILES, "Add replay protection (signed)");
    push(&mut l, &c).await;
    assert_eq!(l.gate(&c)["conclusion"], "success", "{:#}", l.gate(&c));
    assert_eq!(reports(&l), 1);
}

#[tokio::test]
async fn a_carried_certification_still_waits_for_the_required_checks_on_the_new_head() {
    let (mut l, a) = certified_on_a("evidence:\n  required_checks: [test]\n").await;
    l.gh.add_ci_check(&a, "test", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "test", &a, Some("success")),
    )
    .await;
    assert_eq!(l.gate(&a)["conclusion"], "success", "{:#}", l.gate(&a));

    let b = push_commit(&l, FILES, "Squashed");
    push(&mut l, &b).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    let gate = l.gate(&b);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    assert!(summary(&gate).contains("test"), "{}", summary(&gate));

    l.gh.add_ci_check(&b, "test", "completed", Some("success"));
    l.deliver(
        "check_run",
        &check_run("completed", "test", &b, Some("success")),
    )
    .await;
    assert_eq!(l.gate(&b)["conclusion"], "success", "{:#}", l.gate(&b));
    assert_eq!(reports(&l), 1);
}

#[tokio::test]
async fn one_byte_of_difference_rebinds_and_the_certification_is_stale() {
    let (mut l, _) = certified_on_a("").await;
    let b = push_commit(&l, &[("src/webhook.rs", "fn verify() { }\n")], "One space");
    push(&mut l, &b).await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open", "{record:#}");
    assert_eq!(record["certified_artifact"], Value::Null);
    let event = last_event(&l);
    assert_eq!(event["type"], "baseline");
    assert!(event.get("carried_from").is_none(), "{event:#}");
    assert_eq!(l.gate(&b)["conclusion"], "failure");
}

#[tokio::test]
async fn an_identical_tree_under_a_body_that_now_closes_another_task_rebinds() {
    let (mut l, _) = certified_on_a("").await;
    // The description now also closes #41, which the record does not cover.
    let body =
        l.gh.pull_body(42)
            .replace("Closes #12", "Closes #12\nCloses #41");
    l.gh.set_pull_body(42, &body);
    let b = push_commit(&l, FILES, "Reworded");
    push(&mut l, &b).await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open", "{record:#}");
    assert_eq!(record["certified_artifact"], Value::Null);
    let event = last_event(&l);
    assert_eq!(event["type"], "baseline");
    assert!(event.get("carried_from").is_none(), "{event:#}");
    assert!(event.get("reason").is_none(), "{event:#}");
    assert_eq!(l.gate(&b)["conclusion"], "failure");
    assert_eq!(reports(&l), 1);
}

#[tokio::test]
async fn never_rebinds_an_identical_tree_and_reads_no_tree() {
    let (mut l, a) = certified_on_a("carry_certification: never\n").await;
    let b = push_commit(&l, FILES, "Reworded");
    push(&mut l, &b).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "open");
    assert_eq!(comparisons(&l, &a, &b), 0);
}

#[tokio::test]
async fn a_base_change_rebinds_even_on_the_same_tree() {
    let (mut l, a) = certified_on_a("").await;
    let b = push_commit(&l, FILES, "Reworded");
    push(&mut l, &b).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    let mut edited = support::deliveries::pull_request("edited", 42, &b);
    edited["pull_request"]["body"] = json!(l.gh.pull_body(42));
    edited["changes"] = json!({"base": {"ref": {"from": "develop"}, "sha": {"from": a}}});
    l.deliver("pull_request", &edited).await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open", "{record:#}");
    assert_eq!(last_event(&l)["cause"], "base_change");
}

#[tokio::test]
async fn an_uncertified_record_is_rebound_not_carried_and_reads_no_tree() {
    let mut l = Loop::start(42).await;
    let a = push_commit(&l, FILES, "First");
    l.gh.set_pull_head(42, &a);
    l.pull_event("opened", 42, &a).await;
    l.new_record(42).await;
    let first = report("AUD-1", 42, &a, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    let b = push_commit(&l, FILES, "Reworded");
    push(&mut l, &b).await;
    let event = last_event(&l);
    assert_eq!(event["type"], "baseline");
    assert!(event.get("carried_from").is_none(), "{event:#}");
    assert_eq!(l.record("AUD-1")["audit_state"], "open");
    assert_eq!(comparisons(&l, &a, &b), 0);
    assert!(l.gh.branch_head(REPO, BRANCH).is_some());
}
