//! The check run's output (CONTRACT §8): title, summary of every gate condition, the
//! latest run's findings, and annotations.

use crate::engine::gate::{Conclusion, GateResult, Outcome};
use crate::engine::patterns::Library;
use crate::engine::record::Record;

use super::context::{record_path, ViewContext};
use super::escape::{block, inline, truncate};
use super::finding_row::finding_row_marked;
use super::recurring::recurring_mark;
use super::words;

pub use super::annotations::{
    annotation_batches, annotations, parse_evidence_ref, Annotation, AnnotationLevel,
};

/// GitHub's limits on a check run's output.
pub const TITLE_LIMIT: usize = 255;
pub const SUMMARY_LIMIT: usize = 65_535;
pub const TEXT_LIMIT: usize = 65_535;

const REASON_CHARS: usize = 500;
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
    let mark = |f: &crate::engine::record::FindingSummary| {
        let (record, library) = (record?, patterns?);
        recurring_mark(f, library, &record.id, ctx)
    };
    let latest = record.and_then(Record::latest_run);
    let grade = latest.map(|r| r.grade.as_str());
    let verdict = latest.map(|r| r.verdict.as_str());
    let title = match (record, verdict, grade) {
        (None, _, _) => format!("Audit {}: no audit record", outcome_words(gate.conclusion)),
        (Some(_), Some(v), Some(g)) => {
            format!("Audit {}: {v}, {g}", outcome_words(gate.conclusion))
        }
        _ => format!("Audit {}: no run yet", outcome_words(gate.conclusion)),
    };

    let mut summary = format!("**{}**\n\n", inline(&gate.title, TITLE_LIMIT));
    if let Some(record) = record {
        summary.push_str(&format!(
            "Record {} is {}; latest verdict {}; grade {}.\n\n",
            record.id,
            words::state(record),
            verdict.unwrap_or("none yet"),
            grade.unwrap_or("none yet (no run)"),
        ));
        if let Some((event, asked)) = record.awaited_dispatch() {
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
    summary.push_str(&conditions_table(gate));
    let recurring: Vec<String> = latest
        .map(|run| {
            run.findings
                .iter()
                .filter_map(|f| {
                    let key = f.key.as_ref()?;
                    Some(format!("- {} `{key}`: {}\n", f.id, mark(f)?))
                })
                .collect()
        })
        .unwrap_or_default();
    if !recurring.is_empty() {
        summary.push_str("\nFindings seen before in this repository:\n\n");
        summary.push_str(&recurring.concat());
    }
    if let Some(record) = record {
        summary.push_str(&format!(
            "\n{}.\n\nThe audit packet: [{}]({}).\n",
            words::budget(record),
            record_path(&record.id),
            ctx.record_url(&record.id)
        ));
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
        title: truncate(&title, TITLE_LIMIT),
        summary: cap(&summary, SUMMARY_LIMIT, link.as_deref()),
        text: cap(&findings_text(record, &mark), TEXT_LIMIT, link.as_deref()),
        annotations: latest.map(annotations).unwrap_or_default(),
    }
}

/// `work_unit_audit: disabled`: neutral, and visibly so.
#[must_use]
pub fn disabled() -> CheckRunView {
    plain(
        Conclusion::Neutral,
        "Audit not required: work_unit_audit is disabled",
        "This repository's `.github/auditloop.yml` sets `work_unit_audit: disabled`: no audit gates this pull request. Every command but `/audit status` and `/audit help` is refused.\n",
    )
}

/// An invalid `.github/auditloop.yml`: the error and its line.
#[must_use]
pub fn invalid_config(error: &str, line: Option<u64>) -> CheckRunView {
    let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
    let summary = format!(
        "`.github/auditloop.yml` on the default branch is invalid{at}:\n\n> {}\n\nFix the file on the default branch; until then every command but `/audit status` and `/audit help` is refused.\n",
        block(&truncate(error, 4_000)).replace('\n', "\n> "),
    );
    plain(
        Conclusion::Failure,
        "Audit gate failed: invalid .github/auditloop.yml",
        &summary,
    )
}

/// The records branch is missing or damaged: condition 1 fails, saying why.
#[must_use]
pub fn records_unavailable(why: &str) -> CheckRunView {
    let summary = format!(
        "| | # | Condition | Reason |\n| --- | --- | --- | --- |\n| ❌ | 1 | exactly one current record, structurally valid | {} |\n\nThe other conditions cannot be evaluated until the records branch is restored.\n",
        inline(why, REASON_CHARS)
    );
    plain(
        Conclusion::Failure,
        "Audit gate failed: records branch unavailable",
        &summary,
    )
}

fn plain(conclusion: Conclusion, title: &str, summary: &str) -> CheckRunView {
    CheckRunView {
        conclusion,
        title: truncate(title, TITLE_LIMIT),
        summary: cap(summary, SUMMARY_LIMIT, None),
        text: String::new(),
        annotations: Vec::new(),
    }
}

fn outcome_words(conclusion: Conclusion) -> &'static str {
    match conclusion {
        Conclusion::Success => "passed",
        Conclusion::Failure => "failed",
        Conclusion::ActionRequired => "awaits a human decision",
        Conclusion::Neutral => "not required",
        Conclusion::InProgress => "waits for evidence checks",
    }
}

fn conditions_table(gate: &GateResult) -> String {
    let mut out = String::from("| | # | Condition | Reason |\n| --- | --- | --- | --- |\n");
    for c in &gate.conditions {
        let mark = match c.outcome {
            Outcome::Pass => "✅",
            Outcome::Fail => "❌",
            Outcome::Pending => "⏳",
        };
        out.push_str(&format!(
            "| {mark} | {} | {} | {} |\n",
            c.number,
            inline(c.title, REASON_CHARS),
            inline(&c.reason, REASON_CHARS)
        ));
    }
    out
}

fn findings_text(
    record: Option<&Record>,
    mark: &dyn Fn(&crate::engine::record::FindingSummary) -> Option<String>,
) -> String {
    let Some(run) = record.and_then(Record::latest_run) else {
        return "No runs yet.\n".to_owned();
    };
    let mut out = format!(
        "### Findings of round {} ({}, {}, candidate {})\n\n",
        run.run,
        run.verdict.as_str(),
        run.grade.as_str(),
        run.candidate_artifact.short()
    );
    if run.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        out.push_str("| Finding | Key | Severity | Blocking | Claim | Evidence |\n");
        out.push_str("| --- | --- | --- | --- | --- | --- |\n");
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
pub(crate) fn cap(text: &str, max: usize, record_link: Option<&str>) -> String {
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
