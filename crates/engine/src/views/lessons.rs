//! The `## Lessons` section of `records/AUD-n.md` (docs/reference.md#lessons), rebuilt from the history
//! whenever the record is certified or blocked: derived, never stored in the record.

use crate::ids::FindingId;
use crate::patterns::{ending_index, key_history, Ending, KeyRuns, Library};
use crate::record::{EventKind, Record};

use crate::md::escape::inline;

const NOTE_CHARS: usize = 300;
const AUTHORITY_CHARS: usize = 80;
/// A section lists at most this many lines of each kind; the record holds the rest.
const MAX_LINES: usize = 50;

fn runs_words(runs: &[u32]) -> String {
    let words: Vec<String> = runs.iter().map(u32::to_string).collect();
    match words.as_slice() {
        [one] => format!("run {one}"),
        [init @ .., last] => format!("runs {} and {last}", init.join(", ")),
        [] => "no run".to_owned(),
    }
}

/// The run after the key was last raised, when there is one: where it was resolved.
fn resolved_in(k: &KeyRuns, runs_used: u32) -> Option<u32> {
    k.runs.last().map(|r| r + 1).filter(|r| *r <= runs_used)
}

fn finding_words(id: &FindingId, key: Option<&crate::ids::FindingKey>, run: u32) -> String {
    match key {
        Some(k) => format!("{id} `{k}` of run {run}"),
        None => format!("{id} of run {run}"),
    }
}

fn push_list(out: &mut String, lines: Vec<String>, empty: &str) {
    if lines.is_empty() {
        out.push_str(&format!("- {empty}\n"));
        return;
    }
    let more = lines.len().saturating_sub(MAX_LINES);
    for line in lines.into_iter().take(MAX_LINES) {
        out.push_str(&format!("- {line}\n"));
    }
    if more > 0 {
        out.push_str(&format!("- … and {more} more in the record.\n"));
    }
}

fn decisions(record: &Record) -> Vec<String> {
    let mut lines = Vec::new();
    for w in record.waived() {
        lines.push(format!(
            "Waived ({}): {}: {} ({}).",
            w.waiver.basis.as_str(),
            finding_words(&w.finding.id, w.finding.key.as_ref(), w.finding.run),
            inline(&w.waiver.reason, NOTE_CHARS),
            inline(&w.waiver.authority, AUTHORITY_CHARS),
        ));
    }
    for d in record.dispositions_in_force() {
        let issue = d
            .issue
            .map(|n| format!(", issue #{}", n.0))
            .unwrap_or_default();
        lines.push(format!(
            "Disposed `{}`: {}: {} ({}{issue}).",
            d.disposition.as_str(),
            finding_words(&d.finding.id, d.finding.key.as_ref(), d.finding.run),
            inline(&d.note, NOTE_CHARS),
            inline(&d.authority, AUTHORITY_CHARS),
        ));
    }
    for event in &record.history {
        if let EventKind::LimitationAcceptance(a) = &event.kind {
            let which: Vec<String> = a
                .limitations
                .iter()
                .map(|l| format!("{} `{}`", l.id, l.key))
                .collect();
            lines.push(format!(
                "Accepted limitation {} of run {}: {} ({}).",
                which.join(", "),
                a.run,
                inline(&a.note, NOTE_CHARS),
                inline(&a.authority, AUTHORITY_CHARS),
            ));
        }
    }
    if let Some(run) = record.latest_run() {
        for l in run.limitations.iter().filter(|l| l.authority.is_some()) {
            lines.push(format!(
                "Limitation {} `{}` of run {}: {} (authority named by the report: {}).",
                l.id,
                l.key,
                run.run,
                inline(&l.text, NOTE_CHARS),
                inline(l.authority.as_deref().unwrap_or_default(), AUTHORITY_CHARS),
            ));
        }
    }
    lines
}

/// The patterns this record created or updated, as the library holds them now: a pattern
/// whose first sighting is this record's ending was created by it.
fn patterns(
    record: &Record,
    keys: &[KeyRuns],
    library: &Library,
    ended: chrono::DateTime<chrono::Utc>,
) -> Vec<String> {
    keys.iter()
        .filter_map(|k| library.get(&k.key))
        .filter(|p| p.records.contains(&record.id))
        .map(|p| {
            let what = if p.first_seen == ended {
                "created"
            } else {
                "updated"
            };
            format!(
                "`{}`: {what}; seen {}, resolved {}, success rate {:.3}.",
                p.key, p.seen, p.resolved, p.success_rate
            )
        })
        .collect()
}

/// The section, or `None` while the record is neither certified nor blocked. `library` is
/// the pattern library as it stands after this change (`None`: none is kept).
#[must_use]
pub fn render(record: &Record, library: Option<&Library>) -> Option<String> {
    let (ending, at, _) = ending_index(record)?;
    let runs_used = record.runs_used();
    let keys = key_history(record, record.history.len());
    let mut out = String::from("## Lessons\n\n");
    out.push_str(&match ending {
        Ending::Certified => format!(
            "Certified in run {runs_used}: {runs_used} of {} runs used.\n\n",
            record.audit_budget
        ),
        Ending::Blocked => format!(
            "Blocked after run {runs_used}: {runs_used} of {} runs used, none certified.\n\n",
            record.audit_budget
        ),
    });
    out.push_str(
        "### What failed\n\nKeys raised in two or more runs before they were resolved:\n\n",
    );
    let failed = keys
        .iter()
        .filter(|k| k.runs.len() >= 2)
        .map(|k| {
            let end = match resolved_in(k, runs_used) {
                Some(r) => format!("resolved in run {r}"),
                None => "still raised in the last run".to_owned(),
            };
            format!(
                "`{}` ({}): {}; {end}.",
                k.key,
                k.severity.as_str(),
                runs_words(&k.runs)
            )
        })
        .collect();
    push_list(&mut out, failed, "None.");
    out.push_str("\n### What worked\n\nKeys resolved in the run after they were raised:\n\n");
    let worked = keys
        .iter()
        .filter(|k| k.runs.len() == 1)
        .filter_map(|k| {
            let r = resolved_in(k, runs_used)?;
            Some(format!(
                "`{}` ({}): raised in run {}, resolved in run {r}.",
                k.key,
                k.severity.as_str(),
                k.runs[0]
            ))
        })
        .collect();
    push_list(&mut out, worked, "None.");
    out.push_str("\n### Waivers, dispositions and accepted limitations\n\n");
    push_list(&mut out, decisions(record), "None.");
    out.push_str("\n### Patterns\n\n");
    match library {
        Some(library) => push_list(
            &mut out,
            patterns(record, &keys, library, record.history[at].at),
            "None created or updated.",
        ),
        None => out.push_str("- No pattern library is kept (`patterns: false`).\n"),
    }
    Some(out)
}
