//! What the loop simulator measured, and its markdown tables: one row per scenario, then
//! one per round.

use std::time::Duration;

/// Review threads opened, resolved and reopened (unresolved).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Threads {
    pub opened: usize,
    pub resolved: usize,
    pub reopened: usize,
}

impl Threads {
    /// What changed between two views of a PR's threads (`(node id, resolved)` each).
    pub fn between(before: &[(String, bool)], after: &[(String, bool)]) -> Threads {
        let mut t = Threads::default();
        for (id, resolved) in after {
            match before.iter().find(|(b, _)| b == id).map(|(_, r)| *r) {
                None => {
                    t.opened += 1;
                    t.resolved += usize::from(*resolved);
                }
                Some(false) if *resolved => t.resolved += 1,
                Some(true) if !*resolved => t.reopened += 1,
                Some(_) => {}
            }
        }
        t
    }

    fn add(self, o: Threads) -> Threads {
        Threads {
            opened: self.opened + o.opened,
            resolved: self.resolved + o.resolved,
            reopened: self.reopened + o.reopened,
        }
    }

    fn cell(self) -> String {
        format!("{} / {} / {}", self.opened, self.resolved, self.reopened)
    }
}

/// One round: the fixer's push (none in round 1), the auditor's report, what they left.
#[derive(Debug, Clone)]
pub struct Round {
    pub number: u32,
    pub head: String,
    /// The answer to the push's `synchronize`.
    pub push: Option<u16>,
    /// The answer to the report's comment.
    pub report: u16,
    /// Findings the report raised.
    pub raised: usize,
    /// The routes of the report's writes.
    pub writes: Vec<String>,
    pub calls: usize,
    /// The record's `audit_state` after the report.
    pub state: String,
    /// The check run on the head after the report.
    pub conclusion: String,
    pub convergence: Option<String>,
    /// The App's refusals posted during the round.
    pub refused: Vec<String>,
    /// Thread changes over the round, as the fake keeps the threads.
    pub threads: Threads,
}

/// One scenario's loop.
#[derive(Debug, Clone)]
pub struct Run {
    pub name: &'static str,
    pub pr: u64,
    pub rounds: Vec<Round>,
    /// Threads asked for, resolved and unresolved in the app's mutations.
    pub asked: Threads,
    /// Reviews the fake kept.
    pub reviews: usize,
    /// Failures: 5xx, unserved calls, review mutation errors, reports not answered 2xx.
    pub problems: Vec<String>,
    /// Calls GitHub answered 4xx (a 404 is how an absent file or ref is read).
    pub notes: Vec<String>,
}

impl Run {
    pub fn new(name: &'static str, pr: u64) -> Run {
        Run {
            name,
            pr,
            rounds: Vec::new(),
            asked: Threads::default(),
            reviews: 0,
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The first round whose record ended in `state`.
    fn first(&self, state: &str) -> Option<u32> {
        self.rounds
            .iter()
            .find(|r| r.state == state)
            .map(|r| r.number)
    }

    fn outcome(&self) -> String {
        let at = |s: &str| self.first(s).map(|n| format!("{s} in round {n}"));
        let said: Vec<String> = ["certified", "blocked"]
            .into_iter()
            .filter_map(at)
            .collect();
        if said.is_empty() {
            let last = self.rounds.last().map_or("-", |r| r.state.as_str());
            format!("{last} after {} rounds", self.rounds.len())
        } else {
            said.join(", then ")
        }
    }

    fn not_converging(&self) -> String {
        let first = self.rounds.iter().find(|r| {
            r.convergence
                .as_deref()
                .is_some_and(|l| l.contains("not converging"))
        });
        first.map_or("never".to_owned(), |r| format!("round {}", r.number))
    }

    fn writes(&self) -> String {
        let w: Vec<String> = self
            .rounds
            .iter()
            .map(|r| r.writes.len().to_string())
            .collect();
        w.join(", ")
    }
}

/// `text` as one cell of a markdown table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

pub fn print(runs: &[Run], latency: Duration, cap: u32) {
    println!(
        "\n## Loop simulator: {} scenarios, one PR each, at most {cap} rounds, {} ms per GitHub call\n",
        runs.len(),
        latency.as_millis()
    );
    println!("| scenario | rounds | outcome | first \"not converging\" | threads opened / resolved / reopened (fake's reviews) | same, in the mutations sent | writes per report |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for r in runs {
        let kept = r
            .rounds
            .iter()
            .fold(Threads::default(), |t, x| t.add(x.threads));
        println!(
            "| {} (PR {}) | {} | {} | {} | {} ({} review{}) | {} | {} |",
            r.name,
            r.pr,
            r.rounds.len(),
            r.outcome(),
            r.not_converging(),
            kept.cell(),
            r.reviews,
            if r.reviews == 1 { "" } else { "s" },
            r.asked.cell(),
            r.writes()
        );
    }
    println!("\n| scenario | round | head | push | report | raised | writes / calls | record | check run | convergence line | threads + / resolved / reopened |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in runs {
        for x in &r.rounds {
            println!(
                "| {} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} |",
                r.name,
                x.number,
                short(&x.head),
                x.push.map_or("-".to_owned(), |s| s.to_string()),
                x.report,
                x.raised,
                x.writes.len(),
                x.calls,
                x.state,
                cell(&x.conclusion),
                cell(x.convergence.as_deref().unwrap_or("(none)")),
                x.threads.cell()
            );
        }
    }
    let mut shapes: Vec<&Vec<String>> = runs
        .iter()
        .flat_map(|r| &r.rounds)
        .map(|x| &x.writes)
        .collect();
    shapes.sort();
    shapes.dedup();
    for writes in shapes {
        println!("\nwrites of a report: {}", writes.join(", "));
    }
    for r in runs {
        let refused = r.rounds.iter().flat_map(|x| &x.refused);
        for line in refused {
            println!("\n{}: refusal posted: {line}", r.name);
        }
        for p in &r.problems {
            println!("\n{}: PROBLEM: {p}", r.name);
        }
        for n in &r.notes {
            println!("\n{}: answered 4xx: {n}", r.name);
        }
    }
}
