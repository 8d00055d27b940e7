//! The check run's output (docs/reference.md#the-check-run): title, summary of every gate condition, the
//! latest run's findings, and annotations.

use crate::gate::{Conclusion, Condition, GateResult, Outcome};
use crate::ledger::Ledger;
use crate::patterns::Library;
use crate::record::{FindingSummary, Record};

use super::finding_row::{finding_row_marked, FINDING_HEADER};
use super::links::{record_path, ViewContext};
use super::recurring::recurring_mark;
use super::words;
use crate::gate::verdict;
use crate::legend;
use crate::md::escape::{inline, truncate};
use crate::md::Md;

pub use super::annotations::{
    annotation_batches, annotations, parse_evidence_ref, Annotation, AnnotationLevel,
};

/// GitHub's limits on a check run's output.
pub const TITLE_LIMIT: usize = 255;
pub const SUMMARY_LIMIT: usize = 65_535;
pub const TEXT_LIMIT: usize = 65_535;

const CLAIM_CHARS: usize = 400;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRunView {
    pub conclusion: Conclusion,
    pub title: String,
    pub summary: String,
    pub text: String,
    pub annotations: Vec<Annotation>,
}

/// What became of the PR-body sections, which the summary reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyStatus {
    Current,
    /// Shrunk to summaries linking to the record.
    Summarized,
    /// Left alone: even the summaries would pass GitHub's body limit.
    TooLong,
}

/// The check run for an evaluated gate. With no record, it says how to start one.
#[must_use]
pub fn check_run(
    gate: &GateResult,
    record: Option<&Record>,
    ctx: &ViewContext,
    body: BodyStatus,
) -> CheckRunView {
    check_run_with(gate, record, ctx, body, None)
}

/// [`check_run`], marking each finding whose key is a pattern of `patterns` as recurring.
#[must_use]
pub fn check_run_with(
    gate: &GateResult,
    record: Option<&Record>,
    ctx: &ViewContext,
    body: BodyStatus,
    patterns: Option<&Library>,
) -> CheckRunView {
    let mark = |f: &FindingSummary| {
        let (record, library) = (record?, patterns?);
        recurring_mark(f, library, &record.id, ctx)
    };
    let latest = record.and_then(Record::latest_run);
    let mut summary = format!("**{}**\n\n", gate.title.one_line());
    if let Some(record) = record {
        if let Some(carried) = words::carried(record) {
            summary.push_str(&format!(
                "The {carried}: no run was spent on {}.\n\n",
                record.candidate_artifact.short()
            ));
        }
        if let Some((event, failed)) = record.stalled_invocation() {
            summary.push_str(&format!(
                "The auditor could not run on {} (invocation {}, {}): {}\n\nNo run was spent. Once that is set up, run the auditor again (re-run its workflow).\n\n",
                failed.candidate_artifact.short(),
                Md::code(&truncate(&failed.invocation_ref, 80)).as_markdown(),
                words::time(&event.at),
                inline(&failed.reason, 500),
            ));
        } else if let Some((event, asked)) = record.awaited_dispatch() {
            summary.push_str(&format!(
                "Run {} on {} is awaited: auditor dispatched at {}.\n\n",
                asked.run,
                asked.candidate_artifact.short(),
                words::time(&event.at),
            ));
        }
    } else {
        summary.push_str(words::START_HINT);
        summary.push_str("\n\n");
    }
    summary.push_str(&conditions_summary(&gate.conditions));
    // Whether the loop converges, in one line (docs/reference.md#the-finding-ledger).
    if let Some(line) = record.and_then(|r| Ledger::of(r).convergence().line()) {
        summary.push_str(&format!("\n**Convergence:** {line}.\n"));
    }
    let recurring: Vec<String> = latest
        .map(|run| {
            run.findings
                .iter()
                .filter_map(|f| {
                    let key = f.key.as_ref()?;
                    Some(format!(
                        "- {} {}: {}\n",
                        f.id,
                        Md::code(key.as_str()).as_markdown(),
                        mark(f)?
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    if !recurring.is_empty() {
        summary.push_str("\nFindings seen before in this repository:\n\n");
        summary.push_str(&recurring.concat());
    }
    if let Some(record) = record {
        summary.push('\n');
        summary.push_str(&record_line(record, ctx));
    }
    match body {
        BodyStatus::Current => {}
        BodyStatus::Summarized => summary.push_str(
            "\nThe pull request body is near GitHub's size limit: its audit sections show summaries that link to the record.\n",
        ),
        BodyStatus::TooLong => summary.push_str(
            "\nThe pull request body is too long for the audit sections, even as summaries: it was left unchanged. Shorten the body to show them.\n",
        ),
    }

    let link = record.map(|r| ctx.record_url(&r.id));
    CheckRunView {
        conclusion: gate.conclusion,
        title: title(&gate.title),
        summary: cap(&summary, SUMMARY_LIMIT, link.as_deref()),
        text: cap(
            &findings_text(record, ctx, &mark),
            TEXT_LIMIT,
            link.as_deref(),
        ),
        annotations: latest.map(annotations).unwrap_or_default(),
    }
}

/// The check run's title: the verdict line as plain text (GitHub shows titles unrendered).
fn title(verdict: &Md) -> String {
    truncate(&verdict.plain().replace('\n', " "), TITLE_LIMIT)
}

/// `[AUD-7](…) is open · latest verdict … · grade … · budget 1 of 3 runs used`, and the
/// audit packet.
pub(crate) fn record_line(record: &Record, ctx: &ViewContext) -> String {
    let latest = record.run_events().last();
    let verdict = latest.map_or_else(|| Md::lit("none yet"), |(_, r)| legend::verdict(r.verdict));
    let grade = latest.map_or_else(|| Md::lit("none yet"), |(_, r)| legend::grade(r.grade));
    let poster = latest.map_or_else(String::new, |(e, r)| {
        format!(" ({})", words::posted_by(&e.actor, r).as_markdown())
    });
    format!(
        "Record [{}]({}) is {} · latest verdict {} · grade {}{poster} · {}. The audit packet: [{}]({}).\n",
        record.id,
        ctx.record_url(&record.id),
        words::state(record).as_markdown(),
        verdict.as_markdown(),
        grade.as_markdown(),
        words::budget(record),
        record_path(&record.id),
        ctx.record_url(&record.id)
    )
}

/// Root causes first, each with what moves it; then what waits on them; then the passing
/// conditions, folded.
pub(crate) fn conditions_summary(conditions: &[Condition]) -> String {
    let mut out = String::new();
    for c in conditions.iter().filter(|c| c.is_root_cause()) {
        let mark = if c.outcome == Outcome::Pending {
            "⏳"
        } else {
            "❌"
        };
        out.push_str(&format!(
            "- {mark} **{}. {}** — {}\n",
            c.number,
            c.title,
            c.reason.one_line()
        ));
    }
    out.push_str(&waiting_lines(conditions));
    let passing: Vec<&Condition> = conditions
        .iter()
        .filter(|c| c.outcome == Outcome::Pass)
        .collect();
    if !passing.is_empty() {
        let total = conditions.len();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "<details><summary>✅ {} of {total} conditions hold</summary>\n\n",
            passing.len()
        ));
        for c in passing {
            out.push_str(&format!(
                "- ✅ **{}. {}** — {}\n",
                c.number,
                c.title,
                c.reason.one_line()
            ));
        }
        out.push_str("\n</details>\n");
    }
    out
}

/// `- ⏸️ 4. Verdict and state certify, 5. … wait on 6`, one line per condition waited on.
fn waiting_lines(conditions: &[Condition]) -> String {
    let mut out = String::new();
    let mut roots: Vec<u8> = conditions.iter().filter_map(|c| c.waits_on).collect();
    roots.sort_unstable();
    roots.dedup();
    for root in roots {
        let names: Vec<String> = conditions
            .iter()
            .filter(|c| c.waits_on == Some(root) && c.outcome != Outcome::Pass)
            .map(|c| format!("{}. {}", c.number, c.title))
            .collect();
        if names.is_empty() {
            continue;
        }
        let verb = if names.len() == 1 { "waits" } else { "wait" };
        out.push_str(&format!("- ⏸️ {} {verb} on {root}\n", names.join(" · ")));
    }
    out
}

/// `work_unit_audit: disabled`: neutral, and visibly so.
#[must_use]
pub fn disabled() -> CheckRunView {
    let line = verdict::disabled();
    plain(
        Conclusion::Neutral,
        &line,
        &format!(
            "**{}**\n\nThis repository's `.github/auditloop.yml` sets `work_unit_audit: disabled`: no audit gates this pull request. Every command but `/audit status` and `/audit help` is refused.\n",
            line.as_markdown()
        ),
    )
}

/// An invalid `.github/auditloop.yml`: the error (see `ConfigError::to_md`) and its line.
#[must_use]
pub fn invalid_config(error: &Md, line: Option<u64>) -> CheckRunView {
    let verdict = verdict::config_invalid(line);
    let summary = format!(
        "**{}**\n\n`.github/auditloop.yml` on the default branch is invalid{}:\n\n> {}\n\nUntil it is fixed, every command but `/audit status` and `/audit help` is refused.\n",
        verdict.as_markdown(),
        line.map(|l| format!(" at line {l}")).unwrap_or_default(),
        error.one_line(),
    );
    plain(Conclusion::Failure, &verdict, &summary)
}

/// The records branch is missing or damaged: condition 1 fails, saying why; the others
/// wait on it.
#[must_use]
pub fn records_unavailable(why: &Md) -> CheckRunView {
    let verdict = verdict::damaged(why);
    let summary = format!(
        "**{}**\n\n- ❌ **1. {}** — {}\n- ⏸️ Conditions 2 to 9 wait on 1: they are evaluated once the records branch is restored.\n",
        verdict.one_line(),
        crate::gate::result::Condition::title_of(1),
        why.one_line()
    );
    plain(Conclusion::Failure, &verdict, &summary)
}

fn plain(conclusion: Conclusion, verdict: &Md, summary: &str) -> CheckRunView {
    CheckRunView {
        conclusion,
        title: title(verdict),
        summary: cap(summary, SUMMARY_LIMIT, None),
        text: String::new(),
        annotations: Vec::new(),
    }
}

fn findings_text(
    record: Option<&Record>,
    ctx: &ViewContext,
    mark: &dyn Fn(&FindingSummary) -> Option<String>,
) -> String {
    let Some((event, run)) = record.and_then(|r| r.run_events().last()) else {
        return "No runs yet.\n".to_owned();
    };
    let mut out = format!(
        "### Findings of round {}\n\nVerdict {}, grade {}, candidate {}, {}.\n\n",
        run.run,
        legend::verdict(run.verdict).as_markdown(),
        legend::grade(run.grade).as_markdown(),
        ctx.commit_link(&run.candidate_artifact),
        words::posted_by(&event.actor, run).as_markdown()
    );
    if let Some(c) = run.handoff.counts() {
        out.push_str(&format!(
            "A handoff: critical={}, warning={}, info={} ({} blocking); its findings are in the auditor's output.\n",
            c.critical, c.warning, c.info, c.critical
        ));
    } else if run.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        out.push_str(FINDING_HEADER);
        out.push_str("\n| --- | --- | --- | --- |\n");
        for f in &run.findings {
            out.push_str(&finding_row_marked(f, CLAIM_CHARS, mark(f).as_deref()));
            out.push('\n');
        }
    }
    if let Some(score) = run.elegance {
        out.push_str(&format!(
            "\nElegance (advisory, not gated): {score} of 5.\n"
        ));
    }
    out
}

/// `text` cut at a line boundary to fit `max` characters, saying so.
#[must_use]
pub fn cap(text: &str, max: usize, record_link: Option<&str>) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let note = match record_link {
        Some(link) => format!("\n… cut to fit; the whole is in [the audit record]({link}).\n"),
        None => "\n… cut to fit.\n".to_owned(),
    };
    let room = max.saturating_sub(note.chars().count());
    let head: String = text.chars().take(room).collect();
    let head = match head.rfind('\n') {
        Some(i) => &head[..=i],
        None => "",
    };
    format!("{head}{note}")
}

/// A merge group's check run once the queued PR's gate passed: it passes only when the
/// required checks succeeded on the group commit `group` itself (docs/reference.md#the-check-run), waits while
/// they run, and fails naming the check that failed. The PR's certification stands either
/// way: the line says the integrated commit is what fell short.
#[must_use]
pub fn integrated_candidate(
    mut view: CheckRunView,
    group: &crate::ids::CommitSha,
    result: &crate::gate::Integrated,
) -> CheckRunView {
    use crate::gate::Integrated;
    let commit = Md::code(group.short());
    let line = match result {
        Integrated::Passed => return view,
        Integrated::Waiting(names) => {
            let list: Vec<Md> = names.iter().map(|n| Md::code(n)).collect();
            view.conclusion = Conclusion::InProgress;
            view.title = format!(
                "waiting for required checks on the merge group {}",
                group.short()
            );
            crate::md!(
                "⏳ **Integrated candidate** {}: waiting for {} to conclude on the merge-group commit; the PR's certification stands.",
                commit,
                Md::join(&list, ", ")
            )
        }
        Integrated::Failed { check, conclusion } => {
            view.conclusion = Conclusion::Failure;
            view.title = format!(
                "required check {check} concluded {conclusion} on the merge group {}",
                group.short()
            );
            crate::md!(
                "❌ **Integrated candidate** {}: required check {} concluded {} on the merge-group commit; the PR's certification stands, fix the integration and queue it again.",
                commit,
                Md::code(check),
                Md::code(conclusion)
            )
        }
    };
    view.title = truncate(&view.title, TITLE_LIMIT);
    view.summary = cap(
        &format!("{}\n\n{}", line.as_markdown(), view.summary),
        SUMMARY_LIMIT,
        None,
    );
    view
}
