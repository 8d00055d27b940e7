//! The load tool's command line (see `main.rs` for its forms).

use std::time::Duration;

use crate::chaos;
use crate::server::Spread;

/// What a run was asked for on the command line.
pub struct Args {
    pub prs: u64,
    pub repos: u64,
    pub rounds: u64,
    pub latency: Duration,
    pub mix: Vec<String>,
    /// Record counts of the scale part (`--scale`), 1 first; empty: no scale part.
    pub scale: Vec<u64>,
    pub replicas: usize,
    pub spread: Spread,
    pub chaos: Option<chaos::Options>,
    pub self_test: bool,
    /// Record counts at which a cold process's first report is measured (`--cold`).
    pub cold: Vec<u64>,
    /// How long the fake takes, on top of the latency, over each tree listing: a recursive
    /// REST tree, or a first read that lists the records (`--listing-ms`).
    pub listing: Duration,
    /// GitHub's write limit to play: writes per window (`--limits PER/WINDOW`).
    pub limits: Option<(usize, Duration)>,
    /// `AUDITLOOP_WRITE_GAP_MS` of the servers (`--write-gap-ms`); 0 unless limited.
    pub write_gap_ms: Option<u64>,
    /// The servers' redelivery sweep interval under `--limits` (`--sweep-ms`), in whole
    /// seconds as the setting takes it.
    pub sweep_ms: u64,
    /// `--loop`: the loop simulator, with its round cap (`--loop-rounds`).
    pub loop_rounds: Option<u32>,
}

/// The command line as a run reads it.
pub fn args() -> Args {
    let mut a = Args {
        prs: 200,
        repos: 200,
        rounds: 1,
        latency: Duration::from_millis(50),
        mix: vec!["report".into()],
        scale: scale_counts("10000"),
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
            "--scale" => a.scale = scale_counts(&value()),
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
            "--limits" => a.limits = Some(limits_of(&value())),
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

/// `PER/WINDOW`, as `--limits` takes it.
fn limits_of(text: &str) -> (usize, Duration) {
    let (per, window) = text
        .split_once('/')
        .expect("--limits PER/WINDOW (writes / seconds)");
    (
        per.trim().parse().expect("--limits PER/WINDOW: PER"),
        Duration::from_secs(window.trim().parse().expect("--limits PER/WINDOW: WINDOW")),
    )
}

/// The record counts of `--scale`: `0` alone turns the part off; 1 is always measured, as
/// the base the others are compared with.
fn scale_counts(given: &str) -> Vec<u64> {
    let mut counts: Vec<u64> = given
        .split(',')
        .map(|n| n.trim().parse().expect("--scale N[,N…]"))
        .filter(|n| *n > 0)
        .collect();
    if counts.is_empty() {
        return counts;
    }
    counts.push(1);
    counts.sort_unstable();
    counts.dedup();
    counts
}
