//! `load_record`: structural validation of a stored record, with messages a maintainer
//! understands; `to_json` is stable.

use crate::record_support;

use auditloop::engine::record::WaiverBasis;
use auditloop::engine::record::{
    event_digest, load_record, to_json, ChainError, Record, StructuralError,
};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition;
use record_support::*;
use serde_json::{json, Value};

/// created, report (run 1), waiver, report (run 2).
fn sample() -> Record {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![finding("A-01", Some("k"), false)];
    fx.try_submit(&r).unwrap();
    fx.apply(|r, c| transition::waive(r, &[fid("A-01")], WaiverBasis::TriageThreshold, "later", c))
        .unwrap();
    fx.submit(Verdict::NeedsRemediation);
    fx.record
}

fn rechain(history: &mut [Value]) {
    for i in 1..history.len() {
        let d = event_digest(&history[i - 1]);
        history[i]["prev"] = json!(d);
    }
}

#[test]
fn round_trip_is_exact_and_stable() {
    let record = sample();
    let json = to_json(&record);
    let loaded = load_record(&json).unwrap();
    assert_eq!(loaded, record);
    assert_eq!(to_json(&loaded), json);
    assert!(json.ends_with("}\n"));
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["schema_version"], json!(3));
    assert_eq!(value["history"][0]["type"], json!("created"));
    assert_eq!(value["history"][0]["prev"], Value::Null);
    assert_eq!(value["evidence"]["for"], json!(sha(1).to_string()));
}

#[test]
fn structural_error_table() {
    type Edit = fn(&mut Value);
    type Is = fn(&StructuralError) -> bool;
    let cases: Vec<(&str, Edit, Is, &str)> = vec![
        (
            "schema version",
            |v| v["schema_version"] = json!(2),
            |e| matches!(e, StructuralError::SchemaVersion { .. }),
            "schema_version 2",
        ),
        (
            "no history",
            |v| {
                v.as_object_mut().unwrap().remove("history");
            },
            |e| matches!(e, StructuralError::NoHistory),
            "no `history`",
        ),
        (
            "edited waiver",
            |v| v["history"][2]["reason"] = json!("never mind"),
            |e| {
                matches!(
                    e,
                    StructuralError::Chain(ChainError::Broken { changed: 3, .. })
                )
            },
            "history event 3 (waiver) was changed after it was written",
        ),
        (
            "field added to the first event",
            |v| v["history"][0]["note"] = json!("x"),
            |e| {
                matches!(
                    e,
                    StructuralError::Chain(ChainError::Broken { changed: 1, .. })
                )
            },
            "history event 1 (created) was changed",
        ),
        (
            "field added to the newest event",
            |v| v["history"][3]["note"] = json!("x"),
            |e| matches!(e, StructuralError::EventNotCanonical { index: 4, .. }),
            "history event 4 (report)",
        ),
        (
            "first event chained",
            |v| v["history"][0]["prev"] = json!("sha256:00"),
            |e| matches!(e, StructuralError::Chain(ChainError::FirstHasPrev { .. })),
            "`prev: null`",
        ),
        (
            "derived state edited",
            |v| v["audit_state"] = json!("certified"),
            |e| matches!(e, StructuralError::DerivedMismatch { .. }),
            "`audit_state`",
        ),
        (
            "budget edited",
            |v| v["audit_budget"] = json!(9),
            |e| matches!(e, StructuralError::DerivedMismatch { .. }),
            "`audit_budget` is 9 but the history gives 3",
        ),
        (
            "unknown record field",
            |v| v["extra"] = json!(1),
            |e| matches!(e, StructuralError::RecordNotCanonical { .. }),
            "`extra`",
        ),
        (
            "history rewritten out of order",
            |v| {
                let h = v["history"].as_array_mut().unwrap();
                h.swap(0, 1);
                h[0]["prev"] = Value::Null;
                rechain(h);
            },
            |e| matches!(e, StructuralError::Replay(_)),
            "starts with `created`",
        ),
        (
            "rechained run number",
            |v| {
                let h = v["history"].as_array_mut().unwrap();
                h[3]["run"] = json!(5);
                rechain(h);
            },
            |e| matches!(e, StructuralError::Replay(_)),
            "expected run 2",
        ),
        (
            "bad shape",
            |v| {
                let h = v["history"].as_array_mut().unwrap();
                h[1]["verdict"] = json!("great");
                rechain(h);
            },
            |e| matches!(e, StructuralError::Shape { .. }),
            "history[1]",
        ),
        (
            "timestamp reformatted",
            |v| {
                let h = v["history"].as_array_mut().unwrap();
                let at = h[3]["at"].as_str().unwrap().replace('Z', "+00:00");
                h[3]["at"] = json!(at);
            },
            |e| matches!(e, StructuralError::EventNotCanonical { .. }),
            "not in the form auditloop writes",
        ),
    ];
    let base: Value = serde_json::from_str(&to_json(&sample())).unwrap();
    for (name, edit, is, message) in cases {
        let mut v = base.clone();
        edit(&mut v);
        let err = load_record(&v.to_string()).unwrap_err();
        assert!(is(&err), "{name}: {err:?}");
        assert!(err.to_string().contains(message), "{name}: {err}");
    }
    assert!(matches!(load_record("{"), Err(StructuralError::Json(_))));
    assert!(matches!(
        load_record("[]"),
        Err(StructuralError::NotAnObject)
    ));
}

/// A record written before the implementers were kept by push: its `created` event names
/// who set the candidate, and it has no `implementers` field.
fn legacy() -> Value {
    let mut value: Value = serde_json::from_str(&to_json(&sample())).unwrap();
    value["history"][0]["candidate_pushed_by"] = json!("lead");
    value.as_object_mut().unwrap().remove("implementers");
    rechain(value["history"].as_array_mut().unwrap());
    value
}

#[test]
fn a_record_from_before_the_implementers_loads_and_reads_its_binder_as_one() {
    let record = load_record(&legacy().to_string()).unwrap();
    assert_eq!(
        record.implementers, None,
        "nothing derived is checked of it"
    );
    let lead = auditloop::engine::ids::Login::new("LEAD").unwrap();
    let how = transition::implementation(&record, &lead, None, &[]);
    assert_eq!(
        how.map(|h| h.to_string()),
        Some(format!("set the candidate {}", sha(1).short()))
    );
}

#[test]
fn a_stored_implementers_field_must_be_the_historys() {
    let mut fx = Fx::new();
    let pushed = auditloop::engine::ids::Artifact::commit(
        auditloop::engine::ids::CommitSha::new("2".repeat(40)).unwrap(),
    );
    let ctx = fx.ctx_as("fixer-bot");
    let applied = transition::note_push(&fx.record, pushed.clone(), &ctx)
        .unwrap()
        .unwrap();
    fx.keep(applied);
    // Once an implementer, a second push by the same account changes nothing.
    let again = fx.ctx_as("Fixer-Bot");
    assert!(transition::note_push(&fx.record, pushed, &again)
        .unwrap()
        .is_none());
    let json = to_json(&fx.record);
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["implementers"][0]["login"], "fixer-bot");
    assert!(load_record(&json).is_ok());
    let mut edited = value.clone();
    edited["implementers"] = json!([]);
    let err = load_record(&edited.to_string()).unwrap_err();
    assert!(err.to_string().contains("implementers"), "{err}");
}
