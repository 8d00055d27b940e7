//! The plan-audit completion handoff (docs/reference.md#the-plan-audit-handoff).

use auditloop::engine::report::{parse_handoff, Handoff, HandoffStatus, Rule};

const GOOD: &str = "AUDIT: FAIL
Output: docs/audits/plan-audit.md
Sections covered: 9
Findings: critical=1, warning=2, info=0
Open questions: 3
Reason: Requirement R4 has no step in the plan.";

#[test]
fn parses_the_seed_format() {
    let h = parse_handoff(GOOD).expect("valid handoff");
    assert_eq!(
        h,
        Handoff {
            status: HandoffStatus::Fail,
            output: "docs/audits/plan-audit.md".into(),
            sections_covered: Some(9),
            critical: 1,
            warning: 2,
            info: 0,
            open_questions: 3,
            reason: "Requirement R4 has no step in the plan.".into(),
        }
    );
}

#[test]
fn tolerates_blank_lines_crlf_and_padding_and_reads_every_status() {
    for (word, status) in [
        ("PASS", HandoffStatus::Pass),
        ("FAIL", HandoffStatus::Fail),
        ("BLOCKED", HandoffStatus::Blocked),
        ("ERROR", HandoffStatus::Error),
    ] {
        let text = format!(
            "\n\n  AUDIT:   {word}  \r\n\r\nOutput: docs/audits/plan.md\r\nSections covered: unknown\nFindings: critical=1,warning=0, info=12\n\nOpen questions: 0\nReason: The snapshot stage could not read PLAN_PATH.\n\n"
        );
        let h = parse_handoff(&text).unwrap_or_else(|p| panic!("{word}: {p:?}"));
        assert_eq!(h.status, status);
        assert_eq!(h.status.as_str(), word);
        assert_eq!(h.sections_covered, None);
        assert_eq!((h.critical, h.warning, h.info), (1, 0, 12));
        assert_eq!(h.output, "docs/audits/plan.md");
    }
}

#[test]
fn a_handoff_must_agree_with_itself() {
    let text = |word: &str, output: &str, critical: u32| {
        format!(
            "AUDIT: {word}\nOutput: {output}\nSections covered: 3\nFindings: critical={critical}, warning=0, info=0\nOpen questions: 0\nReason: The plan misses a step.\n"
        )
    };
    // The report was not written: an ERROR, whatever the first line says.
    for word in ["PASS", "FAIL", "BLOCKED"] {
        let h = parse_handoff(&text(word, "not written", 2)).unwrap();
        assert_eq!(h.status, HandoffStatus::Error, "{word}");
    }
    // FAIL needs a critical finding.
    let problems = parse_handoff(&text("FAIL", "docs/audits/plan.md", 0)).unwrap_err();
    assert_eq!(
        problems[0].rule.name(),
        "handoff-inconsistent",
        "{problems:?}"
    );
    assert!(parse_handoff(&text("FAIL", "docs/audits/plan.md", 1)).is_ok());
}

#[test]
fn refusals_name_their_rule() {
    let replace = |from: &str, to: &str| GOOD.replace(from, to);
    let cases: Vec<(String, Rule, &str)> = vec![
        (replace("AUDIT: FAIL\n", ""), Rule::HandoffStatus, "AUDIT"),
        (
            replace("AUDIT: FAIL", "AUDIT: PASS | FAIL | BLOCKED | ERROR"),
            Rule::HandoffStatus,
            "line 1",
        ),
        (
            replace("AUDIT: FAIL", "AUDIT: fail"),
            Rule::HandoffStatus,
            "line 1",
        ),
        (
            replace("AUDIT: FAIL", "AUDIT: OK"),
            Rule::HandoffStatus,
            "line 1",
        ),
        (
            replace("Output: docs/audits/plan-audit.md\n", ""),
            Rule::HandoffField,
            "Output",
        ),
        (
            replace("Sections covered: 9", "Sections covered: nine"),
            Rule::HandoffField,
            "line 3",
        ),
        (
            replace("Sections covered: 9", "Sections covered: -1"),
            Rule::HandoffField,
            "line 3",
        ),
        (
            replace("critical=1, warning=2, info=0", "critical=1, warning=2"),
            Rule::HandoffField,
            "line 4",
        ),
        (
            replace(
                "critical=1, warning=2, info=0",
                "critical=x, warning=2, info=0",
            ),
            Rule::HandoffField,
            "line 4",
        ),
        (
            replace(
                "critical=1, warning=2, info=0",
                "warning=2, critical=1, info=0",
            ),
            Rule::HandoffField,
            "line 4",
        ),
        (
            replace("critical=1", "critical=99999999999"),
            Rule::HandoffField,
            "line 4",
        ),
        (
            replace("Findings: critical=1, warning=2, info=0\n", ""),
            Rule::HandoffField,
            "Findings",
        ),
        (
            replace("Open questions: 3", "Open questions: some"),
            Rule::HandoffField,
            "line 5",
        ),
        (
            replace("Open questions: 3\n", ""),
            Rule::HandoffField,
            "Open questions",
        ),
        (
            replace(
                "Reason: Requirement R4 has no step in the plan.",
                "Reason: <one line>",
            ),
            Rule::Placeholder,
            "line 6",
        ),
        (
            replace(
                "Reason: Requirement R4 has no step in the plan.",
                "Reason: TBD",
            ),
            Rule::Placeholder,
            "line 6",
        ),
        (
            replace("Reason: Requirement R4 has no step in the plan.", "Reason:"),
            Rule::Placeholder,
            "line 6",
        ),
        (
            replace(
                "Output: docs/audits/plan-audit.md",
                "Output: <OUTPUT_PATH or \"not written\">",
            ),
            Rule::Placeholder,
            "line 2",
        ),
        (format!("{GOOD}\nAUDIT: PASS"), Rule::HandoffField, "line 7"),
        (
            format!("{GOOD}\nVerdict: great"),
            Rule::HandoffUnknownLine,
            "line 7",
        ),
        (
            format!("{GOOD}\njust prose"),
            Rule::HandoffUnknownLine,
            "line 7",
        ),
        (String::new(), Rule::HandoffStatus, "AUDIT"),
    ];
    for (text, rule, path) in cases {
        let problems = parse_handoff(&text).expect_err(&text);
        assert!(
            problems.iter().any(|p| p.rule == rule && p.path == path),
            "expected {} at {path} for {text:?}, got {problems:#?}",
            rule.name()
        );
    }
}

#[test]
fn collects_every_problem() {
    let problems =
        parse_handoff("AUDIT: MAYBE\nFindings: lots\nReason: TODO").expect_err("refused");
    let rules: Vec<&str> = problems.iter().map(|p| p.rule.name()).collect();
    assert!(rules.contains(&"handoff-status"), "{rules:?}");
    assert!(rules.contains(&"placeholder"), "{rules:?}");
    assert_eq!(
        rules.iter().filter(|r| **r == "handoff-field").count(),
        4,
        "{problems:#?}"
    );
}
