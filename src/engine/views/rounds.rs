//! The "Audit rounds" section (CONTRACT §9, seed 001): a row per run, then the record's
//! state, the budget and a link to the record.

use crate::engine::record::{DispositionKind, Record};

use super::context::ViewContext;
use super::escape::inline;
use super::markers::SectionKind;
use super::words;

const REF_CHARS: usize = 80;
const REASON_CHARS: usize = 300;

#[must_use]
pub fn render(record: Option<&Record>, ctx: &ViewContext) -> String {
    let Some(record) = record else {
        return SectionKind::Rounds.wrap(words::START_HINT);
    };
    let mut out = String::new();
    let runs: Vec<_> = record.run_events().collect();
    if runs.is_empty() {
        out.push_str("No runs yet.\n");
    } else {
        out.push_str(
            "| Round | Candidate | Verdict | Findings | Dispositions | Grade | Invocation | Time |\n",
        );
        out.push_str("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (event, run) in &runs {
            let verdict = if run.handoff {
                format!("{} (handoff)", run.verdict.as_str())
            } else {
                run.verdict.as_str().to_owned()
            };
            out.push_str(&format!(
                "| {} | [{}]({}) | {} | {} | {} | {} | {} | {} |\n",
                run.run,
                run.candidate_artifact.short(),
                ctx.commit_url(&run.candidate_artifact),
                verdict,
                words::finding_counts(&run.findings),
                dispositions_of(record, run.run, ctx),
                run.grade.as_str(),
                inline(&run.invocation_ref, REF_CHARS),
                words::time(&event.at),
            ));
        }
    }
    let failures: Vec<_> = record.invocation_failures().collect();
    if !failures.is_empty() {
        out.push_str("\nInvocation failures (recorded, not counted against the budget):\n\n");
        for (event, failure) in failures {
            out.push_str(&format!(
                "- {} on [{}]({}), invocation {}: {}\n",
                words::time(&event.at),
                failure.candidate_artifact.short(),
                ctx.commit_url(&failure.candidate_artifact),
                inline(&failure.invocation_ref, REF_CHARS),
                inline(&failure.reason, REASON_CHARS),
            ));
        }
    }
    let carried = words::carried(record)
        .map(|c| format!(", {c}"))
        .unwrap_or_default();
    out.push_str(&format!(
        "\nRecord [{}]({}): state {}, candidate [{}]({}){carried}.\n\n{}.\n",
        record.id,
        ctx.record_url(&record.id),
        words::state(record),
        record.candidate_artifact.short(),
        ctx.commit_url(&record.candidate_artifact),
        words::budget(record),
    ));
    SectionKind::Rounds.wrap(&out)
}

/// `A-01 fix, A-02 file #12, A-03 waived` for the findings of run `run`, or `—`.
fn dispositions_of(record: &Record, run: u32, ctx: &ViewContext) -> String {
    let dispositions = record.dispositions_in_force();
    let waived = record.waived();
    let Some(r) = record.run(run) else {
        return "—".to_owned();
    };
    let mut parts = Vec::new();
    for f in &r.findings {
        let disposed = dispositions
            .iter()
            .find(|d| d.finding.run == run && d.finding.id == f.id);
        if let Some(d) = disposed {
            let mut part = format!("{} {}", f.id, d.disposition.as_str());
            if let (DispositionKind::File, Some(issue)) = (d.disposition, d.issue) {
                part.push_str(&format!(" [{issue}]({})", ctx.issue_url(issue)));
            }
            parts.push(part);
        }
        if waived
            .iter()
            .any(|w| w.finding.run == run && w.finding.id == f.id)
        {
            parts.push(format!("{} waived", f.id));
        }
    }
    if parts.is_empty() {
        "—".to_owned()
    } else {
        parts.join(", ")
    }
}
