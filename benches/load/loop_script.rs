//! The loop simulator's scripts: for each scenario, what the auditor raises in each round
//! and which files the fixer changes before it. Pure data; `loop_sim.rs` plays them.

/// A blocking finding: its key and the line its first evidence ref cites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raise {
    pub key: String,
    pub path: &'static str,
    pub line: u32,
}

fn raise(key: &str, path: &'static str, line: u32) -> Raise {
    Raise {
        key: key.to_owned(),
        path,
        line,
    }
}

/// One scripted loop on its own pull request.
pub struct Scenario {
    pub name: &'static str,
    pub pr: u64,
    /// The files the pull request adds at its first head.
    pub files: &'static [&'static str],
    /// What the auditor raises in round `n` (from 1).
    pub auditor: fn(u32) -> Vec<Raise>,
    /// The files the fixer changes in its push before round `n` (from 2).
    pub fixer: fn(u32) -> Vec<&'static str>,
    /// The rounds the script has; the run also stops once the record is blocked.
    pub rounds: u32,
}

const A: &str = "src/replay.rs";
const B: &str = "src/limits.rs";
const WORK: &str = "src/work.rs";
const STABLE_A: &str = "src/stable_a.rs";
const STABLE_B: &str = "src/stable_b.rs";

/// Converging: everything in round 1; the fixer fixes both files; round 2 raises nothing.
fn converging(round: u32) -> Vec<Raise> {
    match round {
        1 => vec![raise("replay", A, 10), raise("limit", B, 20)],
        _ => Vec::new(),
    }
}

/// Drip-feeding: two new findings a round on files the fixer never touches (it works in `WORK`):
/// from round 2 each could have been raised in round 1. The round before's are dropped, so
/// the count stays flat and only their lateness says the loop is not converging.
fn drip_feeding(round: u32) -> Vec<Raise> {
    let line = round * 3;
    vec![
        raise(&format!("drip-{}", 2 * round - 1), STABLE_A, line),
        raise(&format!("drip-{}", 2 * round), STABLE_B, line),
    ]
}

/// Flip-flopping: `flip` raised, dropped once the fixer changed its file, raised again on that file
/// unchanged since.
fn flip_flopping(round: u32) -> Vec<Raise> {
    if round % 2 == 1 {
        vec![raise("flip", A, 12)]
    } else {
        Vec::new()
    }
}

/// A fix that breaks a fix: round 2 sees `replay` fixed; the fixer's next push, fixing `limit`, breaks it again.
fn regressing(round: u32) -> Vec<Raise> {
    match round {
        1 => vec![raise("replay", A, 10), raise("limit", B, 20)],
        2 => vec![raise("limit", B, 20)],
        _ => vec![raise("replay", A, 10)],
    }
}

fn fixes_both(_: u32) -> Vec<&'static str> {
    vec![A, B]
}

fn works_elsewhere(_: u32) -> Vec<&'static str> {
    vec![WORK]
}

/// Fixes `A` once, then only touches `WORK`.
fn fixes_then_elsewhere(round: u32) -> Vec<&'static str> {
    if round == 2 {
        vec![A]
    } else {
        vec![WORK]
    }
}

/// Fixes `A`, then fixes `B` and changes `A` again in the same push.
fn fixes_then_breaks(round: u32) -> Vec<&'static str> {
    if round == 2 {
        vec![A]
    } else {
        vec![A, B]
    }
}

/// The four scenarios, each capped at `cap` rounds.
pub fn scenarios(cap: u32) -> Vec<Scenario> {
    let files: &'static [&'static str] = &[A, B, WORK, STABLE_A, STABLE_B];
    vec![
        Scenario {
            name: "converging",
            pr: 1,
            files,
            auditor: converging,
            fixer: fixes_both,
            rounds: cap.min(2),
        },
        Scenario {
            name: "drip-feeding",
            pr: 2,
            files,
            auditor: drip_feeding,
            fixer: works_elsewhere,
            rounds: cap,
        },
        Scenario {
            name: "flip-flopping",
            pr: 3,
            files,
            auditor: flip_flopping,
            fixer: fixes_then_elsewhere,
            rounds: cap.min(3),
        },
        Scenario {
            name: "fix breaks a fix",
            pr: 4,
            files,
            auditor: regressing,
            fixer: fixes_then_breaks,
            rounds: cap.min(3),
        },
    ]
}
