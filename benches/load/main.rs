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

mod args;
mod branch;
mod call_log;
mod chaos;
mod chaos_plan;
mod fake;
mod fake_check;
mod fake_data;
mod fake_graphql;
mod fake_graphql_check;
mod fake_graphql_reads_check;
mod fake_graphql_writes_check;
mod fake_reviews;
mod fake_site;
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
mod setup;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use args::{args, Args};
use call_log::{by_delivery, chain, ms, percentile, unserved};
use fake::Fake;
use payloads::{comment, repo_name, report_body};
use server::{Cluster, Settings, Spread};
use setup::{audit_id_of, logs_dir, setup, start_fake};

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
