//! `--chaos`: a bounded soak of several replicas against a fake GitHub that fails.
//!
//! For `--seconds S`, up to `--in-flight` deliveries at a time go to the replicas (spread as
//! `--spread` says): the command mix of `chaos_plan.rs` and pushes over `--prs` PRs of one
//! repository, some sent to two replicas at once, some earlier ones redelivered late (same id
//! and body), while the fake injects the shared faults (`auditloop_fake_github::faults`) and replicas are killed (SIGKILL)
//! and restarted. GitHub's delivery log is kept by the fake (`github.rs`): the replicas'
//! redelivery sweeps (every second) ask for the failed deliveries and for those answered
//! `202` whose queue a killed replica lost, and those redeliveries are sent as GitHub sends
//! them. Then faults stop, every delivery without a 2xx is sent again until it gets one,
//! every command answered 2xx or `202` shows its outcome, the reconcile sweeps (every
//! `--reconcile-interval` s) converge the views, and `invariants.rs` checks what is left. Each seed fixes the plan and the faults; threads and
//! timing still vary between runs of one seed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::chaos_plan::{self, Kind};
use crate::fake::Fake;
use crate::github::GitHub;
use crate::invariants::{self, Delivered, Outcome};
use crate::payloads::{comment_by, pushed_head, report_on, synchronize};
use crate::server::{Answer, Cluster, Settings, Spread};
use auditloop_fake_github::faults::Rates;

#[derive(Debug, Clone)]
pub struct Options {
    pub seconds: u64,
    pub seeds: Vec<u64>,
    pub replicas: usize,
    pub spread: Spread,
    pub latency: Duration,
    pub prs: u64,
    pub in_flight: usize,
    pub reconcile: u64,
    pub rates: Rates,
    /// SIGKILLs over the run.
    pub kills: u64,
    /// Share of new deliveries sent to two replicas at once.
    pub duplicate: f64,
    /// Share of sends that redeliver an earlier delivery.
    pub late: f64,
    /// How far RSS may end above where it started, in MiB.
    pub rss_slack_mib: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seconds: 30,
            seeds: Vec::new(),
            replicas: 2,
            spread: Spread::Random,
            latency: Duration::from_millis(20),
            prs: 3,
            in_flight: 4,
            reconcile: 3,
            rates: Rates::default(),
            kills: 0,
            duplicate: 0.1,
            late: 0.15,
            rss_slack_mib: 8,
        }
    }
}

impl Options {
    /// Reads one chaos flag; `None` when `name` is not one.
    pub fn flag(
        &mut self,
        name: &str,
        value: &mut impl FnMut() -> String,
    ) -> Option<Result<(), String>> {
        let v = match name {
            "--seconds"
            | "--seed"
            | "--in-flight"
            | "--reconcile-interval"
            | "--kills"
            | "--duplicate"
            | "--late"
            | "--fault-502-before"
            | "--fault-502-after"
            | "--fault-lost"
            | "--fault-conflict"
            | "--fault-rate-limit"
            | "--rss-slack-mib" => value(),
            _ => return None,
        };
        Some(self.set(name, &v))
    }

    fn set(&mut self, name: &str, v: &str) -> Result<(), String> {
        fn num<T: std::str::FromStr>(v: &str) -> Result<T, String> {
            v.parse().map_err(|_| format!("not a number: {v:?}"))
        }
        match name {
            "--seconds" => self.seconds = num(v)?,
            "--seed" => self.seeds = v.split(',').map(num).collect::<Result<_, _>>()?,
            "--in-flight" => self.in_flight = num::<usize>(v)?.max(1),
            "--reconcile-interval" => self.reconcile = num::<u64>(v)?.max(1),
            "--kills" => self.kills = num(v)?,
            "--duplicate" => self.duplicate = num(v)?,
            "--late" => self.late = num(v)?,
            "--fault-502-before" => self.rates.before = num(v)?,
            "--fault-502-after" => self.rates.after = num(v)?,
            "--fault-lost" => self.rates.lost = num(v)?,
            "--fault-conflict" => self.rates.conflict = num(v)?,
            "--fault-rate-limit" => self.rates.rate_limit = num(v)?,
            "--rss-slack-mib" => self.rss_slack_mib = num(v)?,
            _ => {}
        }
        Ok(())
    }

    fn kills(&self) -> u64 {
        if self.kills > 0 {
            self.kills
        } else {
            // About one every 10 s, at least one.
            (self.seconds / 10).max(1)
        }
    }
}

/// One delivery and what the replicas answered it.
struct Sent {
    id: String,
    kind: Kind,
    pr: u64,
    event: &'static str,
    comment: Option<u64>,
    payload: Arc<Value>,
    answers: Vec<u16>,
}

#[derive(Default)]
struct Counts {
    sends: AtomicU64,
    late: AtomicU64,
    duplicates: AtomicU64,
    crashes: AtomicU64,
    final_resends: AtomicU64,
    answered_5xx_faulted: AtomicU64,
    no_answer_faulted: AtomicU64,
    answered_5xx_after: AtomicU64,
    queued: AtomicU64,
}

struct World<'a> {
    /// Deliveries a live replica did not answer within GitHub's window: id and kind.
    slow: Mutex<Vec<String>>,
    repo: String,
    seed: u64,
    opts: &'a Options,
    fake: &'a Fake,
    cluster: &'a Cluster,
    /// GitHub's side: every send logged with its answer, and the redeliveries asked for.
    github: GitHub<'a>,
    sent: Mutex<Vec<Sent>>,
    pushes: Mutex<BTreeMap<u64, u64>>,
    next: AtomicU64,
    faulted: AtomicBool,
    counts: Counts,
}

fn uuid(rng: &mut impl Rng) -> String {
    uuid::Builder::from_random_bytes(rng.gen())
        .into_uuid()
        .to_string()
}

impl World<'_> {
    fn head(&self, pr: u64) -> String {
        let data = self.fake.data.lock().unwrap();
        data.pulls[&(self.repo.clone(), pr)]["head"]["sha"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// A new delivery of the mix; its index in `sent`.
    fn create(&self, rng: &mut StdRng) -> usize {
        let pr = rng.gen_range(1..=self.opts.prs);
        let kind = chaos_plan::draw(rng);
        let id = uuid(rng);
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let repo = self.repo.as_str();
        let (event, comment, payload) = if kind == Kind::Push {
            // GitHub shows the new head first, then sends the event.
            let mut pushes = self.pushes.lock().unwrap();
            let k = pushes.entry(pr).or_default();
            *k += 1;
            let new = pushed_head(repo, pr, *k);
            let mut data = self.fake.data.lock().unwrap();
            let pull = data.pulls.get_mut(&(repo.to_owned(), pr)).unwrap();
            let old = pull["head"]["sha"].as_str().unwrap_or_default().to_owned();
            pull["head"]["sha"] = json!(new);
            data.left_heads.insert((repo.to_owned(), old.clone()));
            ("pull_request", None, synchronize(repo, pr, &old, &new))
        } else {
            let (body, login) = if kind == Kind::Report {
                let audit = crate::setup::audit_id_of(self.fake, repo, pr);
                let keep = chaos_plan::findings(rng);
                let invocation = format!("chaos-{}-{n}", self.seed);
                let body = report_on(pr, &self.head(pr), &audit, &invocation, |f| {
                    keep.contains(&f)
                });
                (body, "auditor")
            } else {
                let (text, login) = chaos_plan::command(kind, rng);
                (text, login)
            };
            let comment_id = 5_000_000 + n;
            let mut payload = comment_by(repo, pr, comment_id, &body, login);
            crate::payloads::with_description(&mut payload, self.fake, repo, pr);
            ("issue_comment", Some(comment_id), payload)
        };
        let mut sent = self.sent.lock().unwrap();
        sent.push(Sent {
            id,
            kind,
            pr,
            event,
            comment,
            payload: Arc::new(payload),
            answers: Vec::new(),
        });
        sent.len() - 1
    }

    async fn send(&self, index: usize, replica: usize) -> Answer {
        let (event, id, payload) = {
            let sent = self.sent.lock().unwrap();
            let s = &sent[index];
            (s.event, s.id.clone(), s.payload.clone())
        };
        self.counts.sends.fetch_add(1, Ordering::Relaxed);
        let answer = self.github.send(replica, event, &id, &payload).await;
        let faulted = self.faulted.load(Ordering::SeqCst);
        let counter = match (answer.status, faulted) {
            (0, true) => Some(&self.counts.no_answer_faulted),
            (500.., true) => Some(&self.counts.answered_5xx_faulted),
            (500.., false) => Some(&self.counts.answered_5xx_after),
            _ => None,
        };
        if let Some(c) = counter {
            c.fetch_add(1, Ordering::Relaxed);
        }
        if answer.status == 202 {
            self.counts.queued.fetch_add(1, Ordering::Relaxed);
        }
        if answer.timed_out {
            let sent = self.sent.lock().unwrap();
            self.slow.lock().unwrap().push(format!(
                "{} {} on #{} (replica {replica})",
                sent[index].kind.name(),
                id,
                sent[index].pr
            ));
        }
        self.sent.lock().unwrap()[index].answers.push(answer.status);
        answer
    }

    fn pick(&self, rng: &mut StdRng) -> usize {
        self.cluster.pick(&self.repo, rng)
    }

    async fn worker(&self, k: u64, deadline: Instant) {
        let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(1_000_003).wrapping_add(k));
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(rng.gen_range(0..150))).await;
            let earlier = self.sent.lock().unwrap().len();
            if earlier > 0 && rng.gen_bool(self.opts.late) {
                let index = rng.gen_range(0..earlier);
                self.counts.late.fetch_add(1, Ordering::Relaxed);
                let at = self.pick(&mut rng);
                self.send(index, at).await;
                continue;
            }
            let index = self.create(&mut rng);
            let n = self.cluster.len();
            if n > 1 && rng.gen_bool(self.opts.duplicate) {
                self.counts.duplicates.fetch_add(1, Ordering::Relaxed);
                let a = self.pick(&mut rng);
                let b = (a + rng.gen_range(1..n)) % n;
                futures::join!(self.send(index, a), self.send(index, b));
            } else {
                let at = self.pick(&mut rng);
                self.send(index, at).await;
            }
        }
    }

    /// SIGKILLs a replica (never replica 0 when there are several: its RSS is compared
    /// across the run) at spread-out moments, and restarts it after a pause.
    async fn monkey(&self, start: Instant) {
        let mut rng = StdRng::seed_from_u64(self.seed ^ 0x5eed);
        let kills = self.opts.kills();
        let span = Duration::from_secs(self.opts.seconds);
        let n = self.cluster.len();
        for k in 0..kills {
            let at = start + span.mul_f64((k as f64 + rng.gen_range(0.0..0.5)) / kills as f64);
            tokio::time::sleep_until(at.into()).await;
            let victim = if n > 1 { rng.gen_range(1..n) } else { 0 };
            self.cluster.kill(victim);
            self.counts.crashes.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(rng.gen_range(200..800))).await;
            self.cluster.restart(victim).await;
        }
    }

    /// Whether some attempt of delivery `index` (the tool's, or a redelivery the app's
    /// sweep asked for) was answered 2xx (`202` included).
    fn answered_2xx(&self, index: usize) -> bool {
        let id = self.sent.lock().unwrap()[index].id.clone();
        self.github
            .answers(&id)
            .iter()
            .any(|s| (200..300).contains(s))
    }

    /// Faults off: each delivery without a 2xx is sent again (same id and body) until it
    /// gets one, in the order first sent.
    async fn settle(&self) -> usize {
        let mut rng = StdRng::seed_from_u64(self.seed ^ 0xf1a1);
        for _ in 0..30 {
            let n = self.sent.lock().unwrap().len();
            let pending: Vec<usize> = (0..n).filter(|i| !self.answered_2xx(*i)).collect();
            if pending.is_empty() {
                return 0;
            }
            let picks: Vec<(usize, usize)> =
                pending.iter().map(|i| (*i, self.pick(&mut rng))).collect();
            self.counts
                .final_resends
                .fetch_add(picks.len() as u64, Ordering::Relaxed);
            futures::stream::iter(picks)
                .map(|(i, at)| self.send(i, at))
                .buffered(self.opts.in_flight)
                .collect::<Vec<_>>()
                .await;
        }
        let n = self.sent.lock().unwrap().len();
        (0..n).filter(|i| !self.answered_2xx(*i)).count()
    }

    /// Every command answered 2xx or `202` shows its outcome (its +1, or its one reply):
    /// the queues drain, and what a killed replica held queued comes back through the
    /// sweeps. How long that took, and the commands still without one after `bound`.
    async fn drained(&self, bound: Duration) -> (Duration, usize) {
        let started = Instant::now();
        loop {
            let pending = {
                let sent = self.sent.lock().unwrap();
                let data = self.fake.data.lock().unwrap();
                sent.iter()
                    .filter(|s| s.kind.answered())
                    .filter(|s| {
                        let marker = format!("<!-- auditloop:delivery:{} -->", s.id);
                        let plus = s.comment.is_some_and(|c| data.reactions.has(c, "+1"));
                        let replied = data
                            .comments
                            .iter()
                            .any(|c| c.repo == self.repo && c.body.contains(&marker));
                        !plus && !replied
                    })
                    .count()
            };
            if pending == 0 || started.elapsed() > bound {
                return (started.elapsed(), pending);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// What one seed gave, for the summary.
pub struct SeedResult {
    seed: u64,
    deliveries: usize,
    sends: u64,
    faulted_5xx: u64,
    redeliveries: u64,
    crashes: u64,
    duplicates: u64,
    commits: usize,
    broken: Vec<&'static str>,
}

/// Runs every seed in turn; true when an invariant failed on any.
pub async fn run_seeds(opts: &Options) -> bool {
    let seeds = if opts.seeds.is_empty() {
        vec![std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs() % 100_000)]
    } else {
        opts.seeds.clone()
    };
    let mut results = Vec::new();
    for seed in seeds {
        results.push(run(opts, seed).await);
    }
    println!(
        "\n## Chaos summary: {} s, {} replicas ({:?}), {} PRs\n",
        opts.seconds, opts.replicas, opts.spread, opts.prs
    );
    println!("| seed | deliveries | sends | 5xx/no answer while faulted | redeliveries | crashes | duplicate sends | commits | invariants |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in &results {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.seed,
            r.deliveries,
            r.sends,
            r.faulted_5xx,
            r.redeliveries,
            r.crashes,
            r.duplicates,
            r.commits,
            if r.broken.is_empty() {
                "all held".to_owned()
            } else {
                format!("BROKEN: {}", r.broken.join("; "))
            }
        );
    }
    results.iter().any(|r| !r.broken.is_empty())
}

async fn run(opts: &Options, seed: u64) -> SeedResult {
    println!(
        "\n## Chaos, seed {seed}: {} s, {} replicas ({:?}), {} PRs, {} ms per call, faults {:?}\n",
        opts.seconds,
        opts.replicas,
        opts.spread,
        opts.prs,
        opts.latency.as_millis(),
        opts.rates
    );
    let (fake, api) = crate::setup::start_fake(Duration::ZERO).await;
    fake.faults.configure(opts.rates, seed);
    let logs = crate::setup::logs_dir(&format!("chaos-{seed}"));
    let settings = Settings {
        api,
        reconcile: opts.reconcile,
        logs: logs.clone(),

        write_gap_ms: 0,
        // The sweeps every second: failed deliveries, and queued ones a kill lost.
        redeliver: 1,
    };
    let cluster = Cluster::start(settings, opts.replicas, opts.spread).await;
    let repo = "octo-org/chaos".to_owned();
    let prs: Vec<(String, u64)> = (1..=opts.prs).map(|pr| (repo.clone(), pr)).collect();
    crate::setup::setup(&cluster, &fake, &prs).await;
    fake.set_latency(opts.latency);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_start: Vec<u64> = (0..cluster.len())
        .map(|i| cluster.memory(i, "VmRSS"))
        .collect();
    let setup_calls = fake.log.lock().unwrap().len();

    let world = World {
        slow: Mutex::new(Vec::new()),
        repo: repo.clone(),
        seed,
        opts,
        fake: &fake,
        cluster: &cluster,
        github: GitHub::new(&cluster, &fake),
        sent: Mutex::new(Vec::new()),
        pushes: Mutex::new(BTreeMap::new()),
        next: AtomicU64::new(0),
        faulted: AtomicBool::new(true),
        counts: Counts::default(),
    };
    fake.faults.set(true);
    let start = Instant::now();
    let deadline = start + Duration::from_secs(opts.seconds);
    let workers = (0..opts.in_flight as u64).map(|k| world.worker(k, deadline));
    // Faults stop at the deadline; deliveries still in flight then finish without them.
    let faults_off = async {
        tokio::time::sleep_until(deadline.into()).await;
        fake.faults.set(false);
        world.faulted.store(false, Ordering::SeqCst);
    };
    let stop = AtomicBool::new(false);
    let ((faulted_for, unanswered, (drained_in, undrained)), ()) = futures::join!(
        async {
            futures::join!(
                futures::future::join_all(workers),
                world.monkey(start),
                faults_off
            );
            let faulted_for = start.elapsed();
            let unanswered = world.settle().await;
            let drained = world.drained(Duration::from_secs(120)).await;
            stop.store(true, Ordering::SeqCst);
            (faulted_for, unanswered, drained)
        },
        world.github.redeliver_until(&stop, seed)
    );
    let settled = Instant::now();

    // The views converge through the reconcile sweeps: at most one interval, plus one
    // sweep's own calls.
    let bound = Duration::from_secs(opts.reconcile) + Duration::from_secs(5);
    let mut behind;
    loop {
        behind = {
            let data = fake.data.lock().unwrap();
            invariants::views_behind(&data, &repo, &invariants::latest(&data, &repo))
        };
        if behind.is_empty() || settled.elapsed() > bound {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let converged_in = settled.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_end: Vec<u64> = (0..cluster.len())
        .map(|i| cluster.memory(i, "VmRSS"))
        .collect();

    let sent = world.sent.lock().unwrap();
    let delivered: Vec<Delivered<'_>> = sent
        .iter()
        .map(|s| Delivered {
            id: &s.id,
            kind: s.kind,
            pr: s.pr,
            comment: s.comment,
            answered_2xx: world
                .github
                .answers(&s.id)
                .iter()
                .any(|a| (200..300).contains(a)),
        })
        .collect();
    let (records, once, replies, tally, bound_o) = {
        let data = fake.data.lock().unwrap();
        let records = invariants::records(&data, &repo);
        let (once, replies, tally) =
            invariants::commands(&data, &repo, &delivered, &records.by_delivery);
        let bound_o = invariants::bound_to_head(&data, &repo, &records.latest);
        (records, once, replies, tally, bound_o)
    };
    let mut views = Outcome {
        name: "views converge to the records on each current head",
        checked: records.latest.len(),
        violations: behind,
    };
    if views.violations.is_empty() && converged_in > bound {
        views.violations.push(format!("took {converged_in:?}"));
    }
    let panics = invariants::panics(&cluster.logs());
    // Replica 0 is never killed when there are several; a killed one restarts from zero.
    let mut rss = Outcome {
        name: "RSS ends where it started",
        checked: 0,
        violations: Vec::new(),
    };
    let killed = world.counts.crashes.load(Ordering::Relaxed) > 0;
    let survivors = usize::from(cluster.len() > 1 || !killed);
    for i in 0..survivors {
        rss.checked += 1;
        if rss_end[i] > rss_start[i] + opts.rss_slack_mib * 1024 {
            rss.violations.push(format!(
                "replica {i}: {:.1} MiB at the start, {:.1} MiB at the end",
                rss_start[i] as f64 / 1024.0,
                rss_end[i] as f64 / 1024.0
            ));
        }
    }
    let mut answered = Outcome {
        name: "every delivery answered 2xx once faults were off",
        checked: sent.len(),
        violations: Vec::new(),
    };
    if unanswered > 0 {
        answered
            .violations
            .push(format!("{unanswered} deliveries never got a 2xx"));
    }
    if undrained > 0 {
        answered.violations.push(format!(
            "{undrained} commands answered 2xx showed no outcome within {}",
            crate::call_log::ms(drained_in)
        ));
    }
    let served = invariants::served(&fake.log.lock().unwrap());
    let slow = world.slow.lock().unwrap().clone();
    let window = Outcome {
        name: "every delivery answered within GitHub's 10 s",
        checked: sent.iter().map(|s| s.answers.len()).sum(),
        violations: slow,
    };
    let outcomes = [
        records.linear,
        records.chains,
        once,
        replies,
        views,
        bound_o,
        panics,
        rss,
        answered,
        window,
        served,
    ];

    let log = fake.log.lock().unwrap();
    let chaos_calls = &log[setup_calls..];
    let mut injected: BTreeMap<&str, u64> = BTreeMap::new();
    let github_5xx = chaos_calls.iter().filter(|c| c.status >= 500).count();
    for c in chaos_calls {
        if let Some(f) = c.fault {
            *injected.entry(f).or_default() += 1;
        }
    }
    let kind_of: std::collections::HashMap<&str, Kind> =
        sent.iter().map(|s| (s.id.as_str(), s.kind)).collect();
    let mut per_kind: BTreeMap<Kind, (u64, u64, u64)> = BTreeMap::new();
    for s in sent.iter() {
        let e = per_kind.entry(s.kind).or_default();
        e.0 += 1;
        e.1 += s.answers.len() as u64;
    }
    let mut sweep_calls = 0u64;
    for c in chaos_calls {
        match c.delivery.as_deref().and_then(|d| kind_of.get(d)) {
            Some(k) => per_kind.entry(*k).or_default().2 += 1,
            None => sweep_calls += 1,
        }
    }
    let c = &world.counts;
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    println!("| figure | value |\n| --- | --- |");
    println!("| seed | {seed} |");
    println!(
        "| faulted phase / until the last delivery of it answered | {} s / {} |",
        opts.seconds,
        crate::call_log::ms(faulted_for)
    );
    println!("| deliveries | {} ({} sends) |", sent.len(), get(&c.sends));
    println!(
        "| webhook answers 5xx / no answer while faulted | {} / {} |",
        get(&c.answered_5xx_faulted),
        get(&c.no_answer_faulted)
    );
    println!(
        "| webhook answers 5xx once faults were off | {} |",
        get(&c.answered_5xx_after)
    );
    println!("| webhook answers 202 (queued) | {} |", get(&c.queued));
    println!(
        "| late redeliveries during chaos / resends after | {} / {} |",
        get(&c.late),
        get(&c.final_resends)
    );
    println!("| crashes (SIGKILL + restart) | {} |", get(&c.crashes));
    println!(
        "| redeliveries the replicas' sweeps asked for (failed, or queued and lost) | {} |",
        world.github.redelivered.load(Ordering::Relaxed)
    );
    println!(
        "| every command's outcome shown in | {} after the last resend |",
        crate::call_log::ms(drained_in)
    );
    println!(
        "| duplicate sends (one delivery to two replicas at once) | {} |",
        get(&c.duplicates)
    );
    println!("| GitHub faults injected | {injected:?} |");
    println!("| GitHub answers 5xx | {github_5xx} |");
    println!("| records commits | {} |", records.commits);
    println!("| outcomes | {tally:?} |");
    println!(
        "| views converged in | {} after the last 2xx (bound {}) |",
        crate::call_log::ms(converged_in),
        crate::call_log::ms(bound)
    );
    for i in 0..cluster.len() {
        println!(
            "| replica {i} RSS start / end | {:.1} / {:.1} MiB{} |",
            rss_start[i] as f64 / 1024.0,
            rss_end[i] as f64 / 1024.0,
            if i > 0 { " (restarted)" } else { "" }
        );
    }
    println!("| GitHub calls of the sweeps and claims cleanup (no delivery) | {sweep_calls} |");
    println!("| logs | {} |", logs.display());
    println!(
        "\n| command | deliveries | sends | GitHub calls per delivery |\n| --- | --- | --- | --- |"
    );
    for (kind, (n, sends, calls)) in &per_kind {
        println!(
            "| {} | {n} | {sends} | {:.1} |",
            kind.name(),
            *calls as f64 / (*n).max(1) as f64
        );
    }
    println!("\n| invariant | checked | violations |\n| --- | --- | --- |");
    let mut broken = Vec::new();
    for o in &outcomes {
        println!("| {} | {} | {} |", o.name, o.checked, o.violations.len());
        if !o.violations.is_empty() {
            broken.push(o.name);
        }
    }
    for o in outcomes.iter().filter(|o| !o.violations.is_empty()) {
        println!("\nVIOLATED: {}", o.name);
        for v in o.violations.iter().take(12) {
            println!("- {v}");
        }
        if o.violations.len() > 12 {
            println!("- … {} more", o.violations.len() - 12);
        }
    }
    SeedResult {
        seed,
        deliveries: sent.len(),
        sends: get(&c.sends),
        faulted_5xx: get(&c.answered_5xx_faulted) + get(&c.no_answer_faulted),
        redeliveries: get(&c.late) + get(&c.final_resends),
        crashes: get(&c.crashes),
        duplicates: get(&c.duplicates),
        commits: records.commits,
        broken,
    }
}
