//! A rebind never takes the record back to a head the PR has left. A replica reads the
//! PR's head with its first reads, then rebinds; if another delivery rebinds the record in
//! between (a newer push, handled by the other replica), the commit's compare-and-swap
//! fails, the record is seen rebound under it, and the PR is read again: it has moved on,
//! so the record stays on the newer head. The same holds for `/audit baseline`, and for a
//! push whose second look comes after the PR was read again.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::audit::{Loop, SHA1, SHA2};
use support::deliveries::{pr_comment, pull_request};
use support::process::{signal, Server};

const SHA3: &str = "3333333333333333333333333333333333333333";

fn push(l: &Loop, before: &str, after: &str) -> serde_json::Value {
    let mut payload = pull_request("synchronize", 42, after);
    payload["before"] = json!(before);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    payload
}

#[tokio::test]
async fn a_rebind_that_lost_the_race_to_a_newer_push_leaves_the_record_on_the_newer_head() {
    // Replica A handles the push to SHA2, frozen the moment its first reads reach GitHub:
    // it reads the PR at SHA2 and the records as they are then.
    let (mut l, a) = pushed_with_a_replica().await;
    let first = push(&l, SHA1, SHA2);
    let meanwhile = async |l: &mut Loop| {
        // Meanwhile the PR is pushed again, and replica B rebinds the record to SHA3.
        l.gh.set_pull_head(42, SHA3);
        let newer = push(l, SHA2, SHA3);
        let r = l.app.deliver("pull_request", "push-b", &newer).await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            l.record("AUD-1")["candidate_artifact"],
            format!("commit:{SHA3}")
        );
    };
    let answer_a = frozen_while(&mut l, &a, ("pull_request", "push-a", &first), meanwhile).await;
    assert_eq!(answer_a, Some(200), "{}", a.log());
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA3}"),
        "the record stays on the head the PR has: {}",
        a.log()
    );
}

/// A record on SHA1, its PR pushed to SHA2 (the push's delivery not sent yet), and a
/// second replica, A, beside the loop's own, B.
async fn pushed_with_a_replica() -> (Loop, Server) {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    l.gh.set_pull_head(42, SHA2);
    let a = Server::spawn(&l.gh).await;
    (l, a)
}

/// Runs `a`'s handling of `payload` frozen the moment its first reads reach GitHub, and
/// `meanwhile` while it is frozen; the answer `a` gave.
async fn frozen_while(
    l: &mut Loop,
    a: &Server,
    (event, id, payload): (&str, &str, &serde_json::Value),
    meanwhile: impl AsyncFnOnce(&mut Loop),
) -> Option<u16> {
    let frozen = a.child.clone();
    l.gh.on_next("POST", "/graphql/repository", move |_| {
        signal(&frozen, "-STOP");
        None
    });
    let sent = a.deliver(event, id, payload);
    let (answer, ()) = tokio::join!(sent, async {
        wait_for(l, "/graphql/repository", id).await;
        meanwhile(l).await;
        signal(&a.child, "-CONT");
    });
    answer
}

/// Waits until a request of delivery `id` whose path contains `path` reached the fake.
async fn wait_for(l: &Loop, path: &str, id: &str) {
    for _ in 0..600 {
        let seen = l.gh.requests().iter().any(|r| {
            r.path.contains(path)
                && r.headers.get("x-github-delivery").map(String::as_str) == Some(id)
        });
        if seen {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("delivery {id} never called {path}");
}

fn baseline_comment(l: &Loop) -> serde_json::Value {
    let mut payload = pr_comment(42, "alice", "/audit baseline");
    payload["issue"]["body"] = json!(l.gh.pull_body(42));
    payload
}

#[tokio::test]
async fn a_baseline_that_lost_the_race_to_a_push_leaves_the_record_on_the_pushed_head() {
    // Replica A handles `/audit baseline` typed while the PR was at SHA2, frozen once its
    // first reads have the PR at SHA2 and the record still on SHA1.
    let (mut l, a) = pushed_with_a_replica().await;
    let comment = baseline_comment(&l);
    let answer = frozen_while(
        &mut l,
        &a,
        ("issue_comment", "baseline-a", &comment),
        async |l: &mut Loop| {
            // Meanwhile the PR is pushed again, and replica B rebinds the record to SHA3.
            l.gh.set_pull_head(42, SHA3);
            let r = l
                .app
                .deliver("pull_request", "push-b", &push(l, SHA2, SHA3))
                .await;
            assert_eq!(r.status(), 200);
        },
    )
    .await;
    assert_eq!(answer, Some(200), "{}", a.log());
    let record = l.record("AUD-1");
    assert_eq!(
        record["candidate_artifact"],
        format!("commit:{SHA3}"),
        "the baseline rebinds to the head the PR has, not back to the one it read: {}",
        a.log()
    );
    let bound: Vec<&serde_json::Value> = record["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "baseline")
        .map(|e| &e["candidate_artifact"])
        .collect();
    assert_eq!(bound, [&json!(format!("commit:{SHA3}"))], "{record:#}");
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
}

#[tokio::test]
async fn a_rebind_that_met_a_conflict_looks_again_from_the_head_it_read_not_the_first_one() {
    // Replica A handles the push to SHA2, frozen once its first reads have the record on
    // SHA1; meanwhile replica B's `/audit baseline` rebinds it to SHA2 by hand.
    let (mut l, a) = pushed_with_a_replica().await;
    let first = push(&l, SHA1, SHA2);
    let answer = frozen_while(
        &mut l,
        &a,
        ("pull_request", "push-a", &first),
        async |l: &mut Loop| {
            l.comment(42, "alice", "/audit baseline").await;
            assert_eq!(
                l.record("AUD-1")["candidate_artifact"],
                format!("commit:{SHA2}")
            );
        },
    )
    .await;
    assert_eq!(answer, Some(200), "{}", a.log());
    // A's one commit met the conflict. Its next look, from the head the conflict made it
    // read (checked to extend the records commit its run names), found the record rebound
    // under it; the PR, read again, is still at SHA2: nothing is left to rebind. No second
    // write was sent on the head it had read first.
    let writes: Vec<String> =
        l.gh.requests()
            .iter()
            .filter(|r| r.headers.get("x-github-delivery").map(String::as_str) == Some("push-a"))
            .filter(|r| r.path.contains("/graphql/createCommitOnBranch"))
            .map(|r| r.body.to_string())
            .collect();
    assert_eq!(writes.len(), 1, "{writes:#?} {}", a.log());
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA2}")
    );
    let baselines = l.record("AUD-1")["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "baseline")
        .count();
    assert_eq!(baselines, 1, "only B's baseline moved the record");
}
