//! `/audit help`: the generated table, and that it documents exactly what the parser reads.

use std::collections::BTreeSet;

use auditloop::commands::{flags_of, help_rows, help_table, parse_comment, DOES_MAX, WHO_MAX};
use auditloop::engine::policy::CommandName;

#[test]
fn help_table_snapshot() {
    insta::assert_snapshot!(help_table());
}

#[test]
fn every_command_is_documented_with_exactly_its_flags() {
    for command in CommandName::ALL {
        let rows = help_rows(command);
        assert!(!rows.is_empty(), "{command}");
        let documented: BTreeSet<&str> = rows
            .iter()
            .flat_map(|row| row.usage.split_whitespace())
            .map(|word| word.trim_matches(|c| c == '[' || c == ']'))
            .filter(|word| word.starts_with("--"))
            .collect();
        let parsed: BTreeSet<&str> = flags_of(command).iter().copied().collect();
        assert_eq!(documented, parsed, "{command}");
        for row in rows {
            let prefix = format!("/audit {command}");
            assert!(row.usage.starts_with(&prefix), "{}", row.usage);
        }
    }
}

#[test]
fn command_words_round_trip() {
    for command in CommandName::ALL {
        assert_eq!(CommandName::from_word(command.as_str()), Some(command));
    }
    let words: BTreeSet<&str> = CommandName::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(words.len(), CommandName::ALL.len());
}

#[test]
fn parsed_commands_name_themselves() {
    let cases = [
        ("/audit status", CommandName::Status),
        ("/audit gate", CommandName::Gate),
        ("/audit help", CommandName::Help),
        ("/audit adopt AUD-2", CommandName::Adopt),
        ("/audit baseline", CommandName::Baseline),
        ("/audit new --goal g --oracle o", CommandName::New),
        ("/audit report\n```json\n{}\n```", CommandName::Report),
        ("/audit resolve --note n", CommandName::Resolve),
        ("/audit override --budget 2 --note n", CommandName::Override),
        (
            "/audit waive A-01 --basis cross-remit --reason r",
            CommandName::Waive,
        ),
        ("/audit veto k --reason r", CommandName::Veto),
        ("/audit dispose A-01 fix --note n", CommandName::Dispose),
    ];
    for (body, name) in cases {
        let parsed = parse_comment(body).unwrap().unwrap();
        assert_eq!(parsed.name(), name, "{body}");
    }
}

#[test]
fn pipes_are_escaped_in_cells() {
    let table = help_table();
    // The forms are a code block, where a pipe is a pipe.
    assert!(table.contains("\n/audit dispose A-NN fix|file|reject|follow-up --note T\n"));
    for line in table.lines().filter(|l| l.starts_with('|')) {
        let unescaped_pipes = line.replace("\\|", "").matches('|').count();
        assert_eq!(unescaped_pipes, 4, "{line}");
    }
}

/// A row is a short clause, never a paragraph: so the table fits a PR page at its natural
/// width and no command wraps (`views_browser` measures it); the details are notes below.
#[test]
fn rows_are_short_and_every_form_is_listed_whole() {
    let table = help_table();
    for command in CommandName::ALL {
        for row in help_rows(command) {
            assert!(row.does.chars().count() <= DOES_MAX, "{}", row.does);
            assert!(!row.does.contains(". "), "one clause: {}", row.does);
            assert!(row.who.chars().count() <= WHO_MAX, "{}", row.who);
            assert!(
                table.contains(&format!("\n{}\n", row.usage)),
                "{}",
                row.usage
            );
            assert!(
                table.contains(&format!(
                    "| `/audit {command}` | {} | {} |",
                    row.who, row.does
                )),
                "{command}"
            );
        }
    }
}
