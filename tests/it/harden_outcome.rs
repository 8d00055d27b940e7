//! One delivery, one outcome, on the PR's current head. A pull-request event rebinds the
//! record to the head the PR has now, so an old push delivered late changes nothing; and a
//! command is refused or carried out by one handling only, whichever replica or
//! redelivery handles it, even when they read the records at different moments.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, BRANCH, SHA1, SHA2};
use support::deliveries::{pr_comment, pull_request};
use support::process::{signal, Server};

const SHA3: &str = "3333333333333333333333333333333333333333";

/// Accepted reports in AUD-1's history.
fn reports(l: &Loop) -> usize {
    l.history("AUD-1")
        .iter()
        .filter(|e| e["type"] == "report")
        .count()
}

/// The record's candidate, as `commit:<sha>`.
fn candidate(l: &Loop) -> Value {
    l.record("AUD-1")["candidate_artifact"].clone()
}

fn push(l: &Loop, action: &str, sha: &str) -> Value {
    let mut payload = pull_request(action, 42, sha);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    payload
}

#[tokio::test]
async fn an_old_push_delivered_after_a_newer_one_leaves_the_record_on_the_pr_head() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    // Two pushes: the first one's delivery goes unanswered (its replica died), the second
    // is handled.
    l.gh.set_pull_head(42, SHA2);
    let late = push(&l, "synchronize", SHA2);
    l.gh.set_pull_head(42, SHA3);
    l.pull_event("synchronize", 42, SHA3).await;
    assert_eq!(candidate(&l), json!(format!("commit:{SHA3}")));
    let commits = l.log_len();
    let gate = l.gate(SHA3);

    // The first push's delivery arrives at last.
    let r = l.app.deliver("pull_request", "late-push", &late).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(
        candidate(&l),
        json!(format!("commit:{SHA3}")),
        "rebound to an old head"
    );
    assert_eq!(l.log_len(), commits, "{:#?}", l.log());
    assert!(
        l.gh.gate_runs(SHA2).is_empty(),
        "a run on a commit that is not the head"
    );
    // The head's own run stands, as it was.
    let runs = l.gh.gate_runs(SHA3);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(l.gate(SHA3)["conclusion"], gate["conclusion"]);
    assert_eq!(l.gate(SHA3)["external_id"], gate["external_id"]);

    // A report on the old commit is refused as stale: no run is spent on it.
    let stale = report("AUD-1", 42, SHA2, "ci-run-late", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&stale)).await;
    assert_eq!(l.refusals(42).len(), 1, "{:?}", l.refusals(42));
    assert_eq!(reports(&l), 0);
}

#[tokio::test]
async fn a_late_reopen_or_base_change_of_an_old_head_changes_nothing() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.gh.set_pull_head(42, SHA3);
    l.pull_event("synchronize", 42, SHA3).await;
    let commits = l.log_len();

    let reopen = push(&l, "reopened", SHA2);
    let r = l.app.deliver("pull_request", "late-reopen", &reopen).await;
    assert_eq!(r.status(), 200);
    let mut base = push(&l, "edited", SHA2);
    base["changes"] = json!({"base": {"ref": {"from": "develop"}, "sha": {"from": SHA1}}});
    let r = l.app.deliver("pull_request", "late-base", &base).await;
    assert_eq!(r.status(), 200);

    assert_eq!(candidate(&l), json!(format!("commit:{SHA3}")));
    assert_eq!(l.log_len(), commits, "{:#?}", l.log());
    assert!(l.gh.gate_runs(SHA2).is_empty());
}

/// PR 42 with AUD-1 and run 1 (findings ), and the `/audit waive A-03`
/// comment that run 1 cannot take but run 2 can.
async fn waive_before_its_finding() -> (Loop, Value) {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let waive = pr_comment(
        42,
        "maint",
        "/audit waive A-03 --basis triage-threshold --reason \"Below the bar\"",
    );
    (l, waive)
}

/// Run 2, which reports finding A-03.
async fn report_a_03(l: &mut Loop) {
    let mut second = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    let mut extra = second["findings"][0].clone();
    extra["id"] = json!("A-03");
    extra["key"] = json!("cosmetic-wording");
    second["findings"].as_array_mut().unwrap().push(extra);
    l.comment(42, "auditor", &report_comment(&second)).await;
    assert_eq!(reports(l), 2, "{:?}", l.refusals(42));
}

fn outcome(l: &Loop, id: &str) -> (usize, usize) {
    (l.replies_for(42, id), l.events_of("AUD-1", id))
}

#[tokio::test]
async fn a_refused_command_redelivered_to_another_replica_after_the_state_changed_stays_refused() {
    let (mut l, waive) = waive_before_its_finding().await;
    let r = l.app.deliver("issue_comment", "waive-1", &waive).await;
    assert_eq!(r.status(), 200);
    assert_eq!(outcome(&l, "waive-1"), (1, 0), "refused: run 1 has no A-03");
    report_a_03(&mut l).await;
    let reactions = l.reactions();

    // The same delivery again, to a replica that never saw it, on records that could now
    // take it: it was decided already.
    let other = Server::spawn(&l.gh).await;
    assert_eq!(
        other.deliver("issue_comment", "waive-1", &waive).await,
        Some(200)
    );
    assert_eq!(outcome(&l, "waive-1"), (1, 0), "{}", other.log());
    assert_eq!(l.reactions(), reactions, "no +1 for a refused command");
}

#[tokio::test]
async fn the_same_command_on_two_replicas_reading_the_records_apart_has_one_outcome() {
    let (mut l, waive) = waive_before_its_finding().await;
    let a = Server::spawn(&l.gh).await;
    let b = Server::spawn(&l.gh).await;
    // Replica A reads the records branch before run 2 lands, and is frozen the moment it
    // does; replica B gets the same delivery after run 2, and A goes on while B handles it.
    let frozen = a.child.clone();
    l.gh.on_next("GET", &format!("/git/ref/heads/{BRANCH}"), move |_| {
        signal(&frozen, "-STOP");
        None
    });
    let sent_a = a.deliver("issue_comment", "waive-2", &waive);
    let later = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        report_a_03(&mut l).await;
        let sent_b = b.deliver("issue_comment", "waive-2", &waive);
        let resume = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            signal(&a.child, "-CONT");
        };
        futures::join!(sent_b, resume).0
    };
    let (status_a, status_b) = futures::join!(sent_a, later);
    assert_eq!((status_a, status_b), (Some(200), Some(200)));
    let (replies, events) = outcome(&l, "waive-2");
    assert_eq!(
        replies + events,
        1,
        "refused {replies} times and carried out {events} times:\nA:\n{}\nB:\n{}",
        a.log(),
        b.log()
    );
}
