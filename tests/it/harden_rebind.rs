//! A push's rebind never takes the record back to a head the PR has left. A replica reads
//! the PR's head with its first reads, then rebinds; if another delivery rebinds the record
//! in between (a newer push, handled by the other replica), the commit's compare-and-swap
//! fails, the record is seen rebound under it, and the PR is read again: it has moved on,
//! so the record stays on the newer head.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::audit::{Loop, SHA1, SHA2};
use support::deliveries::pull_request;
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
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    // Replica A handles the push to SHA2, frozen the moment its first reads reach GitHub:
    // it reads the PR at SHA2 and the records as they are then.
    l.gh.set_pull_head(42, SHA2);
    let a = Server::spawn(&l.gh).await;
    let frozen = a.child.clone();
    l.gh.on_next("POST", "/graphql/repository", move |_| {
        signal(&frozen, "-STOP");
        None
    });
    let first = push(&l, SHA1, SHA2);
    let sent = a.deliver("pull_request", "push-a", &first);
    let (answer_a, ()) = tokio::join!(sent, async {
        for _ in 0..600 {
            let read = l.gh.requests().iter().any(|r| {
                r.path.contains("/graphql/repository")
                    && r.headers.get("x-github-delivery").map(String::as_str) == Some("push-a")
            });
            if read {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Meanwhile the PR is pushed again, and replica B rebinds the record to SHA3.
        l.gh.set_pull_head(42, SHA3);
        let newer = push(&l, SHA2, SHA3);
        let r = l.app.deliver("pull_request", "push-b", &newer).await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            l.record("AUD-1")["candidate_artifact"],
            format!("commit:{SHA3}")
        );
        signal(&a.child, "-CONT");
    });
    assert_eq!(answer_a, Some(200), "{}", a.log());
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA3}"),
        "the record stays on the head the PR has: {}",
        a.log()
    );
}
