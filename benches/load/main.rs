//! The load tool: the real `auditloop serve` binary against a fast local fake of GitHub
//! with a fixed latency per call, driven with signed deliveries. See BENCHMARKS.md.
//!
//! cargo bench --bench load -- [--prs 200] [--repos 200] [--rounds 1] [--latency-ms 50]
//!                             [--mix report,status] [--scale 10000[,N…]] [--listing-ms 2000]
//!                             [--replicas 1] [--spread turns|random]
//! cargo bench --bench load -- --prs 0 --scale 1,10000,100000
//! cargo bench --bench load -- --cold 2001,10000 [--listing-ms 2000]
//! cargo bench --bench load -- --limits 80/60 --prs 30 --rounds 10 [--write-gap-ms 1000] [--sweep-ms 1000]
//! cargo bench --bench load -- --chaos [--seconds 30] [--seed 1,2,3] [--replicas 2] ...
//! cargo bench --bench load -- --loop [--loop-rounds 6] [--latency-ms 50]
//! cargo bench --bench load -- --self-test
//!
//! Every run first checks the fake's GraphQL (`fake_graphql_check.rs`); `--self-test` stops there.
//! Each PR is opened and given a record first (unmeasured, no latency); then in each round
//! every PR receives one command of the mix at the same moment. Printed: deliveries per
//! second, handling latency p50/p95/p99, GitHub calls per command kind by route, the
//! longest chain of dependent calls, token requests, RSS and CPU time of the servers; then
//! the scale part (`scale.rs`): reports on records branches of 1 record and of each count
//! of `--scale` (`0` turns it off; `--prs 0` runs it alone), among them a cold process's
//! first, `--listing-ms` added to every tree listing.
//! `--replicas N` starts N server processes behind the one sender, which spreads the
//! deliveries over them (`--spread`). `--chaos` is the soak of `chaos.rs` instead.
//! `--cold` measures instead the first report of a process that never read the records
//! branch, at each record count given, against a fake that takes `--listing-ms` more over
//! each tree listing (a recursive REST tree, or a first read that lists the records).
//! `--limits` plays GitHub's write limit (see `limits.rs`). `--loop` plays whole audit
//! loops of scripted auditors and fixers instead (`loop_sim.rs`).

// Rates and means over call counts and byte sizes far below 2^52, printed to two places.
#![allow(clippy::cast_precision_loss)]

mod branch;
mod chaos;
mod chaos_plan;
mod fake;
mod fake_graphql;
mod fake_graphql_check;
mod fake_graphql_reads_check;
mod fake_graphql_writes_check;
mod fake_reviews;
mod fake_sweep;
mod faults;
mod github;
mod invariants;
mod limits;
mod loop_repo;
mod loop_report;
mod loop_script;
mod loop_sim;
mod loop_table;
mod payloads;
mod scale;
mod server;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fake::{Call, Fake};
use payloads::{comment, opened, repo_name, report_body, BRANCH, NEW};
use server::{Cluster, Settings, Spread};

struct Args {
    prs: u64,
    repos: u64,
    rounds: u64,
    latency: Duration,
    mix: Vec<String>,
    /// Record counts of the scale part (`--scale`), 1 first; empty: no scale part.
    scale: Vec<u64>,
    replicas: usize,
    spread: Spread,
    chaos: Option<chaos::Options>,
    self_test: bool,
    /// Record counts at which a cold process's first report is measured (`--cold`).
    cold: Vec<u64>,
    /// How long the fake takes, on top of the latency, over each tree listing: a recursive
    /// REST tree, or a first read that lists the records (`--listing-ms`).
    listing: Duration,
    /// GitHub's write limit to play: writes per window (`--limits PER/WINDOW`).
    limits: Option<(usize, Duration)>,
    /// `AUDITLOOP_WRITE_GAP_MS` of the servers (`--write-gap-ms`); 0 unless limited.
    write_gap_ms: Option<u64>,
    /// The servers' redelivery sweep interval under `--limits` (`--sweep-ms`), in whole
    /// seconds as the setting takes it.
    sweep_ms: u64,
    /// `--loop`: the loop simulator, with its round cap (`--loop-rounds`).
    loop_rounds: Option<u32>,
}

fn args() -> Args {
    let mut a = Args {
        prs: 200,
        repos: 200,
        rounds: 1,
        latency: Duration::from_millis(50),
        mix: vec!["report".into()],
        scale: scale::counts("10000"),
        replicas: 1,
        spread: Spread::Turns,
        chaos: None,
        self_test: false,
        cold: Vec::new(),
        listing: Duration::from_secs(2),
        limits: None,
        write_gap_ms: None,
        sweep_ms: 1000,
        loop_rounds: None,
    };
    let mut chaos = chaos::Options::default();
    let mut latency_set = false;
    let mut replicas_set = false;
    let mut prs_set = false;
    let mut spread_set = false;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_default();
        match flag.as_str() {
            "--prs" => {
                a.prs = value().parse().expect("--prs N");
                prs_set = true;
            }
            "--repos" => a.repos = value().parse().expect("--repos N"),
            "--rounds" => a.rounds = value().parse().expect("--rounds N"),
            "--latency-ms" => {
                a.latency = Duration::from_millis(value().parse().expect("ms"));
                latency_set = true;
            }
            "--mix" => a.mix = value().split(',').map(str::to_owned).collect(),
            "--scale" => a.scale = scale::counts(&value()),
            "--replicas" => {
                a.replicas = value().parse::<usize>().expect("--replicas N").max(1);
                replicas_set = true;
            }
            "--spread" => {
                spread_set = true;
                a.spread = match value().as_str() {
                    "turns" => Spread::Turns,
                    "random" => Spread::Random,
                    other => panic!("--spread turns|random, not {other:?}"),
                }
            }
            "--chaos" => a.chaos = Some(chaos::Options::default()),
            "--cold" => {
                a.cold = value()
                    .split(',')
                    .map(|n| n.trim().parse().expect("--cold N[,N]"))
                    .collect();
            }
            "--limits" => a.limits = Some(limits::parse(&value())),
            "--sweep-ms" => a.sweep_ms = value().parse().expect("--sweep-ms N"),
            "--write-gap-ms" => {
                a.write_gap_ms = Some(value().parse().expect("--write-gap-ms N"));
            }
            "--listing-ms" => {
                a.listing = Duration::from_millis(value().parse().expect("--listing-ms N"));
            }
            "--self-test" => a.self_test = true,
            "--loop" => a.loop_rounds = Some(a.loop_rounds.unwrap_or(6)),
            "--loop-rounds" => a.loop_rounds = Some(value().parse().expect("--loop-rounds N")),
            other => {
                // `cargo bench` passes --bench; the chaos flags are read by chaos.rs.
                if let Some(v) = chaos.flag(other, &mut value) {
                    v.unwrap_or_else(|e| panic!("{other}: {e}"));
                }
            }
        }
    }
    if let Some(c) = &mut a.chaos {
        *c = chaos;
        c.replicas = if replicas_set { a.replicas } else { 2 };
        if spread_set {
            c.spread = a.spread;
        }
        if prs_set {
            c.prs = a.prs.max(1);
        }
        if latency_set {
            c.latency = a.latency;
        }
    }
    a.repos = a.repos.clamp(1, a.prs.max(1));
    a
}

async fn start_fake(latency: Duration) -> (Arc<Fake>, SocketAddr) {
    let fake = Fake::new(latency);
    let app = axum::Router::new()
        .fallback(fake::handle)
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (fake, addr)
}

/// Where replica logs go: under cargo's scratch directory for benches.
fn logs_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("log directory");
    dir
}

/// The longest chain of calls each started after the previous one's answer, as routes.
fn chain(calls: &[&Call]) -> Vec<String> {
    let mut sorted: Vec<&&Call> = calls.iter().collect();
    sorted.sort_by_key(|c| c.started);
    let mut best: Vec<(usize, Option<usize>)> = vec![(1, None); sorted.len()];
    for i in 0..sorted.len() {
        for j in 0..i {
            if sorted[i].started >= sorted[j].answered && best[j].0 + 1 > best[i].0 {
                best[i] = (best[j].0 + 1, Some(j));
            }
        }
    }
    let Some(mut at) = (0..best.len()).max_by_key(|i| best[*i].0) else {
        return Vec::new();
    };
    let mut out = vec![sorted[at].route.clone()];
    while let Some(prev) = best[at].1 {
        out.push(sorted[prev].route.clone());
        at = prev;
    }
    out.reverse();
    out
}

// `p` is in 0..=1, so the rounded index is within `0..sorted.len()`.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The calls no route of the fake knew, by route: `none`, or each route with its count.
fn unserved(log: &[Call]) -> String {
    let mut by_route: BTreeMap<&str, u64> = BTreeMap::new();
    for c in log.iter().filter(|c| c.unserved) {
        *by_route.entry(c.route.as_str()).or_default() += 1;
    }
    if by_route.is_empty() {
        "none".to_owned()
    } else {
        format!("PROBLEM: {by_route:?}")
    }
}

/// The calls of each delivery, by delivery id.
fn by_delivery(log: &[Call]) -> BTreeMap<String, Vec<&Call>> {
    let mut out: BTreeMap<String, Vec<&Call>> = BTreeMap::new();
    for c in log {
        if let Some(d) = &c.delivery {
            if !c.route.ends_with("access_tokens") {
                out.entry(d.clone()).or_default().push(c);
            }
        }
    }
    out
}

/// The record PR `pr` is bound to, from its shard of the index (AUD-1 while it has none).
fn audit_id_of(fake: &Fake, repo: &str, pr: u64) -> String {
    let data = fake.data.lock().unwrap();
    data.git
        .get(repo)
        .and_then(|g| branch::pull_record(g, BRANCH, pr))
        .map_or_else(|| "AUD-1".to_owned(), |id| id.to_string())
}

/// Sends a delivery again while it is answered 5xx, as GitHub's redelivery would: with the
/// write governor spacing writes, a setup burst over many repositories is deferred.
async fn deliver_until_done(
    cluster: &Cluster,
    repo: &str,
    rng: &mut rand::rngs::ThreadRng,
    (event, id): (&str, &str),
    payload: &serde_json::Value,
) -> server::Answer {
    let mut tries = 0;
    loop {
        let at = cluster.pick(repo, rng);
        let answer = cluster.deliver(at, event, id, payload).await;
        tries += 1;
        if answer.ok() || answer.status < 500 || tries == 30 {
            return answer;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// Opens each PR and gives it a record: repositories in parallel, each one's PRs in turn.
async fn setup(cluster: &Cluster, fake: &Fake, prs: &[(String, u64)]) {
    let mut by_repo: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (repo, pr) in prs {
        fake.add_pull(repo, *pr, &payloads::head_of(repo, *pr));
        by_repo.entry(repo).or_default().push(*pr);
    }
    let jobs = by_repo.into_iter().map(|(repo, prs)| async move {
        let mut rng = rand::thread_rng();
        for pr in prs {
            let open_id = format!("open-{repo}-{pr}");
            let a1 = deliver_until_done(
                cluster,
                repo,
                &mut rng,
                ("pull_request", &open_id),
                &opened(repo, pr),
            )
            .await;
            let id = format!("new-{repo}-{pr}");
            let new = payloads::comment_by(repo, pr, 1_000_000 + pr, NEW, "alice");
            let a2 =
                deliver_until_done(cluster, repo, &mut rng, ("issue_comment", &id), &new).await;
            assert!(
                a1.ok() && a2.ok(),
                "setup of {repo}#{pr}: {} {}",
                a1.status,
                a2.status
            );
        }
    });
    futures::future::join_all(jobs).await;
}

fn command_body(kind: &str, fake: &Fake, repo: &str, pr: u64, round: u64) -> String {
    match kind {
        "report" => {
            let audit = audit_id_of(fake, repo, pr);
            report_body(repo, pr, &audit, &format!("ci-{repo}-{pr}-{round}"))
        }
        "status" => "/audit status".into(),
        "gate" => "/audit gate".into(),
        "help" => "/audit help".into(),
        other => panic!("--mix: unknown command kind {other}"),
    }
}

async fn load(a: &Args) {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let settings = Settings {
        api,
        reconcile: 0,
        logs: logs_dir("load"),

        write_gap_ms: 0,
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, a.replicas, a.spread).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss = |field: &str| -> Vec<u64> {
        (0..cluster.len())
            .map(|i| cluster.memory(i, field))
            .collect()
    };
    let idle = rss("VmRSS");
    let prs: Vec<(String, u64)> = (0..a.prs)
        .map(|i| (repo_name(i % a.repos), 1 + i))
        .collect();
    setup(&cluster, &fake, &prs).await;
    let after_setup = rss("VmRSS");
    fake.set_latency(a.latency);
    let cpu_before = cluster.cpu();
    let mut kinds: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut latencies = Vec::new();
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let mut round_walls = Vec::new();
    let started = Instant::now();
    for round in 0..a.rounds {
        let kind =
            a.mix[usize::try_from(round).expect("rounds fit in usize") % a.mix.len()].clone();
        let jobs: Vec<_> = prs
            .iter()
            .map(|(repo, pr)| {
                let id = format!("{kind}-{round}-{repo}-{pr}");
                let body = command_body(&kind, &fake, repo, *pr, round);
                let mut payload = comment(repo, *pr, 2_000_000 + round * 100_000 + pr, &body);
                payloads::with_description(&mut payload, &fake, repo, *pr);
                kinds.entry(kind.clone()).or_default().push(id.clone());
                let cluster = &cluster;
                let at = cluster.pick(repo, &mut rand::thread_rng());
                async move { cluster.deliver(at, "issue_comment", &id, &payload).await }
            })
            .collect();
        let at = Instant::now();
        let answers = futures::future::join_all(jobs).await;
        round_walls.push((kind.clone(), at.elapsed()));
        for answer in answers {
            *statuses.entry(answer.status).or_default() += 1;
            latencies.push(answer.took);
        }
    }
    let wall = started.elapsed();
    let cpu = cluster.cpu().saturating_sub(cpu_before);
    let peak = rss("VmHWM");
    let deliveries = latencies.len() as u64;
    latencies.sort();
    let log = fake.log.lock().unwrap().clone();
    let calls = by_delivery(&log);
    let tokens = fake.data.lock().unwrap().tokens;
    let refused: usize = fake
        .data
        .lock()
        .unwrap()
        .comments
        .iter()
        .filter(|c| c.body.starts_with("auditloop: refused"))
        .count();

    println!(
        "\n## Load: {} PRs in {} repositories × {} rounds ({}), {} ms per GitHub call, {} replica(s) ({:?})\n",
        a.prs,
        a.repos,
        a.rounds,
        a.mix.join(","),
        a.latency.as_millis(),
        a.replicas,
        a.spread
    );
    println!("| figure | value |\n| --- | --- |");
    println!(
        "| deliveries | {deliveries} in {} ({:.0}/s) |",
        ms(wall),
        deliveries as f64 / wall.as_secs_f64()
    );
    println!("| answers by status | {statuses:?} |");
    println!("| refusals posted | {refused} |");
    println!(
        "| handling latency p50 / p95 / p99 / max | {} / {} / {} / {} |",
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.95)),
        ms(percentile(&latencies, 0.99)),
        ms(*latencies.last().unwrap_or(&Duration::ZERO))
    );
    println!("| installation token requests (whole run) | {tokens} |");
    println!(
        "| calls the fake does not serve (whole run) | {} |",
        unserved(&log)
    );
    for i in 0..cluster.len() {
        println!(
            "| server {i} RSS idle / after setup / peak | {:.1} / {:.1} / {:.1} MiB |",
            idle[i] as f64 / 1024.0,
            after_setup[i] as f64 / 1024.0,
            peak[i] as f64 / 1024.0
        );
    }
    println!(
        "| server CPU time per delivery | {:.2} ms |",
        cpu.as_secs_f64() * 1000.0 / deliveries.max(1) as f64
    );
    for (kind, ids) in &kinds {
        let mut routes: BTreeMap<&str, usize> = BTreeMap::new();
        let mut chains: Vec<Vec<String>> = Vec::new();
        for id in ids {
            let of = calls.get(id).map_or(&[][..], Vec::as_slice);
            for c in of {
                *routes.entry(c.route.as_str()).or_default() += 1;
            }
            chains.push(chain(of));
        }
        chains.sort_by_key(Vec::len);
        let n = ids.len().max(1);
        let total: usize = routes.values().sum();
        let writes: usize = routes
            .iter()
            .filter(|(r, _)| !fake::reads(r))
            .map(|(_, c)| c)
            .sum();
        println!("\n### `{kind}`: {:.2} calls, {:.2} writes per command; longest dependent chain {} (median {})\n",
            total as f64 / n as f64, writes as f64 / n as f64,
            chains.last().map_or(0, Vec::len), chains.get(chains.len() / 2).map_or(0, Vec::len));
        println!("| route | calls per command |\n| --- | --- |");
        for (route, count) in &routes {
            println!("| {route} | {:.2} |", *count as f64 / n as f64);
        }
        if let Some(longest) = chains.last() {
            // Under contention the chain runs to hundreds of calls: show its ends.
            let shown = if longest.len() > 16 {
                let (head, tail) = (&longest[..8], &longest[longest.len() - 4..]);
                format!(
                    "{} → … {} more … → {}",
                    head.join(" → "),
                    longest.len() - 12,
                    tail.join(" → ")
                )
            } else {
                longest.join(" → ")
            };
            println!("\ncritical path ({} calls): {shown}", longest.len());
        }
        let sequential = u32::try_from(chains.get(chains.len() / 2).map_or(0, Vec::len))
            .expect("a chain is far shorter than u32::MAX calls");
        let bound = a.latency * 2 * sequential + Duration::from_secs(1);
        for (k, took) in round_walls.iter().filter(|(k, _)| k == kind) {
            println!("round of `{k}`: all answered in {} (target 2 × {sequential} × {} ms + 1 s = {}): {}",
                ms(*took), a.latency.as_millis(), ms(bound), if *took <= bound { "met" } else { "NOT met" });
        }
    }
}

/// The first report of a process that never read the records branch, at each count of
/// `--cold`, the fake answering each tree listing only after `--listing-ms` (a layout-2
/// branch is read by path, never listed). Returns whether any delivery missed GitHub's
/// window.
async fn cold(a: &Args) -> bool {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let settings = Settings {
        api,
        reconcile: 0,
        logs: logs_dir("cold"),

        write_gap_ms: 0,
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, 1, Spread::Turns).await;
    let mut rows = Vec::new();
    let mut missed = false;
    for (k, records) in a.cold.iter().enumerate() {
        let repo = format!("octo-org/cold-{records}");
        fake.set_listing_latency(Duration::ZERO);
        fake.set_latency(Duration::ZERO);
        setup(&cluster, &fake, &[(repo.clone(), 1)]).await;
        scale::seed_records(&fake, &repo, *records);
        // A new process: nothing of the branch in memory.
        cluster.kill(0);
        cluster.restart(0).await;
        fake.set_latency(a.latency);
        fake.set_listing_latency(a.listing);
        let body = report_body(&repo, 1, "AUD-1", &format!("cold-{records}"));
        let id = format!("cold-{repo}");
        let n = u64::try_from(k).unwrap_or(0);
        let answer = cluster
            .deliver(
                0,
                "issue_comment",
                &id,
                &comment(&repo, 1, 4_000_000 + n, &body),
            )
            .await;
        missed |= answer.status != 200 || answer.took >= Duration::from_secs(10);
        let log = fake.log.lock().unwrap().clone();
        let calls = by_delivery(&log);
        let of = calls.get(&id).cloned().unwrap_or_default();
        rows.push((*records, answer, of.len(), chain(&of).len()));
    }
    println!(
        "\n## Cold first report: a new process, {} ms per call, {} ms more over each tree listing\n",
        a.latency.as_millis(),
        a.listing.as_millis()
    );
    // A call the app gave up on is not answered, so not counted: the calls are the answered ones.
    println!("| records | answer | answered in | calls answered | sequential |\n| --- | --- | --- | --- | --- |");
    for (records, answer, calls, seq) in rows {
        println!(
            "| {records} | {} | {} | {calls} | {seq} |",
            answer.status,
            ms(answer.took)
        );
    }
    missed
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let failed = rt.block_on(async {
        match fake_graphql_check::run().await {
            Ok(checks) => println!("fake GraphQL self-test: {checks} checks held"),
            Err(failed) => {
                println!("fake GraphQL self-test FAILED:");
                for f in failed {
                    println!("- {f}");
                }
                return true;
            }
        }
        if a.self_test {
            return false;
        }
        if let Some(options) = &a.chaos {
            return chaos::run_seeds(options).await;
        }
        if let Some(cap) = a.loop_rounds {
            return loop_sim::run(a.latency, cap).await;
        }
        if !a.cold.is_empty() {
            return cold(&a).await;
        }
        if let Some((per, window)) = a.limits {
            return limits::run(&a, per, window).await;
        }
        if a.prs > 0 {
            load(&a).await;
        }
        !a.scale.is_empty() && scale::run(&a).await
    });
    if failed {
        std::process::exit(1);
    }
}
