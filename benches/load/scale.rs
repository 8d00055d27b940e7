//! The scale part of the load run (`--scale 1,10000,100000`): for each record count, a
//! repository whose records branch is seeded to that many records in layout version 2
//! (docs/reference.md#layout-version-2), straight into the fake's git data. On PR 1 of each:
//! the first report after the branch moved under the app (the seeding), the second, the
//! third (steady state: the process has seen the branch where it left it), and the cold
//! first report of a new process that never read the branch, with
//! `--latency-ms` on every call and `--listing-ms` on every tree listing; then that
//! process's memory. Printed with the goals: bytes per report at the largest count at most
//! twice those at 1 record, the same calls at every count, the cold report inside GitHub's
//! window.

use std::time::{Duration, Instant};

use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::LAYOUT_PATH;

use crate::args::Args;
use crate::branch::{self, Tree};
use crate::call_log::{by_delivery, chain, ms, unserved};
use crate::fake::{Call, Fake};
use crate::payloads::{comment, report_body, BRANCH};
use crate::server::{Answer, Cluster, Settings, Spread, WINDOW};
use crate::setup::{logs_dir, setup, start_fake};

/// Seeds `records - 1` more records beside PR 1's AUD-1 on `repo`'s records branch, in
/// layout version 2: the files built in memory once, then one commit, made at 1 record too
/// (changing no file), so that the branch moves under the app at every count.
pub fn seed_records(fake: &Fake, repo: &str, records: u64) {
    let mut data = fake.data.lock().unwrap();
    let git = data.git.get_mut(repo).expect("the repository's git data");
    let (index, record) = {
        let tree = Tree::head(git, BRANCH).expect("the records branch");
        assert!(
            tree.text(LAYOUT_PATH).is_some(),
            "{repo}: the app made a records branch without {LAYOUT_PATH}"
        );
        let index = tree.index().expect("the records branch's index");
        let record = tree
            .record(&AuditId::from_number(1))
            .expect("AUD-1 on the records branch")
            .clone();
        (index, record)
    };
    let (files, _) = branch::seeded(&index, &record, records);
    git.commit_files(BRANCH, &files);
}

/// Which report of a count a row is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Report {
    /// The first report after someone else moved the branch (the seeding).
    Moved,
    /// The next one, the branch where this process's own commit left it.
    Second,
    /// The third: the process has seen the branch where it left it.
    Steady,
    /// The first report of a new process.
    Cold,
}

impl Report {
    const ALL: [Report; 4] = [Report::Moved, Report::Second, Report::Steady, Report::Cold];

    fn name(self) -> &'static str {
        match self {
            Report::Moved => "first after the branch moved",
            Report::Second => "second",
            Report::Steady => "steady state (third)",
            Report::Cold => "cold: a new process's first",
        }
    }
}

struct Row {
    records: u64,
    report: Report,
    answer: Answer,
    calls: usize,
    bytes: usize,
    /// Of `bytes`, the records commit (`createCommitOnBranch`, or a REST tree).
    commit: usize,
    /// What GitHub answered, in bytes of the answers' bodies.
    received: usize,
    sequential: usize,
    /// Tree listings the delivery asked for.
    listings: usize,
    /// Its calls, by route, in the order they were made.
    routes: Vec<String>,
}

/// The memory of the process that answered the cold report, just after.
struct Memory {
    records: u64,
    seeding: Duration,
    rss: u64,
    peak: u64,
}

fn row(fake: &Fake, records: u64, report: Report, id: &str, answer: Answer) -> Row {
    let log = fake.log.lock().unwrap().clone();
    let calls = by_delivery(&log);
    let of: Vec<&Call> = calls.get(id).cloned().unwrap_or_default();
    let commit = of
        .iter()
        .filter(|c| {
            c.route.ends_with("git/trees")
                || c.route
                    .ends_with(&format!("graphql {}", crate::fake_graphql::COMMIT))
        })
        .map(|c| c.bytes)
        .sum();
    Row {
        records,
        report,
        answer,
        calls: of.len(),
        bytes: of.iter().map(|c| c.bytes).sum(),
        received: of.iter().map(|c| c.received).sum(),
        commit,
        sequential: chain(&of).len(),
        listings: of.iter().filter(|c| c.listing).count(),
        routes: {
            let mut sorted = of.clone();
            sorted.sort_by_key(|c| c.started);
            sorted
                .iter()
                .map(|c| {
                    let listing = if c.listing { ", listing" } else { "" };
                    format!("{} ({} B in{listing})", c.route, c.received)
                })
                .collect()
        },
    }
}

/// Runs the part; `true` when a report was not answered 200 inside GitHub's window.
pub async fn run(a: &Args) -> bool {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let settings = Settings {
        api,
        reconcile: 0,
        logs: logs_dir("scale"),
        write_gap_ms: 0,
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, 1, Spread::Turns).await;
    let mut rows = Vec::new();
    let mut memory = Vec::new();
    let mut comment_id = 3_000_000;
    for &records in &a.scale {
        let repo = format!("octo-org/scale-{records}");
        fake.set_latency(Duration::ZERO);
        fake.set_listing_latency(Duration::ZERO);
        setup(&cluster, &fake, &[(repo.clone(), 1)]).await;
        let started = Instant::now();
        seed_records(&fake, &repo, records);
        let seeding = started.elapsed();
        for report in Report::ALL {
            if report == Report::Cold {
                // A new process: nothing of the branch in memory; GitHub slow to list.
                cluster.kill(0);
                cluster.restart(0).await;
                fake.set_latency(a.latency);
                fake.set_listing_latency(a.listing);
            }
            comment_id += 1;
            let id = format!("scale-{records}-{comment_id}");
            let body = report_body(&repo, 1, "AUD-1", &id);
            let payload = comment(&repo, 1, comment_id, &body);
            let answer = cluster.deliver(0, "issue_comment", &id, &payload).await;
            fake.set_latency(Duration::ZERO);
            fake.set_listing_latency(Duration::ZERO);
            rows.push(row(&fake, records, report, &id, answer));
        }
        memory.push(Memory {
            records,
            seeding,
            rss: cluster.memory(0, "VmRSS"),
            peak: cluster.memory(0, "VmHWM"),
        });
    }
    print(a, &rows, &memory);
    println!(
        "\ncalls the fake does not serve (whole scale run): {}",
        unserved(&fake.log.lock().unwrap())
    );
    rows.iter()
        .any(|r| r.answer.status != 200 || r.answer.took >= WINDOW)
}

fn kb(bytes: usize) -> String {
    format!("{:.1} KB", bytes as f64 / 1000.0)
}

fn print(a: &Args, rows: &[Row], memory: &[Memory]) {
    let counts: Vec<String> = a.scale.iter().map(u64::to_string).collect();
    println!(
        "\n## Scale: a report on PR 1 with {} records on the records branch (layout 2)\n",
        counts.join(" / ")
    );
    println!(
        "Warm reports: no latency. Cold: a new process, {} ms per call, {} ms more over each tree listing.\n",
        a.latency.as_millis(),
        a.listing.as_millis()
    );
    println!("| records | report | answer | answered in | calls | bytes sent | of which the records commit | bytes received | sequential | tree listings |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.records,
            r.report.name(),
            r.answer.status,
            ms(r.answer.took),
            r.calls,
            r.bytes,
            r.commit,
            r.received,
            r.sequential,
            r.listings
        );
    }
    println!("\nThe calls of each report, in order:\n");
    for r in rows {
        println!(
            "- {} records, {}: {}",
            r.records,
            r.report.name(),
            r.routes.join(" → ")
        );
    }
    println!("\n| records | seeding the fake | server RSS after its cold report | its peak RSS |\n| --- | --- | --- | --- |");
    for m in memory {
        println!(
            "| {} | {} | {:.1} MiB | {:.1} MiB |",
            m.records,
            ms(m.seeding),
            m.rss as f64 / 1024.0,
            m.peak as f64 / 1024.0
        );
    }
    let of = |report: Report| -> Vec<&Row> { rows.iter().filter(|r| r.report == report).collect() };
    let met = |ok: bool| if ok { "met" } else { "NOT met" };
    println!("\n### Goals\n");
    for report in [Report::Moved, Report::Second, Report::Steady] {
        let rows = of(report);
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            let ratio = last.bytes as f64 / first.bytes.max(1) as f64;
            println!(
                "- bytes per report ({}): {} at {} records, {} at {} ({ratio:.2}×; goal at most 2×): {}",
                report.name(),
                kb(last.bytes),
                last.records,
                kb(first.bytes),
                first.records,
                met(ratio <= 2.0)
            );
        }
    }
    for report in Report::ALL {
        let rows = of(report);
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            println!(
                "- bytes received per report ({}; no goal): {} at {} records, {} at {} ({:.1}×)",
                report.name(),
                kb(last.received),
                last.records,
                kb(first.received),
                first.records,
                last.received as f64 / first.received.max(1) as f64
            );
        }
    }
    for report in Report::ALL {
        let calls: Vec<String> = of(report)
            .iter()
            .map(|r| format!("{} at {}", r.calls, r.records))
            .collect();
        let same = of(report).windows(2).all(|w| w[0].calls == w[1].calls);
        println!(
            "- calls per report ({}) unchanged across counts: {}: {}",
            report.name(),
            calls.join(", "),
            met(same)
        );
    }
    for r in of(Report::Cold) {
        let inside = r.answer.status == 200 && r.answer.took < WINDOW;
        println!(
            "- cold first report at {} records answered {} in {}, {} tree listing(s), within GitHub's {} s window: {}",
            r.records,
            r.answer.status,
            ms(r.answer.took),
            r.listings,
            WINDOW.as_secs(),
            met(inside)
        );
    }
}
