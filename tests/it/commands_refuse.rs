//! Every way a command is refused, one case each, asserting the kind of refusal and that
//! it says how to put it right (docs/reference.md#answers-and-refusals).

use auditloop::commands::{parse_comment, CommandError, MAX_COMMENT_CHARS};
use auditloop::engine::policy::CommandName;

/// Exhaustive, so a new kind of refusal needs a case here.
fn kind(e: &CommandError) -> &'static str {
    match e {
        CommandError::TooLong { .. } => "too-long",
        CommandError::SeveralCommands { .. } => "several-commands",
        CommandError::MissingCommand => "missing-command",
        CommandError::UnknownCommand { .. } => "unknown-command",
        CommandError::UnterminatedQuote { .. } => "unterminated-quote",
        CommandError::StrayQuote { .. } => "stray-quote",
        CommandError::UnknownFlag { .. } => "unknown-flag",
        CommandError::MissingValue { .. } => "missing-value",
        CommandError::DuplicateFlag { .. } => "duplicate-flag",
        CommandError::MissingFlag { .. } => "missing-flag",
        CommandError::MissingArgument { .. } => "missing-argument",
        CommandError::UnexpectedArgument { .. } => "unexpected-argument",
        CommandError::InvalidValue { .. } => "invalid-value",
        CommandError::Placeholder { .. } => "placeholder",
        CommandError::CoveredTasksRequired { .. } => "covered-tasks-required",
        CommandError::HandoffNeedsFlag { .. } => "handoff-needs-flag",
        CommandError::MissingPayload { .. } => "missing-payload",
        CommandError::SeveralPayloads { .. } => "several-payloads",
        CommandError::UnclosedPayload { .. } => "unclosed-payload",
    }
}

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn refusals() {
    let handoff = |flags: &str| format!("/audit report {flags}\n```text\nAUDIT: FAIL\n```");
    let cases: Vec<(String, &str)> = vec![
        ("/audit".into(), "missing-command"),
        ("/audit   ".into(), "missing-command"),
        ("/audit waiv A-01".into(), "unknown-command"),
        ("/audit \"help\"".into(), "unknown-command"),
        ("/audit Status".into(), "unknown-command"),
        ("/audit resolve --note \"open".into(), "unterminated-quote"),
        (
            "/audit resolve --note \"esc\\\"".into(),
            "unterminated-quote",
        ),
        ("/audit resolve --note a\"b".into(), "stray-quote"),
        ("/audit resolve --note \"a\"b".into(), "stray-quote"),
        ("/audit resolve --nte x".into(), "unknown-flag"),
        ("/audit resolve --note=x".into(), "unknown-flag"),
        ("/audit resolve -n x".into(), "unknown-flag"),
        ("/audit status --verbose x".into(), "unknown-flag"),
        ("/audit resolve --note".into(), "missing-value"),
        ("/audit override --budget --note x".into(), "missing-value"),
        ("/audit resolve --note a --note b".into(), "duplicate-flag"),
        ("/audit new --oracle o".into(), "missing-flag"),
        ("/audit new --goal g".into(), "missing-flag"),
        ("/audit resolve".into(), "missing-flag"),
        ("/audit override --note n".into(), "missing-flag"),
        ("/audit override --budget 4".into(), "missing-flag"),
        ("/audit waive A-01 --reason r".into(), "missing-flag"),
        (
            "/audit waive A-01 --basis cross-remit".into(),
            "missing-flag",
        ),
        ("/audit veto k".into(), "missing-flag"),
        ("/audit dispose A-01 fix".into(), "missing-flag"),
        ("/audit adopt".into(), "missing-argument"),
        (
            "/audit waive --basis cross-remit --reason r".into(),
            "missing-argument",
        ),
        ("/audit veto --reason r".into(), "missing-argument"),
        ("/audit dispose --note n".into(), "missing-argument"),
        ("/audit dispose A-01 --note n".into(), "missing-argument"),
        ("/audit status now".into(), "unexpected-argument"),
        ("/audit gate \"x\"".into(), "unexpected-argument"),
        ("/audit help waive".into(), "unexpected-argument"),
        ("/audit adopt AUD-1 AUD-2".into(), "unexpected-argument"),
        (
            "/audit resolve L-01 --note a b".into(),
            "unexpected-argument",
        ),
        (
            "/audit dispose A-01 fix now --note n".into(),
            "unexpected-argument",
        ),
        ("/audit baseline extra".into(), "unexpected-argument"),
        (
            "/audit new --goal g --oracle o stray".into(),
            "unexpected-argument",
        ),
        ("/audit adopt AUD-x".into(), "invalid-value"),
        ("/audit adopt #7".into(), "invalid-value"),
        (
            "/audit new --goal g --oracle o --budget 0".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --budget -3".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --budget +3".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --budget 2.5".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --budget 99999999999".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --work-unit sprint:3".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --covered-tasks 12".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --covered-tasks #1,,#2".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --covered-tasks #1,".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --covered-tasks #1,#1".into(),
            "invalid-value",
        ),
        (
            "/audit new --goal g --oracle o --covered-tasks \"\"".into(),
            "invalid-value",
        ),
        ("/audit baseline --covered-tasks x".into(), "invalid-value"),
        (
            "/audit override --budget many --note n".into(),
            "invalid-value",
        ),
        (
            "/audit waive A-1 --basis cross-remit --reason r".into(),
            "invalid-value",
        ),
        (
            "/audit waive A-01,L-01 --basis cross-remit --reason r".into(),
            "invalid-value",
        ),
        (
            "/audit waive A-01 --basis scope --reason r".into(),
            "invalid-value",
        ),
        (
            "/audit veto \"two words\" --reason r".into(),
            "invalid-value",
        ),
        (
            "/audit veto k --from-round 0 --reason r".into(),
            "invalid-value",
        ),
        ("/audit dispose A-01 fixed --note n".into(), "invalid-value"),
        ("/audit dispose L-01 fix --note n".into(), "invalid-value"),
        ("/audit resolve A-01,A-02 --note n".into(), "invalid-value"),
        ("/audit resolve L-01,A-02 --note n".into(), "invalid-value"),
        ("/audit resolve X-01 --note n".into(), "invalid-value"),
        ("/audit resolve A-01x --note n".into(), "invalid-value"),
        (
            handoff("--audit-id 7 --invocation i --candidate c"),
            "invalid-value",
        ),
        (
            handoff(&format!(
                "--audit-id AUD-1 --invocation \" \" --candidate commit:{SHA}"
            )),
            "invalid-value",
        ),
        (
            handoff("--audit-id AUD-1 --invocation i --candidate commit:abc"),
            "invalid-value",
        ),
        ("/audit new --goal TODO --oracle o".into(), "placeholder"),
        (
            "/audit new --goal g --oracle \"<describe>\"".into(),
            "placeholder",
        ),
        (
            "/audit new --goal g --oracle o --evidence tbd".into(),
            "placeholder",
        ),
        ("/audit baseline --evidence \"\"".into(), "placeholder"),
        ("/audit resolve --note n/a".into(), "placeholder"),
        (
            "/audit override --budget 4 --note \"  \"".into(),
            "placeholder",
        ),
        (
            "/audit waive A-01 --basis cross-remit --reason ...".into(),
            "placeholder",
        ),
        ("/audit veto k --reason FIXME".into(), "placeholder"),
        ("/audit dispose A-01 fix --note …".into(), "placeholder"),
        (
            "/audit new --goal g --oracle o --work-unit phase:4".into(),
            "covered-tasks-required",
        ),
        (
            "/audit new --goal g --oracle o --work-unit custom:x".into(),
            "covered-tasks-required",
        ),
        (
            handoff(&format!("--invocation i --candidate commit:{SHA}")),
            "handoff-needs-flag",
        ),
        (
            handoff(&format!("--audit-id AUD-1 --candidate commit:{SHA}")),
            "handoff-needs-flag",
        ),
        (
            handoff("--audit-id AUD-1 --invocation i"),
            "handoff-needs-flag",
        ),
        ("/audit report".into(), "missing-payload"),
        ("/audit report\n```\n{}\n```".into(), "missing-payload"),
        (
            "/audit report\n```yaml\na: 1\n```".into(),
            "missing-payload",
        ),
        (
            "/audit report\n> ```json\n> {}\n> ```".into(),
            "missing-payload",
        ),
        ("```json\n{}\n```\n/audit report".into(), "missing-payload"),
        (
            "/audit report\n```json\n{}\n```\n```json\n{}\n```".into(),
            "several-payloads",
        ),
        (
            "/audit report\n```json\n{}\n```\n~~~text\nAUDIT: FAIL\n~~~".into(),
            "several-payloads",
        ),
        ("/audit report\n```json\n{}\n".into(), "unclosed-payload"),
        (
            "/audit report\n````json\n{}\n```".into(),
            "unclosed-payload",
        ),
        ("/audit gate\n/audit status".into(), "several-commands"),
        (
            "/audit gate\n\nsome words\n\n/audit".into(),
            "several-commands",
        ),
        (
            "/audit report\n```json\n{}\n```\n/audit gate".into(),
            "several-commands",
        ),
    ];
    for (body, expected) in cases {
        let error = match parse_comment(&body) {
            Err(error) => error,
            other => panic!("{body:?} should be refused as {expected}, got {other:?}"),
        };
        assert_eq!(kind(&error), expected, "{body:?}: {error}");
        assert!(
            !error.what().is_empty() && !error.fix().is_empty(),
            "{body:?}"
        );
    }
}

#[test]
fn too_long_is_refused_only_for_commands() {
    let filler = "x".repeat(MAX_COMMENT_CHARS);
    let body = format!("/audit gate\n{filler}");
    assert_eq!(
        parse_comment(&body),
        Err(CommandError::TooLong {
            chars: MAX_COMMENT_CHARS + 12
        })
    );
    // Exactly at the limit, counted in characters, not bytes.
    let at_limit = format!("/audit gate\n{}", "é".repeat(MAX_COMMENT_CHARS - 12));
    assert!(parse_comment(&at_limit).is_ok());
    assert_eq!(parse_comment(&format!("hello\n{filler}")), Ok(None));
}

#[test]
fn suggestions_name_the_nearest_command_or_flag() {
    let cases = [
        ("/audit waiv A-01", "did you mean `/audit waive`?"),
        ("/audit stat", "did you mean `/audit status`?"),
        (
            "/audit overide --budget 3",
            "did you mean `/audit override`?",
        ),
        ("/audit xyzzy", "`/audit help` lists the commands"),
        ("/audit resolve --nte x", "did you mean `--note`?"),
        ("/audit resolve --note=x", "did you mean `--note`?"),
        ("/audit waive A-01 --bais x", "did you mean `--basis`?"),
        ("/audit veto k --from x", "did you mean `--from-round`?"),
        (
            "/audit gate --zzz x",
            "`/audit help` lists the flags of `/audit gate`",
        ),
    ];
    for (body, fix) in cases {
        let error = parse_comment(body).unwrap_err();
        assert_eq!(error.fix(), fix, "{body}");
    }
    let error = parse_comment("/audit waiv A-01").unwrap_err();
    assert_eq!(error.what(), "unknown command `/audit waiv`");
    assert_eq!(
        error,
        CommandError::UnknownCommand {
            given: "waiv".into(),
            suggestion: Some(CommandName::Waive)
        }
    );
}

#[test]
fn refusals_name_what_is_missing() {
    let cases = [
        (
            "/audit gate\n\n/audit status",
            "the comment holds more than one command (line 1 and line 3)",
        ),
        ("/audit new --goal g", "`/audit new` needs `--oracle`"),
        (
            "/audit resolve --note a --note b",
            "`--note` is given twice",
        ),
        (
            "/audit resolve --note TODO",
            "`--note` is a placeholder, not text",
        ),
        (
            "/audit resolve --note \"x",
            "the double quote at column 23 of the command line is never closed",
        ),
        (
            "/audit report --audit-id AUD-1\n```text\nAUDIT: FAIL\n```",
            "a `text` handoff block needs `--invocation`",
        ),
    ];
    for (body, what) in cases {
        assert_eq!(parse_comment(body).unwrap_err().what(), what, "{body}");
    }
}

#[test]
fn refusals_repeat_at_most_an_excerpt_of_the_words_given() {
    let long = "w".repeat(10_000);
    let cases = [
        format!("/audit {long}"),
        format!("/audit gate {long}"),
        format!("/audit gate --{long}"),
        format!("/audit adopt {long}"),
        format!("/audit resolve --note a\"{long}"),
        format!("/audit dispose A-01 {long} --note n"),
    ];
    for body in cases {
        let error = parse_comment(&body).unwrap_err();
        assert!(error.what().chars().count() < 200, "{}", error.what());
        assert!(error.what().contains("…"), "{}", error.what());
    }
}
