//! Which failed deliveries a sweep asks GitHub to redeliver, how it follows GitHub's
//! pagination cursor, and what it remembers between sweeps.

use std::collections::HashSet;

use auditloop::github::rest::HookDelivery;
use auditloop::redeliver::{plan, plan_queued, SweepState, MAX_QUEUED_ASKS};
use chrono::{DateTime, TimeDelta, Utc};

fn now() -> DateTime<Utc> {
    "2025-06-01T12:00:00Z".parse().unwrap()
}

/// An attempt of `guid`, `minutes` before `now()`, answered `code` with GitHub's `status`.
fn attempt(id: u64, guid: &str, minutes: i64, code: u16, status: &str) -> HookDelivery {
    HookDelivery {
        id,
        guid: guid.to_owned(),
        delivered_at: now() - TimeDelta::minutes(minutes),
        redelivery: false,
        status: status.to_owned(),
        status_code: code,
        event: "pull_request".to_owned(),
        action: Some("opened".to_owned()),
        installation_id: Some(7),
    }
}

fn failed(id: u64, guid: &str, minutes: i64) -> HookDelivery {
    attempt(id, guid, minutes, 503, "Invalid HTTP Response: 503")
}

fn ok(id: u64, guid: &str, minutes: i64) -> HookDelivery {
    attempt(id, guid, minutes, 200, "OK")
}

fn queued(id: u64, guid: &str, minutes: i64) -> HookDelivery {
    attempt(id, guid, minutes, 202, "OK")
}

const DAYS3: i64 = 3 * 24 * 60;

/// Name, listed attempts, ids already asked, ids the sweep should ask.
type Case = (&'static str, Vec<HookDelivery>, Vec<u64>, Vec<u64>);

#[test]
fn plan_table() {
    let cases: Vec<Case> = vec![
        (
            "failed once is asked",
            vec![failed(1, "a", 10)],
            vec![],
            vec![1],
        ),
        (
            "failed twice asks with the latest attempt",
            vec![failed(1, "a", 30), failed(2, "a", 10)],
            vec![],
            vec![2],
        ),
        (
            "failed three times is given up",
            vec![failed(1, "a", 30), failed(2, "a", 20), failed(3, "a", 10)],
            vec![],
            vec![],
        ),
        (
            "succeeded after a failure is done",
            vec![failed(1, "a", 30), ok(2, "a", 10)],
            vec![],
            vec![],
        ),
        (
            "a success older than a failure still makes it done",
            vec![ok(1, "a", 30), failed(2, "a", 10)],
            vec![],
            vec![],
        ),
        ("succeeded is done", vec![ok(1, "a", 10)], vec![], vec![]),
        (
            "older than 3 days is not asked",
            vec![failed(1, "a", DAYS3 + 1)],
            vec![],
            vec![],
        ),
        (
            "exactly 3 days old is not asked",
            vec![failed(1, "a", DAYS3)],
            vec![],
            vec![],
        ),
        (
            "just inside 3 days is asked",
            vec![failed(1, "a", DAYS3 - 1)],
            vec![],
            vec![1],
        ),
        (
            "asked already is not asked again",
            vec![failed(1, "a", 10)],
            vec![1],
            vec![],
        ),
        (
            "a new failed attempt after the one asked about is asked",
            vec![failed(1, "a", 30), failed(2, "a", 10)],
            vec![1],
            vec![2],
        ),
        (
            "2xx recorded as not OK is a failure",
            vec![attempt(1, "a", 10, 200, "timed out")],
            vec![],
            vec![1],
        ),
        (
            "OK with a non-2xx code is a failure",
            vec![attempt(1, "a", 10, 500, "OK")],
            vec![],
            vec![1],
        ),
        (
            "no answer at all (code 0) is a failure",
            vec![attempt(1, "a", 10, 0, "timed out")],
            vec![],
            vec![1],
        ),
        (
            "202 OK (queued) is not a failure",
            vec![attempt(1, "a", 10, 202, "OK")],
            vec![],
            vec![],
        ),
        (
            "a queued delivery's redelivery that failed is a failed one to ask for",
            vec![queued(1, "a", 30), failed(2, "a", 10)],
            vec![],
            vec![2],
        ),
        (
            "queued attempts are not among the three failed ones",
            vec![
                failed(1, "a", 50),
                queued(2, "a", 40),
                queued(3, "a", 30),
                failed(4, "a", 10),
            ],
            vec![],
            vec![4],
        ),
        (
            "a latest attempt that was queued is the queued plan's",
            vec![failed(1, "a", 30), queued(2, "a", 10)],
            vec![],
            vec![],
        ),
        (
            "one id per guid, in ascending order",
            vec![failed(9, "b", 5), failed(4, "a", 10), ok(6, "c", 1)],
            vec![],
            vec![4, 9],
        ),
        (
            "an attempt listed twice (overlapping pages) counts once",
            vec![failed(1, "a", 30), failed(2, "a", 10), failed(2, "a", 10)],
            vec![],
            vec![2],
        ),
        (
            "the latest is by time, not by list order or id",
            vec![failed(5, "a", 10), failed(8, "a", 30)],
            vec![],
            vec![5],
        ),
        ("nothing listed, nothing asked", vec![], vec![], vec![]),
    ];
    for (name, items, asked, want) in cases {
        let asked: HashSet<u64> = asked.into_iter().collect();
        assert_eq!(plan(&items, now(), &asked), want, "{name}");
    }
}

#[test]
fn plan_queued_table() {
    let none = |_: &str| false;
    let cases: Vec<Case> = vec![
        (
            "queued is looked at",
            vec![queued(1, "a", 10)],
            vec![],
            vec![1],
        ),
        (
            "queued, then carried out on a redelivery, is done",
            vec![queued(1, "a", 20), ok(2, "a", 10)],
            vec![],
            vec![],
        ),
        (
            "queued then failed is the failed plan's",
            vec![queued(1, "a", 20), failed(2, "a", 10)],
            vec![],
            vec![],
        ),
        (
            "asked for as many times as the app asks is given up",
            (0..=MAX_QUEUED_ASKS as u64)
                .map(|k| queued(k + 1, "a", 100 - i64::try_from(k).unwrap()))
                .collect(),
            vec![],
            vec![],
        ),
        (
            "asked for once less is looked at once more, with its latest attempt",
            (0..MAX_QUEUED_ASKS as u64)
                .map(|k| queued(k + 1, "a", 100 - i64::try_from(k).unwrap()))
                .collect(),
            vec![],
            vec![MAX_QUEUED_ASKS as u64],
        ),
        (
            "an attempt asked about already is not looked at again",
            vec![queued(1, "a", 10)],
            vec![1],
            vec![],
        ),
        (
            "older than 3 days is not looked at",
            vec![queued(1, "a", DAYS3 + 1)],
            vec![],
            vec![],
        ),
        (
            "oldest delivery first, whatever the attempt ids",
            vec![queued(9, "b", 30), queued(4, "a", 10), queued(7, "c", 20)],
            vec![],
            vec![9, 7, 4],
        ),
    ];
    for (name, items, asked, want) in cases {
        let asked: HashSet<u64> = asked.into_iter().collect();
        let plan = plan_queued(&items, now(), &asked, (&none, TimeDelta::zero()));
        assert_eq!(plan, want, "{name}");
    }
    // What this process holds, or found carried out, is skipped.
    let items = vec![queued(1, "held", 10), queued(2, "lost", 10)];
    let held = |guid: &str| guid == "held";
    let plan = plan_queued(&items, now(), &HashSet::new(), (&held, TimeDelta::zero()));
    assert_eq!(plan, vec![2]);
    // One queued less than the grace ago may still be at work in a live replica.
    let items = vec![queued(1, "young", 1), queued(2, "old", 10)];
    let plan = plan_queued(
        &items,
        now(),
        &HashSet::new(),
        (&none, TimeDelta::minutes(5)),
    );
    assert_eq!(plan, vec![2]);
}

#[test]
fn state_forgets_the_oldest_beyond_its_capacity() {
    let mut state = SweepState::with_capacity(2);
    state.remember(1, now());
    state.remember(2, now());
    state.remember(2, now());
    assert_eq!(state.asked().len(), 2);
    state.remember(3, now());
    let want: HashSet<u64> = [2, 3].into_iter().collect();
    assert_eq!(state.asked(), &want);
}

#[test]
fn state_forgets_what_is_older_than_the_window() {
    let mut state = SweepState::default();
    state.remember(1, now() - TimeDelta::minutes(DAYS3 + 1));
    state.remember(2, now() - TimeDelta::minutes(10));
    state.prune(now());
    let want: HashSet<u64> = [2].into_iter().collect();
    assert_eq!(state.asked(), &want);
}

#[test]
fn github_delivery_items_decode() {
    let item = serde_json::json!({
        "id": 12_345_678, "guid": "0b989ba4-242f-11e5-81e1-c7b6966d2516",
        "delivered_at": "2019-06-03T00:57:16Z", "redelivery": false, "duration": 0.27,
        "status": "OK", "status_code": 200, "event": "issues", "action": null,
        "installation_id": 123, "repository_id": 456, "throttled_at": "2019-06-03T00:57:16Z"
    });
    let d: HookDelivery = serde_json::from_value(item).unwrap();
    assert_eq!(d.id, 12_345_678);
    assert_eq!(d.action, None);
    assert!(d.succeeded());
}
