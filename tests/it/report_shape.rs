//! Report intake, shape (docs/reference.md#the-report-format, the JSON Schema): every departure is refused with
//! its path, unknown fields and `null`s included, and placeholders under their own rule.

use auditloop::engine::report::{parse_report, Rule};
use serde_json::{json, Value};

use crate::report_support;

use report_support::*;

#[test]
fn shape_refusals_name_the_path() {
    let cases: Vec<(String, &str)> = vec![
        (
            changed(set("/schema", json!("auditor_report_v2"))),
            "schema",
        ),
        (changed(set("/audit_id", json!("AUD-07"))), "audit_id"),
        (changed(set("/audit_id", json!(7))), "audit_id"),
        (changed(set("/work_unit", json!("pr:abc"))), "work_unit"),
        (
            changed(set("/candidate_artifact", json!("commit:ABC"))),
            "candidate_artifact",
        ),
        (changed(set("/covered_tasks", json!([]))), "covered_tasks"),
        (
            changed(set("/covered_tasks/0", json!("task 41"))),
            "covered_tasks[0]",
        ),
        (
            changed(set("/invocation/ref", json!("x".repeat(201)))),
            "invocation.ref",
        ),
        (
            changed(set("/invocation/mode", json!("solo"))),
            "invocation.mode",
        ),
        (changed(set("/evidence", json!([]))), "evidence"),
        (changed(set("/evidence/1", json!(5))), "evidence[1]"),
        (
            changed(set("/assessment", json!("x".repeat(20_001)))),
            "assessment",
        ),
        (changed(set("/verdict", json!("approved"))), "verdict"),
        (changed(set("/findings", json!({}))), "findings"),
        (
            changed(set("/findings/0/id", json!("A-1"))),
            "findings[0].id",
        ),
        (
            changed(set("/findings/0/severity", json!("blocker"))),
            "findings[0].severity",
        ),
        (
            changed(set("/findings/0/blocking", json!("yes"))),
            "findings[0].blocking",
        ),
        (
            changed(set("/findings/0/evidence_refs", json!([]))),
            "findings[0].evidence_refs",
        ),
        (
            changed(set("/findings/1/key", json!("-bad key"))),
            "findings[1].key",
        ),
        (
            changed(set("/findings/0/cross_remit", json!(1))),
            "findings[0].cross_remit",
        ),
        (
            changed(set("/limitations/0/id", json!("L-1"))),
            "limitations[0].id",
        ),
        (
            changed(set("/limitations/0/authority", json!("octocat"))),
            "limitations[0].authority",
        ),
        (
            changed(set("/elegance/score", json!(3.5))),
            "elegance.score",
        ),
        (
            changed(set("/elegance/notes", json!(["n"]))),
            "elegance.notes",
        ),
        (changed(remove("/audit_id")), "audit_id"),
        (changed(remove("/findings/0/claim")), "findings[0].claim"),
        (changed(remove("/perspectives/risk")), "perspectives.risk"),
        (changed(remove("/limitations/0/key")), "limitations[0].key"),
        (changed(remove("/elegance/score")), "elegance.score"),
        (changed(remove("/invocation/mode")), "invocation.mode"),
    ];
    for (text, path) in cases {
        assert_refused(&text, Rule::Shape, path);
    }
}

#[test]
fn unknown_fields_are_refused_at_every_level() {
    let cases: &[(&str, &str)] = &[
        ("", "extra"),
        ("/invocation", "invocation.extra"),
        ("/perspectives", "perspectives.extra"),
        ("/findings/0", "findings[0].extra"),
        ("/findings/1", "findings[1].extra"),
        ("/limitations/0", "limitations[0].extra"),
        ("/elegance", "elegance.extra"),
    ];
    for (pointer, path) in cases {
        let text = changed(|v| {
            let target = if pointer.is_empty() {
                Some(v)
            } else {
                v.pointer_mut(pointer)
            };
            target
                .and_then(Value::as_object_mut)
                .expect("object")
                .insert("extra".into(), json!(1));
        });
        assert_refused(&text, Rule::Shape, path);
    }
    // In the receipt too, which is checked as submitted.
    let text = changed(|v| {
        v["receipt"] = receipt_value();
        v["receipt"]["extra"] = json!(1);
    });
    assert_refused(&text, Rule::Shape, "receipt.extra");
}

#[test]
fn null_is_refused_where_the_schema_asks_for_a_value() {
    for (pointer, path) in [
        ("/findings/1/key", "findings[1].key"),
        ("/findings/0/cross_remit", "findings[0].cross_remit"),
        ("/limitations/0/authority", "limitations[0].authority"),
        ("/limitations", "limitations"),
        ("/elegance", "elegance"),
        ("/elegance/notes", "elegance.notes"),
        ("/assessment", "assessment"),
        ("/invocation", "invocation"),
    ] {
        assert_refused(&changed(set(pointer, Value::Null)), Rule::Shape, path);
    }
    assert_refused(
        &changed(|v| v["receipt"] = Value::Null),
        Rule::Shape,
        "receipt",
    );
}

#[test]
fn null_is_refused_by_the_typed_model_too() {
    let mut v = valid();
    v["elegance"] = Value::Null;
    assert!(serde_json::from_value::<auditloop::engine::report::Report>(v).is_err());
    let mut v = valid();
    v["findings"][1]["key"] = Value::Null;
    assert!(serde_json::from_value::<auditloop::engine::report::Report>(v).is_err());
}

#[test]
fn placeholders_are_refused_in_every_required_text() {
    let pointers = [
        ("/perspectives/outcome", "perspectives.outcome"),
        ("/perspectives/completeness", "perspectives.completeness"),
        ("/perspectives/integration", "perspectives.integration"),
        (
            "/perspectives/engineering_quality",
            "perspectives.engineering_quality",
        ),
        ("/perspectives/verification", "perspectives.verification"),
        ("/perspectives/risk", "perspectives.risk"),
        ("/assessment", "assessment"),
        ("/evidence/0", "evidence[0]"),
        ("/findings/0/claim", "findings[0].claim"),
        ("/findings/0/consequence", "findings[0].consequence"),
        (
            "/findings/0/required_outcome",
            "findings[0].required_outcome",
        ),
        (
            "/findings/0/verification_required",
            "findings[0].verification_required",
        ),
        (
            "/findings/0/evidence_refs/0",
            "findings[0].evidence_refs[0]",
        ),
        ("/limitations/0/text", "limitations[0].text"),
    ];
    for (pointer, path) in pointers {
        for placeholder in ["TODO", "  tbd  ", "", "   ", "<fill in>", "…", "N/A"] {
            let text = changed(set(pointer, json!(placeholder)));
            let found = problems(&text);
            assert_eq!(found.len(), 1, "{pointer}={placeholder:?}: {found:?}");
            assert_eq!(
                (found[0].rule, found[0].path.as_str()),
                (Rule::Placeholder, path)
            );
        }
    }
    // Ordinary text mentioning such words is fine.
    assert!(parse_report(&changed(set(
        "/assessment",
        json!("TODO comments were removed")
    )))
    .is_ok());
}

fn receipt_value() -> Value {
    json!({
        "version": 1, "key_id": "ci-auditor-1", "receipt_id": "b1946ac9-0000-4000-8000-000000000000",
        "role": "auditor", "repository": "owner/repo", "audit_id": "AUD-7", "work_unit": "pr:42",
        "invocation_ref": "ci-run-88123-1",
        "candidate_artifact": "commit:3f1c9a7e5b2d4c6f8a0e1b3d5c7f9a2e4b6d8c0a",
        "covered_tasks": ["#12", "T-041"],
        "report_digest": format!("sha256:{}", "0".repeat(64)),
        "issued_at": "2026-11-29T10:00:00Z", "expires_at": "2026-11-29T11:00:00Z",
        "signature": "A".repeat(86) + "=="
    })
}

#[test]
fn receipt_is_kept_aside_untrimmed_and_checked_for_shape() {
    let text = changed(|v| {
        v["receipt"] = receipt_value();
        v["receipt"]["receipt_id"] = json!(" padded-id ");
    });
    let intake = parse_report(&text).expect("valid with receipt");
    assert!(intake.report.receipt.is_none());
    assert_eq!(
        intake.receipt.expect("receipt kept").receipt_id,
        " padded-id "
    );
    assert_eq!(
        intake.digest,
        parse_report(VALID).expect("valid").digest,
        "the receipt is not part of the digest"
    );

    for (field, bad, path) in [
        ("version", json!(2), "receipt.version"),
        ("role", json!("author"), "receipt.role"),
        ("issued_at", json!("yesterday"), "receipt.issued_at"),
        (
            "report_digest",
            json!("sha256:abc"),
            "receipt.report_digest",
        ),
        ("signature", json!("short"), "receipt.signature"),
        ("receipt_id", json!("short"), "receipt.receipt_id"),
        ("covered_tasks", json!("#12"), "receipt.covered_tasks"),
    ] {
        let text = changed(|v| {
            v["receipt"] = receipt_value();
            v["receipt"][field] = bad;
        });
        assert_refused(&text, Rule::Shape, path);
    }
}
