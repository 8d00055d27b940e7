//! `/audit help`: the command table (docs/reference.md#commands) as Markdown, generated from an exhaustive `match`
//! on [`CommandName`], so a new command does not compile until it is documented.

use crate::engine::policy::CommandName;

/// One form of a command: its row in the table and its line among the forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpRow {
    /// The command as written, with its arguments and flags, without backticks; shown in a
    /// code block, where nothing wraps and the whole line copies.
    pub usage: &'static str,
    /// Who may run it, in a few words (details go to [`help_note`]).
    pub who: &'static str,
    /// What it does, in one short clause (details go to [`help_note`]).
    pub does: &'static str,
}

/// The longest `does` clause: with a short `who`, a table row then fits a PR page's
/// 900 px at its natural width, so no cell wraps a command mid-word.
pub const DOES_MAX: usize = 64;
/// The longest `who`.
pub const WHO_MAX: usize = 30;

const REPORT_PERMISSION: &str = "`report` permission";
const MAINTAINER: &str = "maintainer";
const ANYONE: &str = "anyone";

/// The documented forms of `command`.
#[must_use]
pub fn help_rows(command: CommandName) -> &'static [HelpRow] {
    match command {
        CommandName::New => &[HelpRow {
            usage: "/audit new --goal T --oracle T [--evidence T] [--covered-tasks LIST] [--work-unit ID] [--budget N]",
            who: REPORT_PERMISSION,
            does: "creates this PR's record `AUD-<n>`, bound to its head commit",
        }],
        CommandName::Adopt => &[HelpRow {
            usage: "/audit adopt AUD-n",
            who: MAINTAINER,
            does: "moves the record of a PR closed unmerged onto this PR",
        }],
        CommandName::Report => &[HelpRow {
            usage: "/audit report [--audit-id AUD-n] [--invocation REF] [--candidate commit:SHA]",
            who: "`report` permission or auditor",
            does: "appends a run from the fenced block under the command",
        }],
        CommandName::Baseline => &[HelpRow {
            usage: "/audit baseline [--covered-tasks LIST] [--evidence T]",
            who: REPORT_PERMISSION,
            does: "rebinds the record to the current head and task set",
        }],
        CommandName::Resolve => &[
            HelpRow {
                usage: "/audit resolve --note T",
                who: MAINTAINER,
                does: "with no ids: answers `needs_human_decision`; never certifies",
            },
            HelpRow {
                usage: "/audit resolve L-NN[,L-NN] --note T",
                who: MAINTAINER,
                does: "with `L-NN`: accepts the named limitations of the latest run",
            },
            HelpRow {
                usage: "/audit resolve A-NN --note T",
                who: MAINTAINER,
                does: "with `A-NN`: resolves a finding disposed `reject`",
            },
        ],
        CommandName::Override => &[HelpRow {
            usage: "/audit override --budget N --note T",
            who: MAINTAINER,
            does: "raises the budget to N runs, more than those used",
        }],
        CommandName::Waive => &[HelpRow {
            usage: "/audit waive A-NN[,A-NN] --basis triage-threshold|cross-remit --reason T",
            who: MAINTAINER,
            does: "waives findings of the latest run as out of scope",
        }],
        CommandName::Veto => &[HelpRow {
            usage: "/audit veto KEY [--from-round N] --reason T",
            who: MAINTAINER,
            does: "requires the finding with that key to be fixed",
        }],
        CommandName::Dispose => &[HelpRow {
            usage: "/audit dispose A-NN fix|file|reject|follow-up --note T",
            who: MAINTAINER,
            does: "disposes of a finding of the latest run",
        }],
        CommandName::Status => &[HelpRow {
            usage: "/audit status",
            who: ANYONE,
            does: "replies with the record, the gate and the budget",
        }],
        CommandName::Gate => &[HelpRow {
            usage: "/audit gate",
            who: ANYONE,
            does: "re-evaluates the gate and updates the check run",
        }],
        CommandName::Help => &[HelpRow {
            usage: "/audit help",
            who: ANYONE,
            does: "replies with this table",
        }],
    }
}

/// What a command's row leaves out, as a sentence or two under the table ("" when nothing).
#[must_use]
pub(crate) fn help_note(command: CommandName) -> &'static str {
    match command {
        CommandName::New => "The work unit defaults to `pr:<number>`; the forms `phase:4`, `milestone:M2`, `epic:x`, `custom:x` and `work-unit:x` need the covered tasks. For a `pr:` unit they default to the same-repository issues the PR body closes (any form of close, fix or resolve before `#N`); none at all is refused. Evidence is required unless `evidence.required_checks` is set. A budget above the repository default needs a maintainer. Refused when this PR already has a record (use `baseline`) or the work unit has one anywhere.",
        CommandName::Adopt => "History, budget and work unit carry over, so a new PR never buys a fresh budget.",
        CommandName::Report => "The block is a `json` block holding the report, or a `text` block holding the plan-audit handoff, which needs all three flags. Anyone with a valid receipt may report too.",
        CommandName::Baseline => "Clears stale certification; keeps history and budget.",
        CommandName::Resolve => "Without ids the record becomes `open` (or `blocked` when the budget is spent). The authority recorded is `human: <login>` of the commenter, which a later report may cite for the limitations accepted.",
        CommandName::Override | CommandName::Status | CommandName::Gate | CommandName::Help => "",
        CommandName::Waive => "The basis `cross-remit` only for findings with `cross_remit: true`; refused for a key under a veto in force.",
        CommandName::Veto => "From run N (default: the next) on, the finding cannot be waived, and a report that still lists it cannot certify.",
        CommandName::Dispose => "One disposition per finding. `file` opens an issue labelled `tech_debt_label`, once, and links it; `reject` (with counter-evidence in the note) marks the finding contested until a later run no longer reports its key or a maintainer resolves it; `follow-up` only for non-blocking findings.",
    }
}

/// The table (one row per form), the forms as a code block, then the notes; all in the
/// order of [`CommandName::ALL`].
#[must_use]
pub fn help_table() -> String {
    let mut out = String::from("| command | who | does |\n| --- | --- | --- |\n");
    let mut forms = String::new();
    let mut notes = String::new();
    for command in CommandName::ALL {
        for row in help_rows(command) {
            out.push_str(&format!(
                "| `/audit {command}` | {} | {} |\n",
                cell(row.who),
                cell(row.does)
            ));
            forms.push_str(row.usage);
            forms.push('\n');
        }
        let note = help_note(command);
        if !note.is_empty() {
            notes.push_str(&format!("- **{command}**: {note}\n"));
        }
    }
    out.push_str(&format!(
        "\nThe forms (`T` is one word or a double-quoted string with `\\\"` and `\\\\` escapes; `[…]` is optional):\n\n```text\n{forms}```\n\n{notes}\nOne command per comment. On a closed PR only `status` and `help` run.\n"
    ));
    out
}

/// A pipe would end the cell, even inside a code span.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
