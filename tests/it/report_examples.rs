//! The full example reports people copy validate as they are: `examples/report.json` and
//! the one under "The report format" in docs/reference.md, each checked by `validate`
//! itself (docs/reference.md#the-report-format).

use std::process::ExitCode;

use auditloop::cli::validate;

const EXAMPLE: &str = include_str!("../../examples/report.json");
const REFERENCE: &str = include_str!("../../docs/reference.md");

/// What `auditloop validate` prints for `text`, and its exit code.
pub fn validate_text(text: &str) -> (ExitCode, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    std::fs::write(&path, text).expect("write");
    let mut out = Vec::new();
    let args = validate::ValidateArgs {
        report: path,
        trust_store: None,
    };
    let code = validate::run(&args, &mut out).expect("runs");
    (code, String::from_utf8(out).expect("UTF-8"))
}

/// The first ` ```json ` block after the heading `heading` of `markdown`.
fn json_block_under<'a>(markdown: &'a str, heading: &str) -> &'a str {
    let section = &markdown[markdown.find(heading).expect("the heading") + heading.len()..];
    let start = section.find("```json\n").expect("a json block") + "```json\n".len();
    let len = section[start..].find("\n```").expect("the block ends") + 1;
    &section[start..start + len]
}

fn assert_validates(name: &str, text: &str) {
    let (code, out) = validate_text(text);
    assert_eq!(code, ExitCode::SUCCESS, "{name} has problems:\n{out}");
    assert!(out.starts_with("sha256:"), "{name}: {out}");
}

#[test]
fn examples_report_json_validates() {
    assert_validates("examples/report.json", EXAMPLE);
}

#[test]
fn the_reference_example_report_validates() {
    let block = json_block_under(REFERENCE, "\n### The report format\n");
    assert!(
        block.contains("\"perspectives\""),
        "the full example: {block}"
    );
    assert_validates("docs/reference.md#the-report-format", block);
}

#[test]
fn the_example_report_uses_every_field() {
    let report: serde_json::Value = serde_json::from_str(EXAMPLE).expect("JSON");
    let schema: serde_json::Value =
        serde_json::from_str(auditloop::engine::report::schema::SCHEMA_TEXT).expect("schema");
    for field in schema["properties"].as_object().expect("properties").keys() {
        assert!(
            field == "receipt" || report.get(field).is_some(),
            "examples/report.json leaves out {field}"
        );
    }
}
