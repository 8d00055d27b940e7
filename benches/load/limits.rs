//! `--limits PER/WINDOW`: GitHub's secondary limit played by the fake (at most PER writes of
//! the installation in any WINDOW seconds, then 403 with `retry-after`), and a burst:
//! `--rounds` commands on each of `--prs` PRs, all sent at the same moment, in order.
//! GitHub is played as it is: each delivery is sent once, and again only when the app's own
//! redelivery sweep asks for it (every `--sweep-ms`, the servers'
//! `AUDITLOOP_REDELIVER_INTERVAL` scaled down, in whole seconds; at most 3 failed attempts a
//! delivery). Measured: commands lost (never recorded, or twice), answers after 10 s, writes
//! sent while GitHub said to wait, how long the burst took to drain against the least its
//! writes need at the pace, and the longest a queued command waited.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde_json::Value;

use auditloop_fake_github::limits::WriteLimit;

use crate::args::Args;
use crate::branch;
use crate::call_log::ms;
use crate::fake::Fake;
use crate::github::GitHub;
use crate::payloads::{comment, repo_name, report_body, BRANCH};
use crate::server::{Cluster, Settings, WINDOW};
use crate::setup::{audit_id_of, logs_dir, setup, start_fake};

/// Writes a report takes: its outcome claim, its records commit, its views.
const WRITES_PER_COMMAND: u64 = 3;
/// Writes a quiet replica may send at once (its governor's burst).
const BURST: u64 = 3;

/// One command of the burst and what became of it.
struct Sent {
    id: String,
    repo: String,
    pr: u64,
    payload: Value,
    /// The first attempt's answer and how long it took.
    first: Option<(u16, Duration)>,
    /// When it was answered, and when its event showed in the records.
    answered_at: Option<Instant>,
    recorded_at: Option<Instant>,
}

/// How many events delivery `id` left in PR `pr`'s record.
fn recorded(fake: &Fake, repo: &str, pr: u64, id: &str) -> usize {
    let data = fake.data.lock().unwrap();
    let text = data
        .git
        .get(repo)
        .and_then(|g| branch::pull_record_text(g, BRANCH, pr));
    let record: Value = text
        .map(|t| serde_json::from_str(&t).unwrap_or_default())
        .unwrap_or_default();
    record["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["delivery"] == id)
        .count()
}

/// Every PR has its record: setup's commands were carried out (some from a queue).
async fn records_made(fake: &Fake, prs: &[(String, u64)]) {
    let until = Instant::now() + Duration::from_secs(600);
    while Instant::now() < until {
        let missing = prs.iter().any(|(repo, pr)| {
            let data = fake.data.lock().unwrap();
            let bound = data
                .git
                .get(repo)
                .and_then(|g| branch::pull_record(g, BRANCH, *pr));
            bound.is_none()
        });
        if !missing {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("setup: some PRs never got their record");
}

/// Runs the measurement; `true` when an invariant broke.
pub async fn run(a: &Args, per: usize, window: Duration) -> bool {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let gap = a.write_gap_ms.unwrap_or(1000);
    let sweep_s = a.sweep_ms.div_ceil(1000).max(1);
    // Set up quickly, then measured as an operator runs it.
    let settings = Settings {
        api,
        reconcile: 0,
        logs: logs_dir("limits"),
        write_gap_ms: 0,
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, a.replicas, a.spread).await;
    let prs: Vec<(String, u64)> = (0..a.prs)
        .map(|i| (repo_name(i % a.repos), 1 + i))
        .collect();
    setup(&cluster, &fake, &prs).await;
    records_made(&fake, &prs).await;
    cluster
        .restart_all_with(|s| {
            s.write_gap_ms = gap;
            s.redeliver = sweep_s;
        })
        .await;
    fake.set_latency(a.latency);
    // The app sends at most three writes together: two may be on the way when one is refused.
    *fake.limit.lock().unwrap() = Some(WriteLimit::new(per, window, None).with_in_flight(2));
    let github = GitHub::new(&cluster, &fake);
    let mut sent: Vec<Sent> = Vec::new();
    for round in 0..a.rounds {
        for (repo, pr) in &prs {
            let audit = audit_id_of(&fake, repo, *pr);
            let id = format!("limit-{round}-{repo}-{pr}");
            let body = report_body(repo, *pr, &audit, &id);
            let payload = comment(repo, *pr, 6_000_000 + round * 100_000 + pr, &body);
            sent.push(Sent {
                id,
                repo: repo.clone(),
                pr: *pr,
                payload,
                first: None,
                answered_at: None,
                recorded_at: None,
            });
        }
    }
    let writes = sent.len() as u64 * WRITES_PER_COMMAND;
    let lower = lower_bound(writes, gap, a.replicas, (per, window));
    let started = Instant::now();
    let give_up = started + lower * 4 + Duration::from_secs(180);
    let stop = AtomicBool::new(false);
    let measured = async {
        let jobs = sent.iter().enumerate().map(|(k, s)| {
            let github = &github;
            let cluster = &cluster;
            async move {
                tokio::time::sleep(Duration::from_millis(2) * u32::try_from(k).unwrap_or(0)).await;
                let at = cluster.pick(&s.repo, &mut rand::thread_rng());
                github.send(at, "issue_comment", &s.id, &s.payload).await
            }
        });
        let answers = futures::future::join_all(jobs).await;
        let mut recorded_at: Vec<Option<Instant>> = vec![None; sent.len()];
        while Instant::now() < give_up {
            let now = Instant::now();
            for (s, at) in sent.iter().zip(recorded_at.iter_mut()) {
                if at.is_none() && recorded(&fake, &s.repo, s.pr, &s.id) > 0 {
                    *at = Some(now);
                }
            }
            if recorded_at.iter().all(Option::is_some) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        (answers, recorded_at)
    };
    let ((answers, recorded_at), ()) = futures::join!(measured, github.redeliver_until(&stop, 1));
    for ((s, answer), at) in sent.iter_mut().zip(&answers).zip(recorded_at) {
        s.first = Some((answer.status, answer.took));
        s.answered_at = Some(started + answer.took);
        s.recorded_at = at;
    }
    let drained = sent
        .iter()
        .filter_map(|s| s.recorded_at)
        .max()
        .map_or(Duration::ZERO, |t| t - started);
    report(a, (&fake, &github, &sent), (per, window), (drained, lower))
}

/// The least time `writes` writes take at the pace: the writes past each replica's burst,
/// one per gap on each replica, or the limit's own pace if it is slower.
fn lower_bound(
    writes: u64,
    gap_ms: u64,
    replicas: usize,
    (per, window): (usize, Duration),
) -> Duration {
    let replicas = replicas.max(1) as u64;
    let paced = Duration::from_millis(writes.saturating_sub(BURST * replicas) * gap_ms / replicas);
    let limited = window.mul_f64(writes.saturating_sub(per as u64) as f64 / per.max(1) as f64);
    paced.max(limited)
}

fn report(
    a: &Args,
    (fake, github, sent): (&Fake, &GitHub<'_>, &[Sent]),
    (per, window): (usize, Duration),
    (drained, lower): (Duration, Duration),
) -> bool {
    let limit = fake.limit.lock().unwrap().take().expect("the limit");
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    let mut late = 0;
    let mut longest = Duration::ZERO;
    for s in sent {
        for status in github.answers(&s.id) {
            *by_status.entry(status).or_default() += 1;
        }
        if let Some((_, took)) = s.first {
            longest = longest.max(took);
            late += usize::from(took >= WINDOW);
        }
    }
    let lost: Vec<&str> = sent
        .iter()
        .filter(|s| recorded(fake, &s.repo, s.pr, &s.id) == 0)
        .map(|s| s.id.as_str())
        .collect();
    let twice: Vec<&str> = sent
        .iter()
        .filter(|s| recorded(fake, &s.repo, s.pr, &s.id) > 1)
        .map(|s| s.id.as_str())
        .collect();
    let queued = sent
        .iter()
        .filter(|s| s.first.is_some_and(|(st, _)| st == 202))
        .count();
    let wait = sent
        .iter()
        .filter(|s| s.first.is_some_and(|(st, _)| st == 202))
        .filter_map(|s| Some(s.recorded_at? - s.answered_at?))
        .max()
        .unwrap_or_default();
    let pace = if drained.is_zero() {
        0.0
    } else {
        100.0 * lower.as_secs_f64() / drained.as_secs_f64()
    };
    println!(
        "\n## Under the write limit: {per} writes per {} s, {} commands ({} rounds × {} PRs in {} repositories), {} ms per call, write gap {} ms, sweep every {} s, {} replica(s)\n",
        window.as_secs(),
        sent.len(),
        a.rounds,
        a.prs,
        a.repos,
        a.latency.as_millis(),
        a.write_gap_ms.unwrap_or(1000),
        a.sweep_ms.div_ceil(1000).max(1),
        a.replicas
    );
    println!("| figure | value |\n| --- | --- |");
    println!("| commands lost (never recorded) | {} |", lost.len());
    println!("| commands recorded twice | {} |", twice.len());
    println!("| answers after 10 s | {late} (longest {}) |", ms(longest));
    println!("| answers, every attempt, by status | {by_status:?} |");
    println!("| queued (first answer 202) | {queued} |");
    println!(
        "| redeliveries the app's sweep asked for | {} |",
        github
            .redelivered
            .load(std::sync::atomic::Ordering::Relaxed)
    );
    println!("| writes GitHub answered 403 | {} |", limit.limited);
    println!(
        "| writes sent while GitHub said to wait | {} ({} more on the way when a wait began) |",
        limit.violations.len(),
        limit.on_the_way
    );
    println!(
        "| drained in | {} (the writes need {} at the pace: {pace:.0} % of it) |",
        ms(drained),
        ms(lower)
    );
    println!(
        "| longest wait of a queued command (202 to recorded) | {} |",
        ms(wait)
    );
    let failed = !limit.violations.is_empty() || late > 0 || !lost.is_empty() || !twice.is_empty();
    if failed {
        println!("\nBROKEN: lost {lost:?}, twice {twice:?}");
    }
    failed
}
