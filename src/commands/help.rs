//! `/audit help`: the §6 command table as Markdown, generated from an exhaustive `match`
//! on [`CommandName`], so a new command does not compile until it is documented.

use super::model::CommandName;

/// One row of the table; a command may have several forms (`resolve` has three).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpRow {
    /// The command as written, without backticks; `|` is escaped when rendered.
    pub usage: &'static str,
    pub who: &'static str,
    pub does: &'static str,
}

const REPORT_PERMISSION: &str = "`report` permission";
const MAINTAINER: &str = "maintainer";
const ANYONE: &str = "anyone";

/// The documented forms of `command`.
#[must_use]
pub fn help_rows(command: CommandName) -> &'static [HelpRow] {
    match command {
        CommandName::New => &[HelpRow {
            usage: "/audit new --goal T --oracle T [--evidence T] [--covered-tasks LIST] [--work-unit ID] [--budget N]",
            who: "`report` permission (a `--budget` above the repository default: maintainer)",
            does: "creates the record `AUD-<n>` for this PR, bound to the PR head commit. Work unit defaults to `pr:<number>`; other forms `phase:4`, `milestone:M2`, `epic:x`, `custom:x`, `work-unit:x` need `--covered-tasks`. For `pr:` units covered tasks default to the same-repository issues the PR body closes (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved `#N`); none at all is refused. Evidence is required unless `evidence.required_checks` is set. Refused when this PR already has a record (use `baseline`) or the work unit already has one anywhere",
        }],
        CommandName::Adopt => &[HelpRow {
            usage: "/audit adopt AUD-n",
            who: MAINTAINER,
            does: "moves a record whose PR was closed without merging onto this PR: history, budget and work unit carry over, so a new PR never buys a fresh budget",
        }],
        CommandName::Report => &[HelpRow {
            usage: "/audit report [--audit-id AUD-n] [--invocation REF] [--candidate commit:SHA]",
            who: "`report` permission or a listed auditor; anyone with a valid receipt",
            does: "appends a run from the one fenced block under the command line: a `json` block holding the report, or a `text` block holding the plan-audit handoff, which needs all three flags",
        }],
        CommandName::Baseline => &[HelpRow {
            usage: "/audit baseline [--covered-tasks LIST] [--evidence T]",
            who: REPORT_PERMISSION,
            does: "rebinds the record to the current head and task set, clears stale certification, keeps history and budget",
        }],
        CommandName::Resolve => &[
            HelpRow {
                usage: "/audit resolve --note T",
                who: MAINTAINER,
                does: "answers `needs_human_decision`: the record becomes `open` (or `blocked` when the budget is spent); never certifies; authority recorded as `human: <login>` of the commenter",
            },
            HelpRow {
                usage: "/audit resolve L-NN[,L-NN] --note T",
                who: MAINTAINER,
                does: "accepts the named limitations of the latest run as `human: <login>`, so that a later report may cite that authority; also answers `needs_human_decision`",
            },
            HelpRow {
                usage: "/audit resolve A-NN --note T",
                who: MAINTAINER,
                does: "resolves a finding disposed `reject` (a human resolves the conflict)",
            },
        ],
        CommandName::Override => &[HelpRow {
            usage: "/audit override --budget N --note T",
            who: MAINTAINER,
            does: "raises the budget to N, which must exceed the runs used",
        }],
        CommandName::Waive => &[HelpRow {
            usage: "/audit waive A-NN[,A-NN] --basis triage-threshold|cross-remit --reason T",
            who: MAINTAINER,
            does: "waives findings of the latest run out of scope; `cross-remit` only for findings with `cross_remit: true`; refused for a key under a veto in force",
        }],
        CommandName::Veto => &[HelpRow {
            usage: "/audit veto KEY [--from-round N] --reason T",
            who: MAINTAINER,
            does: "from run N (default: the next) on, the finding with that key must be fixed: it cannot be waived, and a report that still lists it cannot certify",
        }],
        CommandName::Dispose => &[HelpRow {
            usage: "/audit dispose A-NN fix|file|reject|follow-up --note T",
            who: MAINTAINER,
            does: "one disposition per finding of the latest run. `file` opens an issue labelled `tech_debt_label`, once, and links it; `reject` (with counter-evidence in the note) marks the finding contested until a later run no longer reports its key or a maintainer resolves it; `follow-up` only for non-blocking findings",
        }],
        CommandName::Status => &[HelpRow {
            usage: "/audit status",
            who: ANYONE,
            does: "replies with the record, the gate conditions, the budget, and a link to `records/AUD-n.json`, the audit packet an auditor reads",
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

/// The whole table, in the order of [`CommandName::ALL`].
#[must_use]
pub fn help_table() -> String {
    let mut out = String::from("| command | who | does |\n| --- | --- | --- |\n");
    for command in CommandName::ALL {
        for row in help_rows(command) {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                cell(row.usage),
                cell(row.who),
                cell(row.does)
            ));
        }
    }
    out.push_str(
        "\nFlags take one word or a double-quoted string with `\\\"` and `\\\\` escapes. \
         One command per comment. On a closed PR only `status` and `help` run.\n",
    );
    out
}

/// A pipe would end the cell, even inside a code span.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
