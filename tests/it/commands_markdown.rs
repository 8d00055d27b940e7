//! Which comments are commands: `>` quotes and fenced blocks are skipped, only the first
//! plain line counts, and line endings do not matter (docs/reference.md#reading-a-command).

use auditloop::commands::{parse_comment, CommandError, ParsedCommand, ReportPayload};

#[test]
fn which_comments_are_commands() {
    let gate = Some(ParsedCommand::Gate);
    let cases: Vec<(&str, Option<ParsedCommand>)> = vec![
        ("", None),
        ("\n\n  \n", None),
        ("/audit gate", gate.clone()),
        ("\n\n   /audit gate\n", gate.clone()),
        ("\u{feff}/audit gate", gate.clone()),
        ("/auditx gate", None),
        ("/audit-gate", None),
        ("/Audit gate", None),
        ("audit gate", None),
        ("please run /audit gate", None),
        ("`/audit gate`", None),
        ("Thanks!\n/audit gate", None),
        // Quotes and fences before the command are skipped.
        ("> /audit status\n/audit gate", gate.clone()),
        ("> earlier\n>\n/audit gate", gate.clone()),
        ("```\n/audit status\n```\n/audit gate", gate.clone()),
        ("~~~~md\n/audit status\n~~~~\n\n/audit gate", gate.clone()),
        // Commands inside quotes and fences are ignored.
        ("> /audit gate", None),
        ("  > /audit gate", None),
        ("```\n/audit gate\n```", None),
        ("~~~\n/audit gate\n~~~", None),
        ("```\n/audit gate", None),
        ("````\n```\n/audit gate\n````", None),
        ("~~~\n```\n/audit gate\n~~~", None),
        // Four columns of indentation make a code block, not a command.
        ("    /audit gate", None),
        ("\t/audit gate", None),
        // Text after the command line is free, and quoted or fenced commands there are
        // not a second command.
        ("/audit gate\nbecause the check is stale", gate.clone()),
        (
            "/audit gate\n> /audit status\n```\n/audit help\n```",
            gate.clone(),
        ),
        ("/audit gate\nrun /audit status later", gate.clone()),
    ];
    for (body, expected) in cases {
        assert_eq!(parse_comment(body), Ok(expected), "{body:?}");
    }
}

#[test]
fn a_second_command_line_is_refused_wherever_it_is() {
    let cases = [
        ("/audit gate\n/audit status", 1, 2),
        ("/audit gate\r\n\r\nnotes\r\n/audit", 1, 4),
        ("> quote\n/audit gate\n```\nx\n```\n/audit help", 2, 6),
        ("/audit gate\n   /audit gate", 1, 2),
    ];
    for (body, first, second) in cases {
        assert_eq!(
            parse_comment(body),
            Err(CommandError::SeveralCommands { first, second }),
            "{body:?}"
        );
    }
}

#[test]
fn crlf_bodies_read_like_lf_bodies() {
    let lf = "Intro is quoted:\n> x\n\n/audit report --invocation ci-1\n\n```json\n{\n  \"a\": 1\n}\n```\n";
    let crlf = lf.replace('\n', "\r\n");
    let expected = Ok(Some(ParsedCommand::Report {
        audit_id: None,
        invocation: Some("ci-1".into()),
        candidate: None,
        payload: ReportPayload::Json("{\n  \"a\": 1\n}".into()),
    }));
    // The first plain line is "Intro is quoted:", so neither is a command…
    assert_eq!(parse_comment(lf), Ok(None));
    assert_eq!(parse_comment(&crlf), Ok(None));
    // …until it is dropped.
    let lf = lf.replacen("Intro is quoted:\n", "", 1);
    let crlf = lf.replace('\n', "\r\n");
    assert_eq!(parse_comment(&lf), expected);
    assert_eq!(parse_comment(&crlf), expected);
    assert_eq!(
        parse_comment("/audit resolve --note \"fine\"\r\n"),
        Ok(Some(ParsedCommand::Resolve {
            target: auditloop::commands::ResolveTarget::Decision,
            note: "fine".into(),
        }))
    );
}

#[test]
fn payload_is_the_block_after_the_command_as_written() {
    let cases = [
        (
            "/audit report\n```json\n{}\n```",
            ReportPayload::Json("{}".into()),
        ),
        (
            "/audit report\n```json\n```",
            ReportPayload::Json(String::new()),
        ),
        (
            "/audit report\n``` json extra\n[1]\n```",
            ReportPayload::Json("[1]".into()),
        ),
        (
            "/audit report\n````json\n```\n````",
            ReportPayload::Json("```".into()),
        ),
        (
            "/audit report\n  ```json\n  {\n    }\n  ```",
            ReportPayload::Json("{\n  }".into()),
        ),
        (
            "/audit report\n~~~TEXT\nAUDIT: ERROR\n\nReason: x\n~~~",
            ReportPayload::Handoff("AUDIT: ERROR\n\nReason: x".into()),
        ),
        // A quoted example block is not the payload.
        (
            "/audit report\n> ```text\n> AUDIT: PASS\n> ```\n```json\n{}\n```",
            ReportPayload::Json("{}".into()),
        ),
    ];
    for (body, payload) in cases {
        let body = body.replace("/audit report", "/audit report --audit-id AUD-1 --invocation i --candidate commit:0123456789abcdef0123456789abcdef01234567");
        match parse_comment(&body) {
            Ok(Some(ParsedCommand::Report { payload: got, .. })) => {
                assert_eq!(got, payload, "{body:?}");
            }
            other => panic!("{body:?}: {other:?}"),
        }
    }
}

#[test]
fn payload_blocks_of_other_commands_are_ignored() {
    assert_eq!(
        parse_comment("/audit gate\n```json\n{}\n```\n```json\n{}\n```"),
        Ok(Some(ParsedCommand::Gate))
    );
}

#[test]
fn a_missing_payload_names_the_blocks_found() {
    let error = parse_comment("/audit report\n```\n{}\n```\n```yaml\na: 1\n```").unwrap_err();
    assert_eq!(
        error,
        CommandError::MissingPayload {
            other_blocks: vec![String::new(), "yaml".into()]
        }
    );
    assert!(error.fix().contains("(nothing), `yaml`"), "{}", error.fix());
}
