//! Every accepted form of every `/audit` command, one case each (docs/reference.md#commands).

use auditloop::commands::{parse_comment, ParsedCommand, ReportPayload, ResolveTarget};
use auditloop::engine::record::{DispositionKind, WaiverBasis};

fn id<T: std::str::FromStr>(s: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    s.parse().unwrap()
}

fn text(s: &str) -> String {
    s.to_owned()
}

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn accepted_forms() {
    let cases: Vec<(String, ParsedCommand)> = vec![
        (
            r#"/audit new --goal "Ship the parser" --oracle "cargo test passes""#.into(),
            ParsedCommand::New {
                goal: text("Ship the parser"),
                oracle: text("cargo test passes"),
                evidence: None,
                covered_tasks: None,
                work_unit: None,
                budget: None,
            },
        ),
        (
            "/audit new --goal g --oracle o --evidence \"CI run 12\" --covered-tasks #12,T-041 \
             --work-unit phase:4 --budget 5"
                .into(),
            ParsedCommand::New {
                goal: text("g"),
                oracle: text("o"),
                evidence: Some(text("CI run 12")),
                covered_tasks: Some(vec![id("#12"), id("T-041")]),
                work_unit: Some(id("phase:4")),
                budget: Some(5),
            },
        ),
        (
            // Flags in any order; blanks after commas inside quotes are fine.
            r##"/audit new --budget 2 --covered-tasks "#1, #2" --oracle o --goal g --work-unit pr:9"##
                .into(),
            ParsedCommand::New {
                goal: text("g"),
                oracle: text("o"),
                evidence: None,
                covered_tasks: Some(vec![id("#1"), id("#2")]),
                work_unit: Some(id("pr:9")),
                budget: Some(2),
            },
        ),
        (
            // A `pr:` unit takes its covered tasks from the PR body later.
            "/audit new --goal g --oracle o --work-unit pr:12".into(),
            ParsedCommand::New {
                goal: text("g"),
                oracle: text("o"),
                evidence: None,
                covered_tasks: None,
                work_unit: Some(id("pr:12")),
                budget: None,
            },
        ),
        (
            "/audit adopt AUD-7".into(),
            ParsedCommand::Adopt {
                audit_id: id("AUD-7"),
            },
        ),
        (
            "/audit report\n```json\n{\"a\": 1}\n```".into(),
            ParsedCommand::Report {
                audit_id: None,
                invocation: None,
                candidate: None,
                payload: ReportPayload::Json(text("{\"a\": 1}")),
            },
        ),
        (
            format!(
                "/audit report --audit-id AUD-3 --invocation ci-88 --candidate commit:{SHA}\n\
                 \n~~~text\nAUDIT: FAIL\nReason: x\n~~~\nthanks"
            ),
            ParsedCommand::Report {
                audit_id: Some(id("AUD-3")),
                invocation: Some(text("ci-88")),
                candidate: Some(id(&format!("commit:{SHA}"))),
                payload: ReportPayload::Handoff(text("AUDIT: FAIL\nReason: x")),
            },
        ),
        (
            // Flags are optional with a JSON report; other languages of block are ignored.
            "/audit report --invocation ci-1\n```diff\n-a\n```\n```JSON\n{}\n```".into(),
            ParsedCommand::Report {
                audit_id: None,
                invocation: Some(text("ci-1")),
                candidate: None,
                payload: ReportPayload::Json(text("{}")),
            },
        ),
        (
            "/audit baseline".into(),
            ParsedCommand::Baseline {
                covered_tasks: None,
                evidence: None,
            },
        ),
        (
            "/audit baseline --covered-tasks T-1,T-2 --evidence \"green on 4f2a\"".into(),
            ParsedCommand::Baseline {
                covered_tasks: Some(vec![id("T-1"), id("T-2")]),
                evidence: Some(text("green on 4f2a")),
            },
        ),
        (
            "/audit resolve --note \"go ahead\"".into(),
            ParsedCommand::Resolve {
                target: ResolveTarget::Decision,
                note: text("go ahead"),
            },
        ),
        (
            "/audit resolve L-01,L-02 --note accepted".into(),
            ParsedCommand::Resolve {
                target: ResolveTarget::Limitations(vec![id("L-01"), id("L-02")]),
                note: text("accepted"),
            },
        ),
        (
            "/audit resolve A-04 --note \"counter-evidence holds\"".into(),
            ParsedCommand::Resolve {
                target: ResolveTarget::Finding(id("A-04")),
                note: text("counter-evidence holds"),
            },
        ),
        (
            "/audit override --budget 5 --note \"one more round\"".into(),
            ParsedCommand::Override {
                budget: 5,
                note: text("one more round"),
            },
        ),
        (
            "/audit waive A-01,A-02 --basis triage-threshold --reason \"out of scope\"".into(),
            ParsedCommand::Waive {
                findings: vec![id("A-01"), id("A-02")],
                basis: WaiverBasis::TriageThreshold,
                reason: text("out of scope"),
            },
        ),
        (
            "/audit waive A-03 --basis cross-remit --reason remitted".into(),
            ParsedCommand::Waive {
                findings: vec![id("A-03")],
                basis: WaiverBasis::CrossRemit,
                reason: text("remitted"),
            },
        ),
        (
            "/audit veto webhook-replay --reason \"must be fixed\"".into(),
            ParsedCommand::Veto {
                key: id("webhook-replay"),
                from_round: None,
                reason: text("must be fixed"),
            },
        ),
        (
            "/audit veto webhook-replay --from-round 2 --reason security".into(),
            ParsedCommand::Veto {
                key: id("webhook-replay"),
                from_round: Some(2),
                reason: text("security"),
            },
        ),
        (
            "/audit dispose A-01 fix --note \"will fix\"".into(),
            dispose("A-01", DispositionKind::Fix),
        ),
        (
            "/audit dispose A-01 file --note \"will fix\"".into(),
            dispose("A-01", DispositionKind::File),
        ),
        (
            "/audit dispose A-01 reject --note \"will fix\"".into(),
            dispose("A-01", DispositionKind::Reject),
        ),
        (
            // Positional arguments may come after the flags.
            "/audit dispose --note \"will fix\" A-01 follow-up".into(),
            dispose("A-01", DispositionKind::FollowUp),
        ),
        ("/audit status".into(), ParsedCommand::Status),
        ("/audit gate".into(), ParsedCommand::Gate),
        ("/audit help".into(), ParsedCommand::Help),
        ("  /audit   help   ".into(), ParsedCommand::Help),
        ("/audit\thelp".into(), ParsedCommand::Help),
    ];
    for (body, expected) in cases {
        assert_eq!(parse_comment(&body), Ok(Some(expected)), "{body:?}");
    }
}

fn dispose(finding: &str, disposition: DispositionKind) -> ParsedCommand {
    ParsedCommand::Dispose {
        finding: id(finding),
        disposition,
        note: text("will fix"),
    }
}

#[test]
fn quoted_values_unescape() {
    let cases = [
        (r#""plain""#, "plain"),
        (r#""say \"hi\" now""#, r#"say "hi" now"#),
        (r#""a \\ b""#, r"a \ b"),
        (r#""ends in \\""#, "ends in \\"),
        (r#""keeps \n and C:\dir""#, r"keeps \n and C:\dir"),
        (r#""--looks-like-a-flag""#, "--looks-like-a-flag"),
        ("it's-one-word", "it's-one-word"),
        (r#""ünïcödé “curly”""#, "ünïcödé “curly”"),
    ];
    for (written, note) in cases {
        let body = format!("/audit resolve --note {written}");
        let parsed = parse_comment(&body);
        assert_eq!(
            parsed,
            Ok(Some(ParsedCommand::Resolve {
                target: ResolveTarget::Decision,
                note: note.to_owned(),
            })),
            "{body}"
        );
    }
}

#[test]
fn read_only_commands() {
    for (body, read_only) in [
        ("/audit status", true),
        ("/audit help", true),
        ("/audit gate", false),
        ("/audit baseline", false),
    ] {
        let command = parse_comment(body).unwrap().unwrap();
        assert_eq!(command.is_read_only(), read_only, "{body}");
    }
}
