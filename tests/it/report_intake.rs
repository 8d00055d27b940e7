//! Report intake (docs/reference.md#report-rules): the valid fixture, JSON syntax, and the standalone rules,
//! each refused under its own name at the right path.

use auditloop::engine::report::{digest, parse_report, Authority, Rule, Verdict};
use serde_json::{json, Value};

use crate::report_support;

use report_support::*;

#[test]
fn valid_fixture_is_accepted_and_normalized() {
    let intake = parse_report(VALID).expect("fixture is valid");
    let r = &intake.report;
    assert_eq!(r.audit_id.as_str(), "AUD-7");
    assert_eq!(
        r.covered_tasks
            .iter()
            .map(auditloop::engine::ids::TaskId::as_str)
            .collect::<Vec<_>>(),
        ["#12", "T-041"]
    );
    assert_eq!(
        r.findings.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        ["A-01", "A-02"]
    );
    assert_eq!(r.verdict, Verdict::NeedsRemediation);
    assert!(r.receipt.is_none() && intake.receipt.is_none());
    assert_eq!(intake.digest, digest(r));
    assert_eq!(
        intake.canonical,
        auditloop::engine::report::canonical_bytes(r)
    );
    let limitation = &r.limitations.as_ref().expect("fixture has limitations")[0];
    assert!(
        matches!(limitation.authority_kind(), Some(Authority::Human(l)) if l.as_str() == "octocat")
    );
    // Absent optional fields stay absent: normalization adds no defaults.
    assert!(!String::from_utf8_lossy(&intake.canonical)
        .contains("\"cross_remit\":false,\"id\":\"A-01\""));
    assert!(r.findings[0].cross_remit.is_none());
}

#[test]
fn json_syntax_and_non_objects() {
    for (text, rule) in [
        ("", Rule::JsonSyntax),
        ("{", Rule::JsonSyntax),
        ("{\"a\":1,\"a\":2}", Rule::JsonSyntax),
        ("{} trailing", Rule::JsonSyntax),
        ("[]", Rule::Shape),
        ("\"report\"", Rule::Shape),
        ("null", Rule::Shape),
    ] {
        let found = problems(text);
        assert_eq!(found.len(), 1, "{text:?}: {found:?}");
        assert_eq!(
            (found[0].rule, found[0].path.as_str()),
            (rule, "$"),
            "{text:?}"
        );
    }
}

#[test]
fn repeated_key_in_fixture_is_refused() {
    let text = VALID.replacen(
        "\"verdict\": \"needs_remediation\",",
        "\"verdict\": \"needs_remediation\", \"verdict\": \"certified\",",
        1,
    );
    assert_refused(&text, Rule::JsonSyntax, "$");
}

#[test]
fn standalone_rules() {
    let certified = |v: &mut Value| {
        v["verdict"] = json!("certified");
        v["findings"][1]["blocking"] = json!(false);
        v.as_object_mut().expect("object").remove("limitations");
    };
    assert!(
        parse_report(&changed(certified)).is_ok(),
        "certified baseline is valid"
    );

    let cases: Vec<(String, Rule, &str)> = vec![
        (
            changed(set("/invocation/mode", json!("single_agent_fallback"))),
            Rule::InvocationMode,
            "invocation.mode",
        ),
        (
            changed(set("/findings/0/id", json!("A-01"))),
            Rule::FindingIdUnique,
            "findings[1].id",
        ),
        (
            changed(set(
                "/verdict",
                json!("certified_with_accepted_limitations"),
            )),
            Rule::CertifiedBlockingFinding,
            "findings[1].blocking",
        ),
        (
            changed(|v| {
                certified(v);
                v["findings"][0]["blocking"] = json!(true);
            }),
            Rule::CertifiedBlockingFinding,
            "findings[0].blocking",
        ),
        (
            changed(|v| {
                certified(v);
                v["limitations"] =
                    json!([{"id": "L-01", "key": "k", "text": "real text", "authority": "D-3"}]);
            }),
            Rule::CertifiedWithLimitations,
            "limitations",
        ),
        (
            changed(|v| {
                certified(v);
                v["verdict"] = json!("certified_with_accepted_limitations");
            }),
            Rule::LimitationsRequired,
            "limitations",
        ),
        (
            changed(|v| {
                certified(v);
                v["verdict"] = json!("certified_with_accepted_limitations");
                v["limitations"] = json!([]);
            }),
            Rule::LimitationsRequired,
            "limitations",
        ),
        (
            changed(remove("/limitations/0/authority")),
            Rule::LimitationAuthorityVerdict,
            "limitations[0].authority",
        ),
        (
            changed(set(
                "/limitations/0/authority",
                json!(format!("human: {}", "a".repeat(40))),
            )),
            Rule::LimitationAuthorityForm,
            "limitations[0].authority",
        ),
        (
            changed(set("/limitations/0/authority", json!("D-99999999999"))),
            Rule::LimitationAuthorityForm,
            "limitations[0].authority",
        ),
        (
            changed(set("/elegance/score", json!(0))),
            Rule::EleganceRange,
            "elegance.score",
        ),
        (
            changed(set("/elegance/score", json!(6))),
            Rule::EleganceRange,
            "elegance.score",
        ),
    ];
    for (text, rule, path) in cases {
        let found = problems(&text);
        assert!(
            found.iter().all(|p| p.rule != Rule::Shape),
            "{}: no shape problem expected: {found:?}",
            rule.name()
        );
        assert_refused(&text, rule, path);
    }
}

#[test]
fn accepted_variants() {
    let cases: Vec<String> = vec![
        // A limitation without authority asks the maintainers under needs_human_decision.
        changed(|v| {
            v["verdict"] = json!("needs_human_decision");
            v["limitations"][0]
                .as_object_mut()
                .expect("object")
                .remove("authority");
        }),
        changed(|v| {
            v["verdict"] = json!("certified_with_accepted_limitations");
            v["findings"][1]["blocking"] = json!(false);
            v["limitations"][0]["authority"] = json!("D-12");
        }),
        changed(set("/invocation/mode", json!("explicit_agent_invocation"))),
        changed(remove("/elegance")),
        changed(remove("/limitations")),
        changed(set("/findings", json!([]))),
        changed(set("/elegance/score", json!(1))),
        changed(set("/elegance/score", json!(5))),
    ];
    for text in cases {
        if let Err(found) = parse_report(&text) {
            panic!("expected acceptance, got {found:#?}");
        }
    }
}

#[test]
fn every_problem_is_collected_shape_first() {
    let text = changed(|v| {
        v["verdict"] = json!("certified");
        v["assessment"] = json!("TODO");
        v["extra"] = json!(true);
        v["findings"][0]["id"] = json!("A-01");
        v["invocation"]["mode"] = json!("single_agent_fallback");
        v["elegance"]["score"] = json!(9);
        v.as_object_mut().expect("object").remove("work_unit");
    });
    let found = problems(&text);
    let rules: Vec<&str> = found.iter().map(|p| p.rule.name()).collect();
    for expected in [
        "shape",
        "placeholder",
        "invocation-mode",
        "elegance-range",
        "finding-id-unique",
        "certified-blocking-finding",
        "certified-with-limitations",
    ] {
        assert!(
            rules.contains(&expected),
            "{expected} missing from {rules:?}"
        );
    }
    let first_rule = found
        .iter()
        .position(|p| p.rule != Rule::Shape)
        .unwrap_or(found.len());
    assert!(
        found[first_rule..].iter().all(|p| p.rule != Rule::Shape),
        "shape problems come first: {rules:?}"
    );
    assert_eq!(
        found.iter().filter(|p| p.rule == Rule::Shape).count(),
        2,
        "{found:#?}"
    );
}

#[test]
fn hostile_input_does_not_panic() {
    let deep = "[".repeat(10_000);
    for text in [
        deep.as_str(),
        "{\"findings\": [1, null, {\"id\": []}]}",
        "1e999",
        "\u{feff}{}",
    ] {
        assert!(parse_report(text).is_err());
    }
}
