//! The report-schema walker against a general JSON Schema validator (`jsonschema`), over a
//! corpus made from the valid report: every member removed, retyped or emptied, unknown
//! members added, a receipt with every field bent. Wherever the validator refuses a
//! document, the walker must too, and the walker must refuse nothing the validator accepts
//! except by its own placeholder rule, so a schema keyword it ignores cannot pass silently.

use auditloop::engine::report::schema::{shape_violations, SCHEMA_TEXT};
use serde_json::{json, Value};

const VALID: &str = include_str!("../fixtures/reports/valid.json");

/// A receipt of the right shape (its signature is not checked by a schema).
fn receipt() -> Value {
    json!({
        "version": 1, "key_id": "ci-auditor-1", "receipt_id": "b1946ac9-0000-4000-8000-000000000001",
        "role": "auditor", "repository": "octo-org/hello", "audit_id": "AUD-1",
        "work_unit": "pr:42", "invocation_ref": "ci-run-2",
        "candidate_artifact": format!("commit:{}", "1".repeat(40)), "covered_tasks": ["#12"],
        "report_digest": format!("sha256:{}", "0".repeat(64)),
        "issued_at": "2026-11-29T10:00:00Z", "expires_at": "2026-11-29T11:00:00Z",
        "signature": format!("{}==", "A".repeat(86))
    })
}

/// Values of every JSON type, and strings of the shapes the schema's patterns care about.
fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(7),
        json!(2.5),
        json!(""),
        json!("x"),
        json!("not a date"),
        json!("2026-11-29T10:00:00Z"),
        json!("A-01"),
        json!("#12"),
        json!([]),
        json!(["x"]),
        json!([1]),
        json!({}),
        json!({"zz": 1}),
    ]
}

/// Every JSON pointer in `v`, parents first.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(child, p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(child, p, out);
            }
        }
        _ => {}
    }
}

fn parent_and_key(pointer: &str) -> (&str, &str) {
    pointer.rsplit_once('/').expect("a pointer below the root")
}

fn corpus() -> Vec<(String, Value)> {
    let mut base: Value = serde_json::from_str(VALID).unwrap();
    base["receipt"] = receipt();
    let mut paths = Vec::new();
    pointers(&base, String::new(), &mut paths);
    let mut docs = vec![("the valid report".to_owned(), base.clone())];
    for p in &paths {
        let (parent, key) = parent_and_key(p);
        let mut removed = base.clone();
        match removed.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.remove(key);
            }
            Some(Value::Array(items)) => {
                items.remove(key.parse::<usize>().unwrap());
            }
            _ => unreachable!(),
        }
        docs.push((format!("{p} removed"), removed));
        for r in replacements() {
            let mut doc = base.clone();
            *doc.pointer_mut(p).unwrap() = r.clone();
            docs.push((format!("{p} = {r}"), doc));
        }
    }
    for p in std::iter::once(String::new()).chain(paths) {
        let mut doc = base.clone();
        if let Some(map) = doc.pointer_mut(&p).and_then(Value::as_object_mut) {
            map.insert("unknown_member".into(), json!("x"));
            docs.push((format!("{p}/unknown_member added"), doc));
        }
    }
    docs
}

#[test]
fn the_walker_agrees_with_a_general_validator_over_the_corpus() {
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the embedded schema compiles");
    let corpus = corpus();
    assert!(corpus.len() > 1_000, "a real corpus: {}", corpus.len());
    let mut disagreements = Vec::new();
    for (name, doc) in &corpus {
        let general = validator.is_valid(doc);
        let walker = shape_violations(doc);
        // The placeholder rule is the walker's own: it may refuse more, never less.
        let walker_schema_only = walker.iter().all(|v| v.keyword == "placeholder");
        let agree = if general {
            walker_schema_only
        } else {
            !walker.is_empty()
        };
        if !agree {
            let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
            disagreements.push(format!(
                "{name}: validator {errors:?}, walker {:?}",
                walker.iter().map(|v| &v.message).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} documents judged differently:\n{}",
        disagreements.len(),
        corpus.len(),
        disagreements.join("\n")
    );
}
