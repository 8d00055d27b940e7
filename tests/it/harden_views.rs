//! A view never overwrites one computed from a newer records commit, across replicas. The
//! PR body's rounds section names the records commit it was computed from; a replica whose
//! records are older than the body it reads just before patching leaves that body (and the
//! check run) standing. A stamp a user writes, inside the managed section or outside it,
//! never makes the app skip an update it owes.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::audit::{Loop, SHA1};
use support::deliveries::pr_comment;
use support::fake::FakeGitHub;
use support::harness::TestApp;
use support::process::{signal, Server};

const STAMP: &str = "<!-- auditloop:records:";

/// The records commit the body's managed rounds section names.
fn body_stamp(gh: &FakeGitHub) -> Option<String> {
    let body = gh.pull_body(42);
    let at = body.find("<!-- auditloop:rounds:start -->\n")?;
    let rest = body[at..].split_once('\n')?.1;
    rest.strip_prefix(STAMP)
        .map(|s| s.chars().take(40).collect())
}

/// Our newest check run on the head.
fn gate(gh: &FakeGitHub) -> Value {
    gh.gate_runs(SHA1).last().cloned().unwrap_or(Value::Null)
}

async fn status(app: &TestApp, id: &str, payload: &Value) -> u16 {
    app.deliver("issue_comment", id, payload)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_replica_with_older_records_leaves_the_newer_body_and_check_run_standing() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let first = l.head().unwrap();
    assert_eq!(body_stamp(&l.gh).as_deref(), Some(first.as_str()));

    // Replica A (a process) writes its veto, and is frozen the moment its ref update
    // reaches GitHub: its records commit is on the branch, its views not yet published.
    let a = Server::spawn(&l.gh).await;
    let frozen = a.child.clone();
    l.gh.on_next("POST", "/graphql/createCommitOnBranch", move |_| {
        signal(&frozen, "-STOP");
        None
    });
    let veto_a = pr_comment(42, "maint", "/audit veto older-key --reason \"First\"");
    let sent = a.deliver("issue_comment", "veto-a", &veto_a);
    let wait = async {
        for _ in 0..600 {
            if l.head().as_deref() != Some(first.as_str()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("replica A never updated the records branch: {}", a.log());
    };
    let (answer_a, ()) = tokio::join!(sent, async {
        wait.await;
        let after_a = l.head().unwrap();
        // Replica B handles the next command from the newer records, publishes its views,
        // and only then does A go on: A's records are now older than the body it reads.
        let veto_b = pr_comment(42, "maint", "/audit veto newer-key --reason \"Second\"");
        assert_eq!(status(&l.app, "veto-b", &veto_b).await, 200);
        let newest = l.head().unwrap();
        assert_ne!(newest, after_a, "B wrote on top of A");
        assert_eq!(body_stamp(&l.gh).as_deref(), Some(newest.as_str()));
        // A is held long enough that its commit's answer is not taken for the body read
        // just before its patch (a body read back with the commit stands only while fresh).
        tokio::time::sleep(Duration::from_millis(1600)).await;
        signal(&a.child, "-CONT");
    });
    assert_eq!(answer_a, Some(200), "{}", a.log());

    let newest = l.head().unwrap();
    let body = l.gh.pull_body(42);
    let calls: Vec<String> =
        l.gh.requests()
            .iter()
            .filter(|r| r.headers.get("x-github-delivery").map(String::as_str) == Some("veto-a"))
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
    assert!(
        body.contains("newer-key"),
        "the newer body stands: {body}\n{calls:#?}\n{}",
        a.log()
    );
    assert!(body.contains("older-key"), "{body}");
    assert_eq!(body_stamp(&l.gh).as_deref(), Some(newest.as_str()));
    assert_eq!(
        gate(&l.gh)["external_id"],
        json!(newest),
        "the check run computed from the newer records stands"
    );
    assert_eq!(l.events_of("AUD-1", "veto-a"), 1);
    assert_eq!(l.events_of("AUD-1", "veto-b"), 1);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
}

#[tokio::test]
async fn an_edit_handled_from_older_records_leaves_the_newer_body_standing() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let first = l.head().unwrap();
    // Someone edits inside the markers; replica A handles the `edited` event, frozen the
    // moment its first reads reach GitHub (it gets the records commit of then).
    let tampered =
        l.gh.pull_body(42)
            .replace("## Audit rounds", "## Audit rounds\n\nAll fine.");
    l.gh.set_pull_body(42, &tampered);
    let mut edited = support::deliveries::pull_request("edited", 42, SHA1);
    edited["pull_request"]["body"] = json!(tampered);
    edited["sender"]["login"] = json!("alice");
    let a = Server::spawn(&l.gh).await;
    let frozen = a.child.clone();
    l.gh.on_next("POST", "/graphql/repository", move |_| {
        signal(&frozen, "-STOP");
        None
    });
    let sent = a.deliver("pull_request", "edit-a", &edited);
    let (answer_a, ()) = tokio::join!(sent, async {
        for _ in 0..600 {
            let read = l.gh.requests().iter().any(|r| {
                r.path.contains("/graphql/repository")
                    && r.headers.get("x-github-delivery").map(String::as_str) == Some("edit-a")
            });
            if read {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Replica B records a veto and publishes its views before A reads the body.
        let veto = pr_comment(42, "maint", "/audit veto newer-key --reason \"Second\"");
        assert_eq!(status(&l.app, "veto-b", &veto).await, 200);
        assert_ne!(l.head().unwrap(), first);
        signal(&a.child, "-CONT");
    });
    assert_eq!(answer_a, Some(200), "{}", a.log());
    let body = l.gh.pull_body(42);
    assert!(body.contains("newer-key"), "the newer body stands: {body}");
    assert!(!body.contains("All fine."), "{body}");
    assert_eq!(body_stamp(&l.gh), l.head());
    assert_eq!(gate(&l.gh)["external_id"], json!(l.head().unwrap()));
}

#[tokio::test]
async fn a_stamp_a_user_writes_never_stops_the_next_update() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let first = l.head().unwrap();
    let start = "<!-- auditloop:rounds:start -->\n";
    // Inside the managed section, in the stamp's place: commits GitHub does not know (one
    // of them the PR's head SHA) and the branch's own older commit. Outside the section:
    // a stamp in the human text naming the newest commit.
    let forged = ["f".repeat(40), SHA1.to_owned(), first.clone()];
    for (n, fake) in forged.iter().enumerate() {
        let body = l.gh.pull_body(42);
        let (before, after) = body.split_once(start).unwrap();
        let (_, rest) = after.split_once('\n').unwrap();
        // A high event count, so that only GitHub can say the stamp is not newer.
        let edited = format!(
            "{STAMP}{} AUD-1 99 -->\n{before}{start}{STAMP}{fake} AUD-1 99 -->\n{rest}",
            l.head().unwrap()
        );
        l.gh.set_pull_body(42, &edited);
        let key = format!("forged-{n}");
        let veto = pr_comment(42, "maint", &format!("/audit veto {key} --reason \"x\""));
        assert_eq!(status(&l.app, &key, &veto).await, 200);
        let body = l.gh.pull_body(42);
        assert!(body.contains(&key), "{fake}: the body was updated: {body}");
        assert_eq!(body_stamp(&l.gh), l.head(), "{fake}");
        assert_eq!(
            gate(&l.gh)["external_id"],
            json!(l.head().unwrap()),
            "{fake}"
        );
        assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    }
}
