//! The latest run's open findings in the residual section (docs/reference.md#the-pr-body): what the
//! next round must fix, blocking first, then by severity, each with what was decided on it.

use crate::record::{FindingSummary, Record};
use crate::report::Severity;

use super::finding_row::{finding_row_marked, FINDING_HEADER};
use super::links::ViewContext;
use crate::ledger::{Ledger, LedgerKey};
use crate::md::escape::inline;

const CLAIM_CHARS: usize = 300;
const TEXT_CHARS: usize = 200;
const CRITERIA_CHARS: usize = 600;

fn rank(severity: Severity) -> usize {
    Severity::ALL
        .iter()
        .position(|s| *s == severity)
        .unwrap_or(Severity::ALL.len())
}

/// The latest run's findings in the order a fixer works through them.
#[must_use]
pub fn ordered(findings: &[FindingSummary]) -> Vec<&FindingSummary> {
    let mut out: Vec<&FindingSummary> = findings.iter().collect();
    out.sort_by(|a, b| {
        (!a.blocking, rank(a.severity), &a.id).cmp(&(!b.blocking, rank(b.severity), &b.id))
    });
    out
}

/// What maintainers decided on finding `f` of run `run`: waivers, the disposition in
/// force, a veto on its key.
fn decided(record: &Record, run: u32, f: &FindingSummary, ctx: &ViewContext) -> String {
    let mut parts = Vec::new();
    for w in record.waived() {
        if w.finding.run == run && w.finding.id == f.id {
            parts.push(format!(
                "waived ({}): {} ({})",
                w.waiver.basis.as_str(),
                inline(&w.waiver.reason, TEXT_CHARS),
                inline(&w.waiver.authority, 60)
            ));
        }
    }
    if let Some(d) = record.latest_dispositions().get(&f.id) {
        let issue = d
            .issue
            .map(|n| format!(" [{n}]({})", ctx.issue_url(n)))
            .unwrap_or_default();
        let was = d
            .vetoed_from
            .map(|k| format!(" (veto; was {})", k.as_str()))
            .unwrap_or_default();
        parts.push(format!(
            "disposed {}{was}{issue}: {} ({})",
            d.disposition.as_str(),
            inline(&d.note, TEXT_CHARS),
            inline(&d.authority, 60)
        ));
    }
    // A later veto of a key replaces the earlier, as the vetoes list shows them.
    let veto = f
        .key
        .as_ref()
        .and_then(|k| record.latest_vetoes().into_iter().find(|v| &v.key == k));
    if let Some(v) = veto {
        parts.push(format!(
            "must fix (veto), from round {}",
            v.effective_from_round
        ));
    } else if f.blocking && parts.is_empty() {
        parts.push("blocking, no disposition yet".to_owned());
    }
    if parts.is_empty() {
        "—".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The table of the latest run's findings, or nothing when it reported none.
#[must_use]
pub(crate) fn render(record: &Record, ctx: &ViewContext) -> String {
    let Some(run) = record.latest_run() else {
        return String::new();
    };
    if run.findings.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "**Open findings of round {}** (candidate {}; blocking ones on top, then by severity)\n\n",
        run.run,
        ctx.commit_link(&run.candidate_artifact)
    );
    out.push_str(FINDING_HEADER);
    out.push_str(" Decided |\n| --- | --- | --- | --- | --- |\n");
    let ledger = Ledger::of(record);
    for f in ordered(&run.findings) {
        let late = ledger
            .key(&LedgerKey::of(f))
            .and_then(|k| k.late_since)
            .map(|since| format!("late: its files were unchanged since round {since}"));
        out.push_str(&format!(
            "{} {} |\n",
            finding_row_marked(f, CLAIM_CHARS, late.as_deref()),
            decided(record, run.run, f, ctx),
        ));
    }
    out.push('\n');
    out.push_str(&criteria(&ordered(&run.findings)));
    out
}

/// What done means for each finding (`required_outcome`, `verification_required`),
/// folded: the table stays narrow, the criteria a click away.
fn criteria(findings: &[&FindingSummary]) -> String {
    let rows: Vec<String> = findings
        .iter()
        .filter_map(|f| {
            let outcome = f.required_outcome.as_deref()?;
            let verify = f.verification_required.as_deref().unwrap_or("—");
            Some(format!(
                "- **{}**: required outcome: {}; verification: {}\n",
                f.id,
                inline(outcome, CRITERIA_CHARS),
                inline(verify, CRITERIA_CHARS)
            ))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<details><summary>What done means for each finding</summary>\n\n{}\n</details>\n\n",
        rows.concat()
    )
}
