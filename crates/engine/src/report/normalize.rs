//! Normalization (docs/reference.md#normalization-and-digest): `receipt` removed, `\r\n` → `\n` then every string trimmed,
//! `covered_tasks` deduplicated and sorted, findings sorted by id; both sorts by byte order.
//! Nothing is added: what was absent stays absent.

use serde_json::Value;

use super::document::Report;

/// The normalized form of a raw report value.
#[must_use]
pub fn normalize_value(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(object) = v.as_object_mut() {
        object.remove("receipt");
    }
    trim_strings(&mut v);
    sort_lists(&mut v);
    v
}

/// `\r\n` → `\n`, then `str::trim`, on every string value at every depth (keys stay as
/// written, so a padded key is still refused as unknown).
pub(crate) fn trim_strings(v: &mut Value) {
    match v {
        Value::String(s) => *s = clean(s),
        Value::Array(items) => items.iter_mut().for_each(trim_strings),
        Value::Object(map) => map.values_mut().for_each(trim_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Replaces until none is left: one pass would turn `\r\r\n` into `\r\n`, and a second
/// normalization would then change the text again.
fn clean(s: &str) -> String {
    let mut text = s.to_owned();
    while text.contains("\r\n") {
        text = text.replace("\r\n", "\n");
    }
    text.trim().to_owned()
}

/// The two sorts. Entries of the wrong type are kept (the shape check refuses them) and
/// ordered by their JSON text so that normalization stays deterministic on any input.
pub(crate) fn sort_lists(v: &mut Value) {
    let Some(object) = v.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(tasks)) = object.get_mut("covered_tasks") {
        tasks.sort_by_cached_key(sort_key);
        tasks.dedup();
    }
    if let Some(Value::Array(findings)) = object.get_mut("findings") {
        findings.sort_by_cached_key(|f| f.get("id").map(sort_key).unwrap_or_default());
    }
}

fn sort_key(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The same normalization on a typed report, for reports built in code (signing).
#[must_use]
pub fn normalize_report(mut report: Report) -> Report {
    report.receipt = None;
    let trim = |s: &mut String| *s = clean(s);
    trim(&mut report.invocation.reference);
    let p = &mut report.perspectives;
    for s in [
        &mut p.outcome,
        &mut p.completeness,
        &mut p.integration,
        &mut p.engineering_quality,
        &mut p.verification,
        &mut p.risk,
    ] {
        trim(s);
    }
    trim(&mut report.assessment);
    report.evidence.iter_mut().for_each(trim);
    for f in &mut report.findings {
        for s in [
            &mut f.claim,
            &mut f.consequence,
            &mut f.required_outcome,
            &mut f.verification_required,
        ] {
            trim(s);
        }
        f.evidence_refs.iter_mut().for_each(trim);
    }
    for l in report.limitations.iter_mut().flatten() {
        trim(&mut l.text);
        l.authority.iter_mut().for_each(trim);
    }
    if let Some(notes) = report.elegance.as_mut().and_then(|e| e.notes.as_mut()) {
        trim(notes);
    }
    // Ids cannot hold white space (their patterns forbid it), so they need no trimming.
    report.covered_tasks.sort();
    report.covered_tasks.dedup();
    report.findings.sort_by(|a, b| a.id.cmp(&b.id));
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trims_sorts_and_drops_receipt() {
        let raw = json!({
            "receipt": {"x": 1},
            "assessment": "  line one\r\nline two \n",
            "covered_tasks": ["T-2", "#12", "T-2", "#100"],
            "findings": [{"id": "A-99", "claim": " c "}, {"id": "A-100"}, {"id": "A-02"}],
            "nested": {"deep": [" a ", {"b": "\tb\t"}], "n": 1, "t": true, "z": null}
        });
        let got = normalize_value(&raw);
        assert_eq!(
            got,
            json!({
                "assessment": "line one\nline two",
                "covered_tasks": ["#100", "#12", "T-2"],
                "findings": [{"id": "A-02"}, {"id": "A-100"}, {"id": "A-99", "claim": "c"}],
                "nested": {"deep": ["a", {"b": "b"}], "n": 1, "t": true, "z": null}
            })
        );
    }

    #[test]
    fn lone_carriage_return_is_kept_inside_text() {
        let got = normalize_value(&json!({"a": "x\ry\r\n\r\nz"}));
        assert_eq!(got, json!({"a": "x\ry\n\nz"}));
    }

    #[test]
    fn wrong_types_do_not_panic() {
        let got = normalize_value(
            &json!({"covered_tasks": [1, "a", null, 1], "findings": [3, {"id": 2}]}),
        );
        assert!(got.is_object());
        assert_eq!(normalize_value(&json!([" x "])), json!(["x"]));
    }
}
