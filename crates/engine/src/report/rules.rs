//! The report rules (docs/reference.md#report-rules) that need no record, checked on the trimmed report value so that they
//! run (and are reported) even when other parts of the document are malformed.

use serde_json::Value;

use super::authority::Authority;
use super::problem::{child_path, index_path, Problem, Rule};

const CERTIFIED: &str = "certified";
const CERTIFIED_WITH_LIMITATIONS: &str = "certified_with_accepted_limitations";
const NEEDS_REMEDIATION: &str = "needs_remediation";

/// Appends every standalone-rule problem of `report` (placeholders, invocation mode and the
/// elegance range are found by the schema walk and mapped by the caller).
pub(crate) fn check(report: &Value, out: &mut Vec<Problem>) {
    let verdict = report.get("verdict").and_then(Value::as_str);
    let findings = array(report, "findings");
    let limitations = array(report, "limitations");

    finding_ids_unique(findings, out);

    if matches!(verdict, Some(CERTIFIED | CERTIFIED_WITH_LIMITATIONS)) {
        for (i, f) in findings.iter().enumerate() {
            if f.get("blocking") == Some(&Value::Bool(true)) {
                out.push(Problem::new(
                    Rule::CertifiedBlockingFinding,
                    child_path(&index_path("findings", i), "blocking"),
                    format!(
                        "verdict {} cannot list a blocking finding; use needs_remediation",
                        verdict.unwrap_or_default()
                    ),
                ));
            }
        }
    }

    if verdict == Some(CERTIFIED) && !limitations.is_empty() {
        out.push(Problem::new(
            Rule::CertifiedWithLimitations,
            "limitations",
            "verdict certified cannot carry limitations; use certified_with_accepted_limitations",
        ));
    }
    if verdict == Some(CERTIFIED_WITH_LIMITATIONS) && limitations.is_empty() {
        out.push(Problem::new(
            Rule::LimitationsRequired,
            "limitations",
            "certified_with_accepted_limitations needs at least one limitation",
        ));
    }

    for (i, l) in limitations.iter().enumerate() {
        let path = child_path(&index_path("limitations", i), "authority");
        match l.get("authority") {
            None if matches!(verdict, Some(CERTIFIED | CERTIFIED_WITH_LIMITATIONS | NEEDS_REMEDIATION)) => out.push(Problem::new(
                Rule::LimitationAuthorityVerdict,
                path,
                "a limitation without authority is allowed only with verdict needs_human_decision, which asks the maintainers to accept it",
            )),
            Some(Value::String(s)) if Authority::parse(s).is_none() => out.push(Problem::new(
                Rule::LimitationAuthorityForm,
                path,
                format!("{s:?} is neither `human: LOGIN` with a valid GitHub login nor `D-<n>`"),
            )),
            _ => {}
        }
    }
}

fn finding_ids_unique(findings: &[Value], out: &mut Vec<Problem>) {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let Some(id) = f.get("id").and_then(Value::as_str) else {
            continue;
        };
        match seen.iter().find(|(other, _)| *other == id) {
            Some((_, first)) => out.push(Problem::new(
                Rule::FindingIdUnique,
                child_path(&index_path("findings", i), "id"),
                format!("finding id {id} is already used by findings[{first}]"),
            )),
            None => seen.push((id, i)),
        }
    }
}

fn array<'a>(report: &'a Value, key: &str) -> &'a [Value] {
    report
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}
