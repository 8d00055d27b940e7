//! The "Audit rounds" section (docs/reference.md#the-pr-body): a row per run, then the record's
//! state, the budget and a link to the record.

use crate::ledger::Ledger;
use crate::record::{DispositionKind, Record};

use super::links::ViewContext;
use super::words;
use crate::gate::verdict;
use crate::legend;
use crate::md::escape::{inline, truncate};
use crate::md::markers::SectionKind;
use crate::md::Md;

const REF_CHARS: usize = 80;
const REASON_CHARS: usize = 300;

#[must_use]
pub(crate) fn render(record: Option<&Record>, ctx: &ViewContext) -> String {
    let Some(record) = record else {
        return SectionKind::Rounds.wrap(&format!(
            "**{}**\n\n{}",
            verdict::no_record().as_markdown(),
            words::START_HINT
        ));
    };
    let mut out = format!("**{}**\n\n", verdict::of_record(record, None).one_line());
    let runs: Vec<_> = record.run_events().collect();
    if runs.is_empty() {
        out.push_str("No runs yet.\n");
    } else {
        // Six short columns fit a PR page; the rest of each round folds below.
        out.push_str(
            "| Round | Candidate | Verdict | Blocking / all | New / carried / resolved | Grade |\n",
        );
        out.push_str("| --- | --- | --- | --- | --- | --- |\n");
        let ledger = Ledger::of(record);
        for (_, run) in &runs {
            let mut verdict = legend::verdict(run.verdict);
            if run.handoff.is_handoff() {
                verdict.push(&Md::lit(" (handoff)"));
            }
            out.push_str(&format!(
                "| {} | {} | {} | {} / {} | {} | {} |\n",
                run.run,
                ctx.commit_link(&run.candidate_artifact),
                verdict.as_markdown(),
                words::tally(run).0,
                words::tally(run).1,
                ledger.counts(run.run).cell(),
                legend::grade(run.grade).as_markdown(),
            ));
        }
        out.push_str("\n<details><summary>Each round: who posted it, findings, dispositions, invocation, time</summary>\n\n");
        for (event, run) in &runs {
            out.push_str(&format!(
                "- **Round {}** · {} · {} · invocation {} · findings: {} · dispositions: {}\n",
                run.run,
                words::time(&event.at),
                words::posted_by(&event.actor, run).as_markdown(),
                Md::code(&truncate(&run.invocation_ref, REF_CHARS)).as_markdown(),
                words::run_finding_counts(run),
                dispositions_of(record, run.run, ctx),
            ));
        }
        out.push_str("\n</details>\n");
    }
    let failures: Vec<_> = record.invocation_failures().collect();
    if !failures.is_empty() {
        out.push_str("\nInvocation failures (recorded, not counted against the budget):\n\n");
        for (event, failure) in failures {
            out.push_str(&format!(
                "- {} on {}, invocation {}: {}\n",
                words::time(&event.at),
                ctx.commit_link(&failure.candidate_artifact),
                Md::code(&truncate(&failure.invocation_ref, REF_CHARS)).as_markdown(),
                inline(&failure.reason, REASON_CHARS),
            ));
        }
    }
    let carried = words::carried(record)
        .map(|c| format!(", {c}"))
        .unwrap_or_default();
    out.push_str(&format!(
        "\nRecord [{}]({}) is {} · candidate {}{carried} · {}.\n",
        record.id,
        ctx.record_url(&record.id),
        words::state(record).as_markdown(),
        ctx.commit_link(&record.candidate_artifact),
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
            if let Some(was) = d.vetoed_from {
                part.push_str(&format!(" (veto; was {})", was.as_str()));
            }
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
