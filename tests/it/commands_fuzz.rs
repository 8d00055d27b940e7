//! The parser never panics, whatever the comment, and a comment without an `/audit` line is
//! never a command.

use auditloop::commands::parse_comment;
use proptest::prelude::*;

/// Lines built from the pieces that matter to the parser.
fn markdown_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("/audit".to_owned()),
        Just("/audit report".to_owned()),
        Just("```json".to_owned()),
        Just("```text".to_owned()),
        Just("```".to_owned()),
        Just("~~~".to_owned()),
        Just("> /audit gate".to_owned()),
        Just("/auditx".to_owned()),
        Just("see /audit gate".to_owned()),
        "(/audit )?[a-z-]{0,10}( --[a-z-]{1,12})?( \"[^\"\\n]{0,8}\\\\?\"?)?",
        "[ \t>`~\"\\\\/a-zA-Z0-9,#:.-]{0,30}",
        any::<String>(),
    ]
}

fn markdown_body() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(markdown_line(), 0..12),
        prop::bool::ANY,
    )
        .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_arbitrary_text(body in any::<String>()) {
        let _ = parse_comment(&body);
    }

    #[test]
    fn never_panics_on_markdown_shaped_text(body in markdown_body()) {
        let _ = parse_comment(&body);
    }

    #[test]
    fn no_audit_line_means_no_command(lines in prop::collection::vec(markdown_line(), 0..12)) {
        // Push every would-be command line off the start of its line; quoted, fenced
        // and mid-line `/audit` stay.
        let body = lines
            .iter()
            .map(|line| {
                if line.trim_start().starts_with("/audit") {
                    format!("x{line}")
                } else {
                    line.clone()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        prop_assert_eq!(parse_comment(&body), Ok(None));
    }

    #[test]
    fn text_without_audit_is_never_a_command(body in "[^/]*") {
        prop_assert_eq!(parse_comment(&body), Ok(None));
    }

    #[test]
    fn any_quoted_note_round_trips(note in "[^\r\n]{1,40}") {
        prop_assume!(!auditloop::engine::text::is_placeholder(&note));
        let escaped = note.replace('\\', "\\\\").replace('"', "\\\"");
        let body = format!("/audit resolve --note \"{escaped}\"");
        let parsed = parse_comment(&body);
        prop_assert_eq!(
            parsed,
            Ok(Some(auditloop::commands::ParsedCommand::Resolve {
                target: auditloop::commands::ResolveTarget::Decision,
                note,
            }))
        );
    }
}
