//! Report problems in words for people: a misspelt field or value names the one meant, an
//! id that does not fit says what ids look like, and the stale-candidate refusal names the
//! full SHA that `candidate_artifact` takes (docs/reference.md#report-rules).

use auditloop::engine::ids::Artifact;
use auditloop::engine::report::{parse_report, Problem};
use auditloop::engine::transition::refusal::Refusal;
use serde_json::Value;

const EXAMPLE: &str = include_str!("../../examples/report.json");

fn problems_of(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut report: Value = serde_json::from_str(EXAMPLE).expect("JSON");
    edit(&mut report);
    parse_report(&report.to_string())
        .expect_err("refused")
        .iter()
        .map(Problem::to_string)
        .collect()
}

fn assert_has(problems: &[String], line: &str) {
    assert!(
        problems.iter().any(|p| p == line),
        "no {line:?} in {problems:#?}"
    );
}

#[test]
fn a_misspelt_field_names_the_field_meant() {
    let problems = problems_of(|r| {
        let finding = r["findings"][0].as_object_mut().expect("finding");
        let severity = finding.remove("severity").expect("severity");
        finding.insert("sevrity".into(), severity);
        r["Verdict"] = r["verdict"].take();
        r.as_object_mut().expect("report").remove("verdict");
        r["surprise"] = Value::Bool(true);
    });
    assert_has(
        &problems,
        "shape: findings[0].sevrity: unknown field; did you mean `severity`?",
    );
    assert_has(
        &problems,
        "shape: Verdict: unknown field; did you mean `verdict`?",
    );
    assert_has(&problems, "shape: surprise: unknown field");
}

#[test]
fn a_misspelt_value_names_the_value_meant() {
    let problems = problems_of(|r| r["findings"][1]["severity"] = "lwo".into());
    assert_has(
        &problems,
        "shape: findings[1].severity: must be one of \"critical\", \"high\", \"medium\", \"low\", got \"lwo\"; did you mean `low`?",
    );
}

#[test]
fn an_id_that_does_not_fit_says_what_ids_look_like() {
    let problems = problems_of(|r| {
        r["limitations"][0]["id"] = "L-1".into();
        r["findings"][0]["id"] = "A-1".into();
        r["audit_id"] = "AUD-07".into();
    });
    assert_has(
        &problems,
        "shape: limitations[0].id: \"L-1\" does not fit: limitation ids are `L-01`, `L-02`, … (pattern ^L-[0-9]{2,}$)",
    );
    assert_has(
        &problems,
        "shape: findings[0].id: \"A-1\" does not fit: finding ids are `A-01`, `A-02`, … (pattern ^A-[0-9]{2,}$)",
    );
    assert!(
        problems.iter().any(|p| p.starts_with(
            "shape: audit_id: \"AUD-07\" does not fit: audit ids are `AUD-1`, `AUD-2`, …"
        )),
        "{problems:#?}"
    );
}

#[test]
fn a_short_candidate_asks_for_the_full_sha() {
    let problems = problems_of(|r| r["candidate_artifact"] = "commit:3f1c9a7".into());
    assert!(
        problems.iter().any(|p| p.starts_with(
            "shape: candidate_artifact: \"commit:3f1c9a7\" does not fit: a candidate is `commit:` and the full 40-character lowercase hex SHA"
        )),
        "{problems:#?}"
    );
}

#[test]
fn the_stale_candidate_refusal_names_the_full_sha_the_schema_takes() {
    let sha = |c: char| c.to_string().repeat(40);
    let current: Artifact = format!("commit:{}", sha('2')).parse().expect("artifact");
    let refusal = Refusal::StaleCandidate {
        report: format!("commit:{}", sha('1')).parse().expect("artifact"),
        current: current.clone(),
    };
    let fix = refusal.fix();
    let suggested = format!("\"candidate_artifact\": \"{current}\"");
    assert!(fix.plain().contains(&suggested), "{}", fix.plain());
    assert!(
        fix.as_markdown().contains(&suggested),
        "{}",
        fix.as_markdown()
    );

    // What it suggests is what the schema accepts.
    let mut report: Value = serde_json::from_str(EXAMPLE).expect("JSON");
    report["candidate_artifact"] = current.to_string().into();
    parse_report(&report.to_string()).expect("the suggested candidate validates");
}
