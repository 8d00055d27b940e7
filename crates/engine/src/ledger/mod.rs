//! The finding ledger (docs/reference.md#the-finding-ledger): for each finding key (or id,
//! when the finding has none), the run and candidate that first raised it and what became
//! of it in each later run. Derived from the history every time, never stored apart: the
//! one fact it needs that the runs alone do not hold, whether a new finding is late, was
//! recorded with the finding when its run was accepted (`late_since`, see [`late`]).

pub(crate) mod convergence;
pub mod late;

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::ids::{Artifact, FindingId, FindingKey};
use crate::record::{FindingSummary, Record};

pub use convergence::{converges, Convergence, RunCounts};

/// What the ledger follows a finding by: its key, or its id when it has none (ids are
/// numbered per run, so an unkeyed finding is followed only while its id stays).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LedgerKey {
    Key(FindingKey),
    Id(FindingId),
}

impl LedgerKey {
    #[must_use]
    pub fn of(finding: &FindingSummary) -> Self {
        Self::of_parts(finding.key.as_ref(), &finding.id)
    }

    /// For a finding known by its key and id.
    #[must_use]
    pub fn of_parts(key: Option<&FindingKey>, id: &FindingId) -> Self {
        match key {
            Some(k) => Self::Key(k.clone()),
            None => Self::Id(id.clone()),
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::Key(k) => k.as_str(),
            Self::Id(id) => id.as_str(),
        }
    }
}

impl fmt::Display for LedgerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a run did to a key raised before, or its first raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Raise {
    /// First raised in this run.
    New,
    /// Raised again, as in the run before.
    Carried,
    /// Raised again after a run that no longer raised it.
    Regressed,
    /// Raised before, absent from this run.
    Resolved,
}

/// What maintainers made of a key's finding in a run, where they did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Settled {
    Waived,
    Disposed,
    Vetoed,
}

/// One run's word on a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyState {
    pub(crate) run: u32,
    pub raise: Raise,
    /// For a raised key: how maintainers settled that run's finding, when they did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled: Option<Settled>,
}

/// A key's line in the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHistory {
    pub key: LedgerKey,
    pub first_run: u32,
    pub first_candidate: Artifact,
    /// First raised late: every file its evidence cites was unchanged since the candidate
    /// of this earlier run.
    pub(crate) late_since: Option<u32>,
    /// From its first run on, one state per run (a resolved key stays `Resolved` until it
    /// is raised again).
    pub states: Vec<KeyState>,
}

impl KeyHistory {
    /// Its state in run `run`, once it was first raised.
    #[must_use]
    pub fn state(&self, run: u32) -> Option<&KeyState> {
        self.states.iter().find(|s| s.run == run)
    }

    /// Raised in `run` (new, carried or regressed).
    #[must_use]
    pub(crate) fn raised_in(&self, run: u32) -> bool {
        self.state(run).is_some_and(|s| s.raise != Raise::Resolved)
    }
}

/// Every key's history, in the order they were first raised.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ledger {
    pub keys: Vec<KeyHistory>,
    /// The runs, in order.
    pub(crate) runs: Vec<u32>,
}

impl Ledger {
    /// The ledger of `record`.
    #[must_use]
    pub fn of(record: &Record) -> Self {
        let settled = settlements(record);
        let mut keys: Vec<KeyHistory> = Vec::new();
        let mut at: BTreeMap<LedgerKey, usize> = BTreeMap::new();
        let mut runs = Vec::new();
        for run in record.runs() {
            runs.push(run.run);
            let mut raised: BTreeMap<LedgerKey, &FindingSummary> = BTreeMap::new();
            for f in &run.findings {
                raised.entry(LedgerKey::of(f)).or_insert(f);
            }
            for history in &mut keys {
                let before = history.states.last().map(|s| s.raise);
                let raise = match (raised.contains_key(&history.key), before) {
                    (true, Some(Raise::Resolved)) => Raise::Regressed,
                    (true, _) => Raise::Carried,
                    (false, _) => Raise::Resolved,
                };
                let settled = raised
                    .get(&history.key)
                    .and_then(|f| settled.get(&(run.run, f.id.clone())).copied());
                history.states.push(KeyState {
                    run: run.run,
                    raise,
                    settled,
                });
            }
            for (key, f) in raised {
                if at.contains_key(&key) {
                    continue;
                }
                at.insert(key.clone(), keys.len());
                keys.push(KeyHistory {
                    key,
                    first_run: run.run,
                    first_candidate: run.candidate_artifact.clone(),
                    late_since: f.late_since.filter(|_| run.run > 1),
                    states: vec![KeyState {
                        run: run.run,
                        raise: Raise::New,
                        settled: settled.get(&(run.run, f.id.clone())).copied(),
                    }],
                });
            }
        }
        Ledger { keys, runs }
    }

    /// The key's history, when it was ever raised.
    #[must_use]
    pub fn key(&self, key: &LedgerKey) -> Option<&KeyHistory> {
        self.keys.iter().find(|k| &k.key == key)
    }

    /// The counts of run `run`.
    #[must_use]
    pub fn counts(&self, run: u32) -> RunCounts {
        let mut c = RunCounts {
            run,
            ..RunCounts::default()
        };
        for k in &self.keys {
            match k.state(run).map(|s| s.raise) {
                Some(Raise::New) => {
                    c.new += 1;
                    if k.late_since.is_some() {
                        c.late += 1;
                        c.late_since = c.late_since.min(k.late_since).or(k.late_since);
                    }
                }
                Some(Raise::Carried) => c.carried += 1,
                Some(Raise::Regressed) => {
                    c.carried += 1;
                    c.regressed += 1;
                }
                Some(Raise::Resolved) if k.raised_in(run.saturating_sub(1)) => c.resolved += 1,
                _ => {}
            }
        }
        c
    }

    /// The counts of every run, in order.
    #[must_use]
    pub fn convergence(&self) -> Convergence {
        Convergence {
            runs: self.runs.iter().map(|r| self.counts(*r)).collect(),
        }
    }
}

/// Per (run, finding id): how maintainers settled that finding. A veto counts from the
/// round it is in force for; a waiver and a disposition name their run.
fn settlements(record: &Record) -> BTreeMap<(u32, FindingId), Settled> {
    let mut out = BTreeMap::new();
    for run in record.runs() {
        for f in &run.findings {
            let vetoed = f
                .key
                .as_ref()
                .is_some_and(|k| record.veto_on(k, run.run + 1).is_some());
            if vetoed {
                out.insert((run.run, f.id.clone()), Settled::Vetoed);
            }
        }
    }
    for d in record.dispositions() {
        out.entry((d.finding.run, d.finding.id.clone()))
            .or_insert(Settled::Disposed);
    }
    for w in record.waived() {
        out.insert((w.finding.run, w.finding.id.clone()), Settled::Waived);
    }
    out
}
