//! `--limits PER/WINDOW`: GitHub's secondary limit played by the fake (at most PER writes of
//! the installation in any WINDOW seconds, then 403 with `retry-after`), and a burst of
//! `--rounds` reports on each of `--prs` PRs sent at once, round after round. Deliveries
//! answered 5xx are sent again, as GitHub's redelivery (or the app's sweep) would, once a
//! window has passed, until each has a 2xx. Measured: every answer within GitHub's 10 s,
//! every report recorded exactly once, no write sent while GitHub said to wait, and how
//! long the backlog takes to drain.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use auditloop_fake_github::limits::WriteLimit;

use crate::fake::Fake;
use crate::payloads::{comment, repo_name, report_body, BRANCH};
use crate::server::{Cluster, Settings, WINDOW};
use crate::{audit_id_of, logs_dir, ms, setup, start_fake, Args};

/// `PER/WINDOW`, as `--limits` takes it.
pub fn parse(text: &str) -> (usize, Duration) {
    let (per, window) = text
        .split_once('/')
        .expect("--limits PER/WINDOW (writes / seconds)");
    (
        per.trim().parse().expect("--limits PER/WINDOW: PER"),
        Duration::from_secs(window.trim().parse().expect("--limits PER/WINDOW: WINDOW")),
    )
}

/// One delivery of the burst and what it was answered.
struct Sent {
    id: String,
    repo: String,
    pr: u64,
    payload: Value,
    answers: Vec<(u16, Duration)>,
}

impl Sent {
    fn done(&self) -> bool {
        self.answers.iter().any(|(s, _)| (200..300).contains(s))
    }
}

async fn send(cluster: &Cluster, batch: &mut [&mut Sent]) {
    let jobs = batch.iter().map(|s| {
        let at = cluster.pick(&s.repo, &mut rand::thread_rng());
        cluster.deliver(at, "issue_comment", &s.id, &s.payload)
    });
    let answers = futures::future::join_all(jobs).await;
    for (s, a) in batch.iter_mut().zip(answers) {
        s.answers.push((a.status, a.took));
    }
}

/// How many events delivery `id` left in PR `pr`'s record.
fn recorded(fake: &Fake, repo: &str, pr: u64, id: &str) -> usize {
    let audit = audit_id_of(fake, repo, pr);
    let data = fake.data.lock().unwrap();
    let text = data
        .git
        .get(repo)
        .and_then(|g| g.file(BRANCH, &format!("records/{audit}.json")));
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

/// Runs the measurement; `true` when an invariant broke.
pub async fn run(a: &Args, per: usize, window: Duration) -> bool {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let settings = Settings {
        api,
        reconcile: 0,
        logs: logs_dir("limits"),
        write_gap_ms: a.write_gap_ms.unwrap_or(1000),
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, a.replicas, a.spread).await;
    let prs: Vec<(String, u64)> = (0..a.prs)
        .map(|i| (repo_name(i % a.repos), 1 + i))
        .collect();
    setup(&cluster, &fake, &prs).await;
    fake.set_latency(a.latency);
    *fake.limit.lock().unwrap() = Some(WriteLimit::new(per, window, None));
    let mut sent: Vec<Sent> = Vec::new();
    let started = Instant::now();
    for round in 0..a.rounds {
        let first = sent.len();
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
                answers: Vec::new(),
            });
        }
        let mut batch: Vec<&mut Sent> = sent[first..].iter_mut().collect();
        send(&cluster, &mut batch).await;
    }
    // GitHub's redelivery, once a window has passed, until every delivery has its 2xx.
    let mut redeliveries = 0;
    // The backlog takes at least its writes at the limit's pace (three a report); the
    // wait allows for four, and the first answers' deferrals.
    let windows = u32::try_from(sent.len() * 4 / per.max(1) + 40).unwrap_or(u32::MAX);
    let give_up = started + window * windows + Duration::from_secs(120);
    while sent.iter().any(|s| !s.done()) && Instant::now() < give_up {
        tokio::time::sleep(window).await;
        let mut batch: Vec<&mut Sent> = sent.iter_mut().filter(|s| !s.done()).collect();
        redeliveries += batch.len();
        send(&cluster, &mut batch).await;
    }
    let drained = started.elapsed();
    report(a, (&fake, &sent), (per, window), (drained, redeliveries))
}

fn report(
    a: &Args,
    (fake, sent): (&Fake, &[Sent]),
    (per, window): (usize, Duration),
    (drained, redeliveries): (Duration, usize),
) -> bool {
    let limit = fake.limit.lock().unwrap().take().expect("the limit");
    let answers: Vec<&(u16, Duration)> = sent.iter().flat_map(|s| &s.answers).collect();
    let late = answers.iter().filter(|(_, t)| *t >= WINDOW).count();
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    for (s, _) in &answers {
        *by_status.entry(*s).or_default() += 1;
    }
    let undone = sent.iter().filter(|s| !s.done()).count();
    let not_once: Vec<&str> = sent
        .iter()
        .filter(|s| recorded(fake, &s.repo, s.pr, &s.id) != 1)
        .map(|s| s.id.as_str())
        .collect();
    let longest = answers.iter().map(|(_, t)| *t).max().unwrap_or_default();
    println!(
        "\n## Under the write limit: {per} writes per {} s, {} reports ({} rounds × {} PRs in {} repositories), {} ms per call, write gap {} ms, {} replica(s)\n",
        window.as_secs(),
        sent.len(),
        a.rounds,
        a.prs,
        a.repos,
        a.latency.as_millis(),
        a.write_gap_ms.unwrap_or(1000),
        a.replicas
    );
    println!("| figure | value |\n| --- | --- |");
    println!("| answers by status | {by_status:?} |");
    println!("| redeliveries (sends after the first) | {redeliveries} |");
    println!("| writes GitHub answered 403 | {} |", limit.limited);
    println!(
        "| writes sent while GitHub said to wait | {} |",
        limit.violations.len()
    );
    println!("| answers after 10 s | {late} (longest {}) |", ms(longest));
    println!("| reports never carried out | {undone} |");
    println!("| reports not recorded exactly once | {} |", not_once.len());
    println!("| backlog drained in | {} |", ms(drained));
    let failed = !limit.violations.is_empty() || late > 0 || undone > 0 || !not_once.is_empty();
    if failed {
        println!("\nBROKEN: {not_once:?}");
    }
    failed
}
