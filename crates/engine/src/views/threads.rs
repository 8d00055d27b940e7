//! Findings as review threads on the diff (docs/reference.md#review-threads): which
//! threads a run posts, resolves and unresolves, decided from the ledger, the PR's diff and
//! the threads it already has. A view like the body: the gate never reads a thread.
//!
//! A key keeps one thread for the life of the record. Threads follow what the runs say,
//! never what a thread shows: a thread resolved by hand while its finding is still raised
//! stays resolved, since only a run that raises a resolved key again unresolves it.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::links::ViewContext;
use crate::ids::AuditId;
use crate::ledger::{Ledger, LedgerKey, Raise, Settled};
use crate::md::escape::inline;
use crate::md::Md;
use crate::record::{DispositionKind, FindingSummary, Record};
use crate::repo_config::ReviewThreads;
use crate::report::evidence_ref::parse_evidence_ref;

const CLAIM_CHARS: usize = 1_000;
const CRITERIA_CHARS: usize = 600;

/// A thread the pull request has, as GitHub lists it, with the finding its marker names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenThread {
    pub id: String,
    pub record: AuditId,
    pub key: String,
    pub path: String,
    pub line: Option<u32>,
    pub start_line: Option<u32>,
    pub resolved: bool,
}

/// A thread to post: where, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftThread {
    pub path: String,
    pub line: u32,
    /// The first line of a multi-line thread.
    pub start_line: Option<u32>,
    pub body: String,
}

/// What to send, in the views' one mutation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadPlan {
    /// One review (`COMMENT`) with these threads.
    pub post: Vec<DraftThread>,
    pub resolve: Vec<String>,
    pub unresolve: Vec<String>,
}

/// The lines of each file a thread may be on: per file, the right side's line ranges of
/// its patch's hunks (a thread may not span two hunks).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diff {
    hunks: BTreeMap<String, Vec<(u32, u32)>>,
}

static HUNK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@").expect("static regex"));

impl Diff {
    /// From each file's `patch` as `GET /pulls/{n}/files` gives it (none for a binary or
    /// too large file: no thread there).
    pub fn add_patch(&mut self, path: &str, patch: &str) {
        let ranges: Vec<(u32, u32)> = patch
            .lines()
            .filter_map(|l| HUNK.captures(l))
            .filter_map(|c| {
                let start: u32 = c[1].parse().ok()?;
                let count: u32 = c.get(2).map_or(Some(1), |n| n.as_str().parse().ok())?;
                (count > 0).then(|| (start, start + count - 1))
            })
            .collect();
        self.hunks.insert(path.to_owned(), ranges);
    }

    /// Whether lines `start..=end` of `path` lie in one hunk.
    #[must_use]
    pub(crate) fn holds(&self, path: &str, start: u32, end: u32) -> bool {
        self.hunks
            .get(path)
            .is_some_and(|h| h.iter().any(|(a, b)| *a <= start && end <= *b))
    }
}

/// The marker that ties a thread to a record's finding key.
#[must_use]
pub(crate) fn marker(record: &AuditId, key: &LedgerKey) -> String {
    format!("<!-- auditloop:finding:{record}:{} -->", key.as_str())
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<!-- auditloop:finding:(AUD-[0-9]+):([A-Za-z0-9._-]{1,100}) -->")
        .expect("static regex")
});

/// The record and key a thread's first comment names, when it carries our marker.
#[must_use]
pub fn parse_marker(body: &str) -> Option<(AuditId, String)> {
    let c = MARKER.captures(body)?;
    Some((AuditId::new(&c[1]).ok()?, c[2].to_owned()))
}

/// Where a finding's thread goes: its first evidence reference, when it is `path:line`.
fn place(f: &FindingSummary) -> Option<(String, u32, u32)> {
    f.evidence_refs.first().and_then(|r| parse_evidence_ref(r))
}

fn at(t: &SeenThread, (path, start, end): &(String, u32, u32)) -> bool {
    t.path == *path && t.line == Some(*end) && t.start_line.unwrap_or(*end) == *start
}

/// The body of a finding's thread.
#[must_use]
pub fn body(record: &Record, run: u32, f: &FindingSummary, ctx: &ViewContext) -> String {
    let key = f
        .key
        .as_ref()
        .map(|k| format!(" · {}", Md::code(k.as_str()).as_markdown()))
        .unwrap_or_default();
    let mut out = format!(
        "**{}** · {}{}{key}\n\n{}\n",
        f.id,
        f.severity.as_str(),
        if f.blocking { " · **blocking**" } else { "" },
        inline(&f.claim, CLAIM_CHARS)
    );
    if let Some(outcome) = &f.required_outcome {
        out.push_str(&format!(
            "\n**Required outcome:** {}\n",
            inline(outcome, CRITERIA_CHARS)
        ));
    }
    if let Some(verify) = &f.verification_required {
        out.push_str(&format!(
            "\n**Verification required:** {}\n",
            inline(verify, CRITERIA_CHARS)
        ));
    }
    out.push_str(&format!(
        "\nRound {run} of [{}]({}). Resolved here when a later round no longer raises it.\n\n{}\n",
        record.id,
        ctx.record_url(&record.id),
        marker(&record.id, &LedgerKey::of(f))
    ));
    out
}

/// Whether a key's finding of the latest run was set aside: waived, or its rejection
/// resolved by a maintainer.
fn set_aside(record: &Record, f: &FindingSummary, settled: Option<Settled>) -> bool {
    if settled == Some(Settled::Waived) {
        return true;
    }
    record
        .latest_dispositions()
        .get(&f.id)
        .is_some_and(|d| d.disposition == DispositionKind::Reject && !record.is_contested(&f.id))
}

/// The threads' changes after the record's latest run. `posting`: this delivery recorded
/// that run, so it posts and unresolves; any other only resolves what the record settled.
#[must_use]
pub fn plan(
    record: &Record,
    (setting, posting): (ReviewThreads, bool),
    seen: &[SeenThread],
    diff: Option<&Diff>,
    ctx: &ViewContext,
) -> ThreadPlan {
    let mut out = ThreadPlan::default();
    let (Some(run), false) = (record.latest_run(), setting == ReviewThreads::Off) else {
        return out;
    };
    let ledger = Ledger::of(record);
    for history in &ledger.keys {
        let ours: Vec<&SeenThread> = seen
            .iter()
            .filter(|t| t.record == record.id && t.key == history.key.as_str())
            .collect();
        let open: Vec<&SeenThread> = ours.iter().copied().filter(|t| !t.resolved).collect();
        let state = history.state(run.run);
        let finding = run
            .findings
            .iter()
            .find(|f| LedgerKey::of(f) == history.key);
        let (Some(state), Some(f)) = (state, finding) else {
            // Absent from the latest run: resolved.
            out.resolve.extend(open.iter().map(|t| t.id.clone()));
            continue;
        };
        if set_aside(record, f, state.settled) {
            out.resolve.extend(open.iter().map(|t| t.id.clone()));
            continue;
        }
        let here = place(f).filter(|(p, s, e)| {
            setting.covers(f.blocking) && diff.is_some_and(|d| d.holds(p, *s, *e))
        });
        // A thread whose line moved is resolved; one stays where the finding points.
        let stays = |t: &&SeenThread| here.as_ref().is_some_and(|h| at(t, h));
        out.resolve
            .extend(open.iter().filter(|t| !stays(t)).map(|t| t.id.clone()));
        if !posting || open.iter().any(stays) {
            continue;
        }
        let Some((path, start, end)) = here.clone() else {
            continue;
        };
        let resolved_here = ours.iter().rev().find(|t| t.resolved && stays(t));
        match (
            state.raise,
            resolved_here,
            open.is_empty() && !ours.is_empty(),
        ) {
            (Raise::Regressed, Some(t), _) => out.unresolve.push(t.id.clone()),
            // Resolved by hand while still raised: it stays so.
            (Raise::Carried | Raise::New, _, true) => {}
            _ => out.post.push(DraftThread {
                path,
                line: end,
                start_line: (start < end).then_some(start),
                body: body(record, run.run, f, ctx),
            }),
        }
    }
    out
}
