//! Whether a loop converges, run by run: the ledger's counts, the one line the check run
//! says, and the verdict the dashboard marks (docs/reference.md#the-finding-ledger).

use serde::Serialize;

/// One run's counts. `late` is counted within `new`, `regressed` within `carried`:
/// `new + carried` is what the run raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RunCounts {
    pub run: u32,
    pub new: u32,
    pub late: u32,
    pub carried: u32,
    pub resolved: u32,
    pub regressed: u32,
    /// The earliest run since whose candidate the late findings' files were unchanged.
    #[serde(skip)]
    pub(crate) late_since: Option<u32>,
}

impl RunCounts {
    /// What the run raised.
    #[must_use]
    pub(crate) fn raised(&self) -> u32 {
        self.new + self.carried
    }

    /// `3 (2 late) / 1 / 4`: new, carried, resolved, for the rounds table.
    #[must_use]
    pub fn cell(&self) -> String {
        let new = if self.late > 0 {
            format!("{} ({} late)", self.new, self.late)
        } else {
            self.new.to_string()
        };
        let carried = if self.regressed > 0 {
            format!("{} ({} regressed)", self.carried, self.regressed)
        } else {
            self.carried.to_string()
        };
        format!("{new} / {carried} / {}", self.resolved)
    }
}

/// Every run's counts, in order: `record.convergence` of `status --json`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Convergence {
    pub runs: Vec<RunCounts>,
}

impl Convergence {
    /// Whether the last run converges; `None` before a second run.
    #[must_use]
    pub fn last_converges(&self) -> Option<bool> {
        let [.., before, last] = self.runs.as_slice() else {
            return None;
        };
        Some(converges(before, last))
    }

    /// The check run's line for the last run, `None` before any.
    #[must_use]
    pub fn line(&self) -> Option<String> {
        let last = self.runs.last()?;
        let Some(before) = self.runs.len().checked_sub(2).map(|i| &self.runs[i]) else {
            return Some(format!(
                "round {}: {} raised — the first round",
                last.run, last.new
            ));
        };
        let mut new = format!("{} new", last.new);
        if last.late > 0 {
            let of = if last.late == last.new {
                "all late".to_owned()
            } else {
                format!("{} of them late", last.late)
            };
            let since = last
                .late_since
                .map(|r| format!(" on files unchanged since round {r}"))
                .unwrap_or_default();
            new = format!("{new}, {of}{since};");
        } else {
            new.push(',');
        }
        let carried = if last.regressed > 0 {
            format!(
                "{} carried ({} regressed after being resolved)",
                last.carried, last.regressed
            )
        } else {
            format!("{} carried", last.carried)
        };
        let verdict = if converges(before, last) {
            "converging"
        } else {
            "not converging"
        };
        Some(format!(
            "round {}: {new} {carried}, {} resolved — {verdict}",
            last.run, last.resolved
        ))
    }
}

/// A run converges when it raises nothing late and nothing already resolved, and leaves
/// fewer findings open than the run before (or none).
#[must_use]
pub fn converges(before: &RunCounts, run: &RunCounts) -> bool {
    run.late == 0 && run.regressed == 0 && (run.raised() == 0 || run.raised() < before.raised())
}
