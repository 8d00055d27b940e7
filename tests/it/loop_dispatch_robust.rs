//! A dispatch is asked once per candidate and run (docs/reference.md#when-the-app-dispatches) across redeliveries,
//! a crash between the records commit and the dispatch call, a refused dispatch, and two
//! replicas; and what it costs in GitHub calls.

use crate::support;

use std::collections::BTreeMap;

use support::audit::{Loop, SHA1};
use support::checks::check_run;
use support::deliveries::pr_comment;
use support::harness::TestApp;
use support::steps::new_command;

use crate::loop_dispatch::{asked, dispatch_events, start, DISPATCH, WITH_CHECKS};

#[tokio::test]
async fn a_redelivered_command_dispatches_once() {
    let l = start(DISPATCH).await;
    let body = new_command("");
    assert_eq!(l.comment_as("new-1", 42, "alice", &body).await, 200);
    assert_eq!(l.comment_as("new-1", 42, "alice", &body).await, 200);
    // A restarted server has forgotten the delivery id; the history has not.
    let restarted = TestApp::start(&l.gh).await;
    let r = restarted
        .deliver("issue_comment", "new-1", &pr_comment(42, "alice", &body))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)]);
    assert_eq!(dispatch_events(&l).len(), 1);
}

#[tokio::test]
async fn a_crash_after_the_dispatch_commit_is_completed_by_the_redelivery() {
    // The process dies after committing the dispatch event and before GitHub gets the
    // request: the delivery failed (here GitHub never receiving it is what the fake
    // shows), and a restarted process handles its redelivery.
    let l = start(DISPATCH).await;
    let body = new_command("");
    l.gh.fail_next("POST", "/dispatches", 500, &[]);
    let status = l.comment_as("crash-1", 42, "alice", &body).await;
    assert!((500..600).contains(&status), "{status}");
    assert_eq!(dispatch_events(&l).len(), 1, "recorded before the call");
    assert!(l.gh.dispatches().is_empty(), "nothing reached GitHub");
    let commits = l.log().len();

    let restarted = TestApp::start(&l.gh).await;
    let r = restarted
        .deliver("issue_comment", "crash-1", &pr_comment(42, "alice", &body))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(
        asked(&l),
        vec![(SHA1.to_owned(), 1)],
        "sent once, by the redelivery"
    );
    assert_eq!(dispatch_events(&l).len(), 1);
    assert_eq!(l.log().len(), commits, "nothing written again");
    // Any later event on the PR leaves it alone: the dispatch is this delivery's.
    let r = restarted
        .deliver("issue_comment", "crash-1", &pr_comment(42, "alice", &body))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(asked(&l).len(), 1);
}

#[tokio::test]
async fn a_refused_dispatch_answers_5xx_and_its_redelivery_dispatches_once() {
    for status in [404, 422, 500, 503] {
        let l = start(DISPATCH).await;
        let body = new_command("");
        l.gh.fail_next("POST", "/dispatches", status, &[]);
        let answer = l.comment_as("refused-1", 42, "alice", &body).await;
        assert!(
            (500..600).contains(&answer),
            "GitHub {status}: answered {answer}"
        );
        assert!(l.gh.dispatches().is_empty());
        assert!(l.refusals(42).is_empty(), "not the user's mistake");
        let answer = l.comment_as("refused-1", 42, "alice", &body).await;
        assert_eq!(answer, 200, "GitHub {status}: the redelivery");
        assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)], "GitHub {status}");
        assert_eq!(dispatch_events(&l).len(), 1);
        assert_eq!(l.events_of("AUD-1", "refused-1"), 2, "created and dispatch");
    }
}

#[tokio::test]
async fn a_lost_dispatch_answer_is_sent_again_and_recorded_once() {
    // GitHub took the request but its answer was lost: the delivery cannot know, so its
    // redelivery asks again. `post --expect-run` keeps that from spending a second run.
    let l = start(DISPATCH).await;
    let body = new_command("");
    l.gh.lose_next_answer("POST", "/dispatches");
    let answer = l.comment_as("lost-1", 42, "alice", &body).await;
    assert!((500..600).contains(&answer), "{answer}");
    assert_eq!(l.comment_as("lost-1", 42, "alice", &body).await, 200);
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1), (SHA1.to_owned(), 1)]);
    assert_eq!(dispatch_events(&l).len(), 1);
}

#[tokio::test]
async fn two_replicas_completing_the_checks_at_once_dispatch_once() {
    let mut l = start(WITH_CHECKS).await;
    l.pull_event("opened", 42, SHA1).await;
    crate::loop_dispatch::carried(
        &mut l,
        "alice",
        "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"",
        true,
    )
    .await;
    assert!(l.gh.dispatches().is_empty());
    for name in ["test", "lint"] {
        l.gh.add_ci_check(SHA1, name, "completed", Some("success"));
    }
    let other = TestApp::start(&l.gh).await;
    let test = check_run("completed", "test", SHA1, Some("success"));
    let lint = check_run("completed", "lint", SHA1, Some("success"));
    let (a, b) = futures::join!(
        l.app.deliver("check_run", "replica-a", &test),
        other.deliver("check_run", "replica-b", &lint),
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    assert_eq!(asked(&l), vec![(SHA1.to_owned(), 1)]);
    assert_eq!(dispatch_events(&l).len(), 1);
    println!(
        "dispatch recorded by {}",
        dispatch_events(&l)[0]["delivery"]
    );
}

fn calls(l: &Loop, delivery: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in l.gh.requests() {
        if r.headers.get("x-github-delivery").map(String::as_str) != Some(delivery)
            || r.path.ends_with("/access_tokens")
        {
            continue;
        }
        let route: Vec<String> = r
            .path
            .split('/')
            .map(|s| {
                if s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
                    "{sha}".to_owned()
                } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                    "{n}".to_owned()
                } else {
                    s.to_owned()
                }
            })
            .collect();
        *out.entry(format!("{} {}", r.method, route.join("/")))
            .or_insert(0) += 1;
    }
    out
}

fn added(with: &BTreeMap<String, usize>, without: &BTreeMap<String, usize>) -> Vec<String> {
    with.iter()
        .filter_map(|(route, n)| {
            let before = without.get(route).copied().unwrap_or(0);
            (*n > before).then(|| format!("{route} +{}", n - before))
        })
        .collect()
}

#[tokio::test]
async fn the_calls_a_dispatch_adds() {
    let mut rows = Vec::new();
    for (what, config) in [("/audit new", ""), ("check_run.completed", "checks")] {
        let mut cost = Vec::new();
        for dispatch in [false, true] {
            let text = match (config, dispatch) {
                ("", false) => "",
                ("", true) => DISPATCH,
                (_, false) => "evidence:\n  required_checks: [test, lint]\n",
                (_, true) => WITH_CHECKS,
            };
            let mut l = start(text).await;
            l.pull_event("opened", 42, SHA1).await;
            let id = if config.is_empty() {
                l.comment(42, "alice", &new_command("")).await
            } else {
                l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\"").await;
                for name in ["test", "lint"] {
                    l.gh.add_ci_check(SHA1, name, "completed", Some("success"));
                }
                l.deliver(
                    "check_run",
                    &check_run("completed", "lint", SHA1, Some("success")),
                )
                .await
            };
            assert_eq!(l.gh.dispatches().len(), usize::from(dispatch), "{what}");
            cost.push(calls(&l, &id));
        }
        let extra = added(&cost[1], &cost[0]);
        let total: usize = cost[1].values().sum::<usize>() - cost[0].values().sum::<usize>();
        rows.push(format!(
            "| {what} | {} | {total} | {} |",
            cost[0].values().sum::<usize>(),
            extra.join("; ")
        ));
        // One records commit (ref, commit, tree, index and record blobs, new tree, new
        // commit, ref update) and the dispatch itself; the gate's reads are the views'.
        assert!(
            total <= 9,
            "{what}: the dispatch added {total} calls: {extra:#?}"
        );
        assert!(extra
            .iter()
            .any(|e| e.starts_with("POST /repos/octo-org/hello/dispatches +1")));
    }
    println!("\n| delivery | calls without dispatch | added by the dispatch | by route |\n| --- | --- | --- | --- |");
    for row in rows {
        println!("{row}");
    }
}
