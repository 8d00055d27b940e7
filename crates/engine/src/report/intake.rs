//! Report intake: raw text → checked, normalized, typed report with its digest (docs/reference.md#reports).

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::digest::{canonical_bytes, ReportDigest};
use super::document::{Receipt, Report};
use super::normalize::{sort_lists, trim_strings};
use super::problem::{Problem, Rule, ROOT};
use super::schema::{Violation, SCHEMA};
use super::{rules, strict_json};

/// A report that passed every record-independent rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Intake {
    /// The normalized report; its `receipt` is always `None`.
    pub report: Report,
    /// The receipt as submitted (untrimmed: its signature covers the exact strings).
    pub receipt: Option<Receipt>,
    pub digest: ReportDigest,
    /// The RFC 8785 bytes of `report`, as the records branch stores them.
    pub canonical: Vec<u8>,
}

/// Parses and checks one report. On refusal, returns every problem found: all shape
/// problems over the whole document first, then the standalone rules. Paths name places in
/// the document as submitted (before findings are sorted).
///
/// # Errors
///
/// Every problem found, when the report is refused.
pub fn parse_report(text: &str) -> Result<Intake, Vec<Problem>> {
    let raw = strict_json::parse_strict(text)
        .map_err(|e| vec![Problem::new(Rule::JsonSyntax, ROOT, e.to_string())])?;
    let Value::Object(mut object) = raw else {
        return Err(vec![Problem::new(
            Rule::Shape,
            ROOT,
            "a report must be a JSON object",
        )]);
    };
    let raw_receipt = object.remove("receipt");
    let mut trimmed = Value::Object(object);
    trim_strings(&mut trimmed);

    let mut violations = Vec::new();
    SCHEMA.check(&trimmed, SCHEMA.root(), ROOT, &mut violations);
    if let Some(receipt) = &raw_receipt {
        if let Some(node) = SCHEMA.resolve("#/$defs/receipt") {
            SCHEMA.check(receipt, node, "receipt", &mut violations);
        }
    }
    let (mut problems, later): (Vec<Problem>, Vec<Problem>) = violations
        .into_iter()
        .map(|v| classify(v, &trimmed))
        .partition(|p| p.rule == Rule::Shape);
    problems.extend(later);
    rules::check(&trimmed, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }

    let mut normalized = trimmed;
    sort_lists(&mut normalized);
    let report: Report = typed(normalized, ROOT)?;
    let receipt = raw_receipt
        .map(|r| typed::<Receipt>(r, "receipt"))
        .transpose()?;
    let canonical = canonical_bytes(&report);
    let digest = ReportDigest::of_bytes(&canonical);
    Ok(Intake {
        report,
        receipt,
        digest,
        canonical,
    })
}

/// Names the rule a schema violation breaks: most are shape, a few are rules of their own.
fn classify(v: Violation, report: &Value) -> Problem {
    let fallback =
        report.pointer("/invocation/mode").and_then(Value::as_str) == Some("single_agent_fallback");
    let rule = match (v.keyword, v.path.as_str()) {
        ("placeholder", _) => Rule::Placeholder,
        ("enum", "invocation.mode") if fallback => Rule::InvocationMode,
        ("minimum" | "maximum", "elegance.score") => Rule::EleganceRange,
        _ => Rule::Shape,
    };
    let message = match rule {
        Rule::InvocationMode => {
            "single_agent_fallback is refused: the audit must run as host_subagent or explicit_agent_invocation (an independent auditor)".to_owned()
        }
        _ => v.message,
    };
    Problem::new(rule, v.path, message)
}

/// The typed read after the schema walk. It should not fail once the walk passed; if it
/// does, the walk missed a constraint, and the problem still carries the path.
fn typed<T: DeserializeOwned>(value: Value, base: &str) -> Result<T, Vec<Problem>> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (base, inner.as_str()) {
            (_, ".") => base.to_owned(),
            (ROOT, _) => inner,
            _ => format!("{base}.{inner}"),
        };
        vec![Problem::new(Rule::Shape, path, e.into_inner().to_string())]
    })
}
