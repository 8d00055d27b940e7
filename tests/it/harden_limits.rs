//! Under GitHub's write limit: a burst of commands on one installation is answered inside
//! GitHub's 10-second window whatever `retry-after` says (`202` for what is queued), no
//! write is sent while GitHub has said to wait, and every command is carried out once.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop};
use support::deliveries::pr_comment;
use support::harness::TestApp;

/// GitHub counts an answer after this as a failed delivery.
const WINDOW: Duration = Duration::from_secs(10);
const PRS: u64 = 9;

fn head_of(pr: u64) -> String {
    format!("{pr:040x}")
}

/// PRs 101..=109, each with its record (`AUD-1` … `AUD-9`), made before any limit.
async fn nine_records() -> Loop {
    let mut l = Loop::start(42).await;
    for k in 1..=PRS {
        let pr = 100 + k;
        l.gh.add_pull(
            pr,
            &head_of(pr),
            &format!("Change {pr}.\n\nCloses #{pr}\n"),
            "alice",
        );
        l.pull_event("opened", pr, &head_of(pr)).await;
        l.new_record(pr).await;
    }
    l
}

fn report_of(k: u64, run: &str) -> Value {
    let pr = 100 + k;
    let mut r = report(
        &format!("AUD-{k}"),
        pr,
        &head_of(pr),
        run,
        "needs_remediation",
    );
    r["covered_tasks"] = json!([format!("#{pr}")]);
    r
}

/// The accepted reports of `AUD-<k>` made by delivery `id`.
fn recorded(l: &Loop, k: u64, id: &str) -> usize {
    l.events_of(&format!("AUD-{k}"), id)
}

#[tokio::test]
async fn a_burst_under_the_write_limit_is_answered_in_time_and_redelivered_once_each() {
    let l = nine_records().await;
    // As GitHub, scaled down: 12 writes in any 6 s, then `retry-after: 3`.
    l.gh.limit_writes(12, Duration::from_secs(6), Duration::from_secs(3));
    let app = TestApp::start_spaced(&l.gh, Duration::from_millis(50)).await;
    let payloads: Vec<(String, Value)> = (1..=PRS)
        .map(|k| {
            let body = report_comment(&report_of(k, &format!("ci-burst-{k}")));
            (format!("burst-{k}"), pr_comment(100 + k, "auditor", &body))
        })
        .collect();
    let mut pending: Vec<usize> = (0..payloads.len()).collect();
    for round in 0..8 {
        let answers = futures::future::join_all(pending.iter().map(|i| {
            let (id, payload) = &payloads[*i];
            let app = &app;
            async move {
                let started = Instant::now();
                let status = app.deliver("issue_comment", id, payload).await.status();
                (*i, status.as_u16(), started.elapsed())
            }
        }))
        .await;
        for (i, status, took) in &answers {
            assert!(
                *took < WINDOW,
                "round {round}: {} answered {status} after {took:?}",
                payloads[*i].0
            );
        }
        // A 2xx is carried out, now or by the queue (202); a 5xx is redelivered.
        pending = answers
            .iter()
            .filter(|(_, status, _)| !(200..300).contains(status))
            .map(|(i, ..)| *i)
            .collect();
        if pending.is_empty() {
            break;
        }
        // GitHub's redelivery, once the wait is over.
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    assert!(pending.is_empty(), "never answered 2xx: {pending:?}");
    let drained = Instant::now() + Duration::from_secs(60);
    while (1..=PRS).any(|k| recorded(&l, k, &format!("burst-{k}")) == 0) && Instant::now() < drained
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for k in 1..=PRS {
        let id = format!("burst-{k}");
        assert_eq!(recorded(&l, k, &id), 1, "{id}: recorded once");
    }
    let limit = l.gh.state().write_limit.take().unwrap();
    assert!(limit.limited > 0, "the burst met the limit");
    assert!(
        limit.violations.is_empty(),
        "writes sent while GitHub said to wait: {:#?}",
        limit.violations
    );
    assert!(l.refusals(101).is_empty(), "{:?}", l.refusals(101));
}

#[tokio::test]
async fn an_hour_long_wait_is_answered_at_once_queued_and_nothing_is_written_meanwhile() {
    let l = nine_records().await;
    l.gh.limit_writes(1, Duration::from_secs(3600), Duration::from_secs(3600));
    let app = TestApp::start_spaced(&l.gh, Duration::ZERO).await;
    let log =
        l.gh.branch_log(support::deliveries::REPO, support::audit::BRANCH)
            .len();
    for k in 1..=3 {
        let id = format!("hour-{k}");
        let body = report_comment(&report_of(k, &id));
        let started = Instant::now();
        let status = app
            .deliver("issue_comment", &id, &pr_comment(100 + k, "auditor", &body))
            .await
            .status();
        assert_eq!(status.as_u16(), 202, "{id}: queued");
        assert!(started.elapsed() < WINDOW, "{id}: {:?}", started.elapsed());
        assert!(app.state.deliveries().knows(&id), "{id}: held in its queue");
    }
    let limit = l.gh.state().write_limit.take().unwrap();
    assert!(limit.violations.is_empty(), "{:#?}", limit.violations);
    // One write went (the first), then none: the second delivery on was deferred unsent.
    assert!(limit.limited <= 1, "{} writes refused", limit.limited);
    assert_eq!(
        l.gh.branch_log(support::deliveries::REPO, support::audit::BRANCH)
            .len(),
        log,
        "nothing half-written on the records branch"
    );
    app.kill();
}
