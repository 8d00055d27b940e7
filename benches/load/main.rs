//! The load tool: the real `auditloop serve` binary against a fast local fake of GitHub
//! with a fixed latency per call, driven with signed deliveries. See BENCHMARKS.md.
//!
//! cargo bench --bench load -- [--prs 200] [--repos 200] [--rounds 1] [--latency-ms 50]
//!                             [--mix report,status] [--scale 10000]

// Rates and means over call counts and byte sizes far below 2^52, printed to two places.
#![allow(clippy::cast_precision_loss)]
//!
//! Each PR is opened and given a record first (unmeasured, no latency); then in each round
//! every PR receives one command of the mix at the same moment. Printed: deliveries per
//! second, handling latency p50/p95/p99, GitHub calls per command kind by route, the
//! longest chain of dependent calls, token requests, RSS and CPU time of the server; then
//! a report on a records branch holding one record next to one holding `--scale`.

mod fake;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use fake::{Call, Fake};

const SECRET: &str = "load-webhook-secret";
const BRANCH: &str = "heads/auditloop-records";
const INSTALLATION: u64 = 4242;

struct Args {
    prs: u64,
    repos: u64,
    rounds: u64,
    latency: Duration,
    mix: Vec<String>,
    scale: u64,
}

fn args() -> Args {
    let mut a = Args {
        prs: 200,
        repos: 200,
        rounds: 1,
        latency: Duration::from_millis(50),
        mix: vec!["report".into()],
        scale: 10_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_default();
        match flag.as_str() {
            "--prs" => a.prs = value().parse().expect("--prs N"),
            "--repos" => a.repos = value().parse().expect("--repos N"),
            "--rounds" => a.rounds = value().parse().expect("--rounds N"),
            "--latency-ms" => a.latency = Duration::from_millis(value().parse().expect("ms")),
            "--mix" => a.mix = value().split(',').map(str::to_owned).collect(),
            "--scale" => a.scale = value().parse().expect("--scale N"),
            _ => {} // `cargo bench` passes --bench
        }
    }
    a.repos = a.repos.clamp(1, a.prs.max(1));
    a
}

fn manifest(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(manifest(&format!("tests/fixtures/webhooks/{name}.json")))
        .expect("example payload");
    serde_json::from_str(&text).expect("JSON")
}

fn repo_name(k: u64) -> String {
    format!("octo-org/repo-{k}")
}

fn retarget(mut v: Value, repo: &str) -> Value {
    let (owner, name) = repo.split_once('/').unwrap();
    v["repository"]["full_name"] = json!(repo);
    v["repository"]["name"] = json!(name);
    v["repository"]["owner"]["login"] = json!(owner);
    v["repository"]["default_branch"] = json!("main");
    v["repository"]["html_url"] = json!(format!("https://github.com/{repo}"));
    v["installation"] = json!({"id": INSTALLATION});
    v
}

fn head_of(repo: &str, pr: u64) -> String {
    fake::sha_of("head", &format!("{repo}#{pr}"))
}

fn opened(repo: &str, pr: u64) -> Value {
    let mut v = retarget(fixture("pull_request.opened"), repo);
    v["number"] = json!(pr);
    v["pull_request"]["number"] = json!(pr);
    v["pull_request"]["head"]["sha"] = json!(head_of(repo, pr));
    v["pull_request"]["body"] = json!(format!("Change {pr}.\n\nCloses #{}\n", 100_000 + pr));
    v["pull_request"]["user"]["login"] = json!("alice");
    v
}

fn comment(repo: &str, pr: u64, id: u64, body: &str) -> Value {
    let mut v = retarget(fixture("issue_comment.created"), repo);
    v["issue"]["number"] = json!(pr);
    v["issue"]["pull_request"] =
        json!({"url": format!("https://api.github.com/repos/{repo}/pulls/{pr}")});
    v["comment"]["id"] = json!(id);
    v["comment"]["body"] = json!(body);
    v["comment"]["user"]["login"] = json!("alice");
    v["comment"]["user"]["type"] = json!("User");
    v["sender"]["login"] = json!("alice");
    v
}

fn report_body(repo: &str, pr: u64, audit: &str, invocation: &str) -> String {
    let text = std::fs::read_to_string(manifest("tests/fixtures/reports/valid.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["audit_id"] = json!(audit);
    v["work_unit"] = json!(format!("pr:{pr}"));
    v["candidate_artifact"] = json!(format!("commit:{}", head_of(repo, pr)));
    v["covered_tasks"] = json!([format!("#{}", 100_000 + pr)]);
    v["invocation"]["ref"] = json!(invocation);
    v["verdict"] = json!("needs_remediation");
    format!(
        "/audit report\n\n```json\n{}\n```\n",
        serde_json::to_string_pretty(&v).unwrap()
    )
}

const NEW: &str = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run green\"";

struct Server {
    child: Child,
    addr: SocketAddr,
    http: reqwest::Client,
}

impl Server {
    async fn start(api: SocketAddr) -> Server {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let child = Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .arg("serve")
            .env("AUDITLOOP_APP_ID", "1")
            .env(
                "AUDITLOOP_PRIVATE_KEY_PATH",
                manifest("tests/fixtures/app-key.pem"),
            )
            .env("AUDITLOOP_WEBHOOK_SECRET", SECRET)
            .env("AUDITLOOP_GITHUB_API_URL", format!("http://{api}"))
            .env("AUDITLOOP_LISTEN", addr.to_string())
            .env("AUDITLOOP_REDELIVER_INTERVAL", "0")
            // The sweeps are measured by their own tests; here they would only add calls.
            .env("AUDITLOOP_RECONCILE_INTERVAL", "0")
            .env("AUDITLOOP_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("auditloop serve");
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1024)
            .build()
            .unwrap();
        let server = Server { child, addr, http };
        for _ in 0..200 {
            let up = server
                .http
                .get(format!("http://{addr}/healthz"))
                .send()
                .await;
            if up.is_ok_and(|r| r.status().is_success()) {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("auditloop serve did not answer /healthz");
    }

    async fn deliver(&self, event: &str, id: &str, payload: &Value) -> (u16, Duration) {
        let body = serde_json::to_vec(payload).unwrap();
        let sig = auditloop::server::signature::sign(SECRET.as_bytes(), &body);
        let started = Instant::now();
        let r = self
            .http
            .post(format!("http://{}/webhook", self.addr))
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", id)
            .header("x-hub-signature-256", sig)
            .body(body)
            .send()
            .await;
        let status = r.map_or(0, |r| r.status().as_u16());
        (status, started.elapsed())
    }

    /// `VmRSS` or `VmHWM` (peak) in KiB.
    fn memory(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        text.lines()
            .find_map(|l| {
                l.strip_prefix(field)?
                    .trim_start_matches(':')
                    .trim()
                    .strip_suffix("kB")
            })
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    /// User + system CPU time (clock ticks of 10 ms, Linux's default).
    fn cpu(&self) -> Duration {
        let text =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let after = text.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<u64> = after
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        // After the state letter: utime is field 14, stime 15 of /proc/PID/stat.
        let ticks = fields.get(10).unwrap_or(&0) + fields.get(11).unwrap_or(&0);
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

fn audit_id_of(fake: &Fake, repo: &str, pr: u64) -> String {
    let data = fake.data.lock().unwrap();
    let index = data
        .git
        .get(repo)
        .and_then(|g| g.file(BRANCH, "index.json"));
    let index: Value = index
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or_default();
    index["pulls"][pr.to_string()]
        .as_str()
        .unwrap_or("AUD-1")
        .to_owned()
}

async fn setup(server: &Server, fake: &Fake, prs: &[(String, u64)]) {
    // Repositories in parallel, each one's PRs in turn (no latency while setting up).
    let mut by_repo: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (repo, pr) in prs {
        fake.add_pull(repo, *pr, &head_of(repo, *pr));
        by_repo.entry(repo).or_default().push(*pr);
    }
    let jobs = by_repo.into_iter().map(|(repo, prs)| async move {
        for pr in prs {
            let (s1, _) = server
                .deliver(
                    "pull_request",
                    &format!("open-{repo}-{pr}"),
                    &opened(repo, pr),
                )
                .await;
            let id = format!("new-{repo}-{pr}");
            let (s2, _) = server
                .deliver(
                    "issue_comment",
                    &id,
                    &comment(repo, pr, 1_000_000 + pr, NEW),
                )
                .await;
            assert!(s1 == 200 && s2 == 200, "setup of {repo}#{pr}: {s1} {s2}");
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
    let server = Server::start(api).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle = server.memory("VmRSS");
    let prs: Vec<(String, u64)> = (0..a.prs)
        .map(|i| (repo_name(i % a.repos), 1 + i))
        .collect();
    setup(&server, &fake, &prs).await;
    let after_setup = server.memory("VmRSS");
    fake.set_latency(a.latency);
    let cpu_before = server.cpu();
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
                let payload = comment(repo, *pr, 2_000_000 + round * 100_000 + pr, &body);
                kinds.entry(kind.clone()).or_default().push(id.clone());
                let server = &server;
                async move { server.deliver("issue_comment", &id, &payload).await }
            })
            .collect();
        let at = Instant::now();
        let answers = futures::future::join_all(jobs).await;
        round_walls.push((kind.clone(), at.elapsed()));
        for (status, took) in answers {
            *statuses.entry(status).or_default() += 1;
            latencies.push(took);
        }
    }
    let wall = started.elapsed();
    let cpu = server.cpu().saturating_sub(cpu_before);
    let peak = server.memory("VmHWM");
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
        .values()
        .flatten()
        .filter(|c| {
            c["body"]
                .as_str()
                .is_some_and(|b| b.starts_with("auditloop: refused"))
        })
        .count();

    println!(
        "\n## Load: {} PRs in {} repositories × {} rounds ({}), {} ms per GitHub call\n",
        a.prs,
        a.repos,
        a.rounds,
        a.mix.join(","),
        a.latency.as_millis()
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
        "| server RSS idle / after setup / peak | {:.1} / {:.1} / {:.1} MiB |",
        idle as f64 / 1024.0,
        after_setup as f64 / 1024.0,
        peak as f64 / 1024.0
    );
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
            .filter(|(r, _)| !r.starts_with("GET"))
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

/// A report on a branch with one record next to one with `scale` records.
async fn scale(a: &Args) {
    let (fake, api) = start_fake(Duration::ZERO).await;
    let server = Server::start(api).await;
    let mut rows = Vec::new();
    for (repo, extra) in [
        ("octo-org/one-record", 0),
        ("octo-org/many-records", a.scale.saturating_sub(1)),
    ] {
        setup(&server, &fake, &[(repo.to_owned(), 1)]).await;
        if extra > 0 {
            let mut data = fake.data.lock().unwrap();
            let git = data.git.get_mut(repo).unwrap();
            let mut index: Value =
                serde_json::from_str(&git.file(BRANCH, "index.json").unwrap()).unwrap();
            let record = git.file(BRANCH, "records/AUD-1.json").unwrap();
            let mut files = Vec::new();
            for i in 0..extra {
                let (id, pr) = (format!("AUD-{}", i + 2), 10_000 + i);
                index["pulls"][pr.to_string()] = json!(id);
                index["work_units"][format!("pr:{pr}")] = json!(id);
                files.push((format!("records/{id}.json"), record.replace("AUD-1", &id)));
            }
            index["next"] = json!(extra + 2);
            files.push((
                "index.json".to_owned(),
                serde_json::to_string_pretty(&index).unwrap() + "\n",
            ));
            git.commit_files(BRANCH, &files);
        }
        // One report to see the branch as it now is, then the one measured.
        for round in 0..2 {
            let body = report_body(repo, 1, "AUD-1", &format!("scale-{round}"));
            let id = format!("scale-{repo}-{round}");
            let (status, _) = server
                .deliver(
                    "issue_comment",
                    &id,
                    &comment(repo, 1, 3_000_000 + round, &body),
                )
                .await;
            assert_eq!(status, 200, "{repo}: report {round}");
            let log = fake.log.lock().unwrap().clone();
            let calls = by_delivery(&log);
            let of = calls.get(&id).cloned().unwrap_or_default();
            let bytes: usize = of.iter().map(|c| c.bytes).sum();
            let tree: usize = of
                .iter()
                .filter(|c| c.route.ends_with("git/trees"))
                .map(|c| c.bytes)
                .sum();
            rows.push((
                repo,
                extra + 1,
                round,
                of.len(),
                bytes,
                tree,
                chain(&of).len(),
            ));
        }
    }
    println!(
        "\n## Scale: a report with 1 record vs {} on the records branch (no latency)\n",
        a.scale
    );
    println!("| records | report | calls | bytes sent | of which the new tree | sequential |\n| --- | --- | --- | --- | --- | --- |");
    for (_, records, round, calls, bytes, tree, seq) in rows {
        let which = if round == 0 {
            "first after the branch moved"
        } else {
            "steady state"
        };
        println!("| {records} | {which} | {calls} | {bytes} | {tree} | {seq} |");
    }
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        load(&a).await;
        if a.scale > 0 {
            scale(&a).await;
        }
    });
}
