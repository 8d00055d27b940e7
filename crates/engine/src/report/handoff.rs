//! The plan-audit completion handoff (docs/reference.md#the-plan-audit-handoff), the body of a fenced `text` block:
//!
//! ```text
//! AUDIT: PASS | FAIL | BLOCKED | ERROR
//! Output: <OUTPUT_PATH or "not written">
//! Sections covered: <N or "unknown">
//! Findings: critical=<N>, warning=<N>, info=<N>
//! Open questions: <N>
//! Reason: <one line>
//! ```
//!
//! Blank lines are ignored; every other line must be one of these, each exactly once.

use std::sync::LazyLock;

use regex::Regex;

use super::problem::{Problem, Rule};
use crate::text::is_placeholder;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HandoffStatus {
    Pass,
    Fail,
    Blocked,
    Error,
}

impl HandoffStatus {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            HandoffStatus::Pass => "PASS",
            HandoffStatus::Fail => "FAIL",
            HandoffStatus::Blocked => "BLOCKED",
            HandoffStatus::Error => "ERROR",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handoff {
    pub status: HandoffStatus,
    pub output: String,
    /// `None` for `unknown`.
    pub sections_covered: Option<u32>,
    pub critical: u32,
    pub warning: u32,
    pub info: u32,
    pub open_questions: u32,
    pub reason: String,
}

const LABELS: [&str; 6] = [
    "AUDIT",
    "Output",
    "Sections covered",
    "Findings",
    "Open questions",
    "Reason",
];

static FINDINGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^critical\s*=\s*([0-9]+)\s*,\s*warning\s*=\s*([0-9]+)\s*,\s*info\s*=\s*([0-9]+)$")
        .expect("static regex")
});

/// Parses a handoff, collecting every problem.
///
/// # Errors
///
/// Every problem found, when there is any.
pub fn parse_handoff(text: &str) -> Result<Handoff, Vec<Problem>> {
    let mut values: [Option<(usize, String)>; 6] = Default::default();
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() {
            continue;
        }
        let slot = line.split_once(':').and_then(|(label, value)| {
            LABELS
                .iter()
                .position(|l| *l == label.trim())
                .map(|i| (i, value.trim()))
        });
        match slot {
            Some((i, _)) if values[i].is_some() => {
                problems.push(Problem::new(
                    Rule::HandoffField,
                    line_path(n),
                    format!("`{}:` appears twice", LABELS[i]),
                ));
            }
            Some((i, value)) => values[i] = Some((n, value.to_owned())),
            None => problems.push(Problem::new(
                Rule::HandoffUnknownLine,
                line_path(n),
                format!(
                    "not a handoff line; expected one of {}",
                    LABELS.map(|l| format!("`{l}:`")).join(", ")
                ),
            )),
        }
    }
    let [audit, output, sections, findings, open, reason] = values;

    let status = match &audit {
        None => {
            problems.push(Problem::new(
                Rule::HandoffStatus,
                "AUDIT",
                "missing `AUDIT: PASS|FAIL|BLOCKED|ERROR` line",
            ));
            None
        }
        Some((n, v)) => {
            let status = match v.as_str() {
                "PASS" => Some(HandoffStatus::Pass),
                "FAIL" => Some(HandoffStatus::Fail),
                "BLOCKED" => Some(HandoffStatus::Blocked),
                "ERROR" => Some(HandoffStatus::Error),
                _ => None,
            };
            if status.is_none() {
                problems.push(Problem::new(
                    Rule::HandoffStatus,
                    line_path(*n),
                    format!("{v:?} is not PASS, FAIL, BLOCKED or ERROR"),
                ));
            }
            status
        }
    };
    let output = required_text(output.as_ref(), "Output", &mut problems);
    let reason = required_text(reason.as_ref(), "Reason", &mut problems);
    let sections_covered =
        required(sections.as_ref(), "Sections covered", &mut problems).and_then(|(n, v)| {
            if v.eq_ignore_ascii_case("unknown") {
                return Some(None);
            }
            let parsed = count(v).map(Some);
            if parsed.is_none() {
                problems.push(Problem::new(
                    Rule::HandoffField,
                    line_path(n),
                    format!("{v:?} is neither a count nor `unknown`"),
                ));
            }
            parsed
        });
    let counts = required(findings.as_ref(), "Findings", &mut problems).and_then(|(n, v)| {
        let parsed = FINDINGS
            .captures(v)
            .and_then(|c| Some((count(&c[1])?, count(&c[2])?, count(&c[3])?)));
        if parsed.is_none() {
            problems.push(Problem::new(
                Rule::HandoffField,
                line_path(n),
                format!("{v:?} is not `critical=N, warning=N, info=N`"),
            ));
        }
        parsed
    });
    let open_questions =
        required(open.as_ref(), "Open questions", &mut problems).and_then(|(n, v)| {
            let parsed = count(v);
            if parsed.is_none() {
                problems.push(Problem::new(
                    Rule::HandoffField,
                    line_path(n),
                    format!("{v:?} is not a count"),
                ));
            }
            parsed
        });

    match (
        status,
        output,
        reason,
        sections_covered,
        counts,
        open_questions,
    ) {
        (
            Some(status),
            Some(output),
            Some(reason),
            Some(sections_covered),
            Some((critical, warning, info)),
            Some(open_questions),
        ) if problems.is_empty() => consistent(Handoff {
            status,
            output,
            sections_covered,
            critical,
            warning,
            info,
            open_questions,
            reason,
        }),
        _ => Err(problems),
    }
}

/// The handoff's status mapping (docs/reference.md#the-plan-audit-handoff), checked: a
/// handoff saying its report was not written is an `ERROR` whatever its first line says;
/// `FAIL` needs a critical finding.
fn consistent(mut handoff: Handoff) -> Result<Handoff, Vec<Problem>> {
    if handoff.output.trim().eq_ignore_ascii_case("not written") {
        handoff.status = HandoffStatus::Error;
        return Ok(handoff);
    }
    if handoff.status == HandoffStatus::Fail && handoff.critical == 0 {
        return Err(vec![Problem::new(
            Rule::HandoffInconsistent,
            "AUDIT",
            "`AUDIT: FAIL` needs `critical` of 1 or more: with no critical finding the handoff is `PASS` or `BLOCKED`".to_owned(),
        )]);
    }
    Ok(handoff)
}

fn line_path(n: usize) -> String {
    format!("line {n}")
}

fn count(v: &str) -> Option<u32> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

fn required<'a>(
    slot: Option<&'a (usize, String)>,
    label: &str,
    problems: &mut Vec<Problem>,
) -> Option<(usize, &'a str)> {
    if slot.is_none() {
        problems.push(Problem::new(
            Rule::HandoffField,
            label,
            format!("missing `{label}:` line"),
        ));
    }
    slot.map(|(n, v)| (*n, v.as_str()))
}

fn required_text(
    slot: Option<&(usize, String)>,
    label: &str,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let (n, v) = required(slot, label, problems)?;
    if is_placeholder(v) {
        problems.push(Problem::new(
            Rule::Placeholder,
            line_path(n),
            format!("`{label}:` {v:?} is a placeholder; write the actual text"),
        ));
        return None;
    }
    Some(v.to_owned())
}
