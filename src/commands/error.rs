//! Why a command was refused, and how to put it right. The GitHub layer renders
//! `auditloop: refused` + [`CommandError::what`] + [`CommandError::fix`].

use crate::engine::md::Md;
use crate::engine::policy::CommandName;
use crate::md;

/// The longest comment a command may be (GitHub's own limit for a comment body).
pub const MAX_COMMENT_CHARS: usize = 65_536;

/// How much of a user's word a refusal repeats.
const EXCERPT_CHARS: usize = 60;

/// `text`, cut to [`EXCERPT_CHARS`] characters, so that a refusal of a huge word stays short.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("the comment has {chars} characters; a command comment may have at most {MAX_COMMENT_CHARS}")]
    TooLong { chars: usize },
    #[error("the comment holds more than one command (line {first} and line {second})")]
    SeveralCommands { first: usize, second: usize },
    #[error("`/audit` is not followed by a command")]
    MissingCommand,
    #[error("unknown command `/audit {given}`")]
    UnknownCommand {
        given: String,
        suggestion: Option<CommandName>,
    },
    /// `column`: 1-based, in characters, of the command line.
    #[error("the double quote at column {column} of the command line is never closed")]
    UnterminatedQuote { column: usize },
    #[error("stray double quote in `{word}`")]
    StrayQuote { word: String },
    #[error("`/audit {command}` has no flag `{flag}`")]
    UnknownFlag {
        command: CommandName,
        flag: String,
        suggestion: Option<&'static str>,
    },
    #[error("`{flag}` of `/audit {command}` needs a value")]
    MissingValue {
        command: CommandName,
        flag: &'static str,
    },
    #[error("`{flag}` is given twice")]
    DuplicateFlag {
        command: CommandName,
        flag: &'static str,
    },
    #[error("`/audit {command}` needs `{flag}`")]
    MissingFlag {
        command: CommandName,
        flag: &'static str,
    },
    #[error("`/audit {command}` needs {what}")]
    MissingArgument {
        command: CommandName,
        what: &'static str,
    },
    #[error("unexpected argument `{argument}` for `/audit {command}`")]
    UnexpectedArgument {
        command: CommandName,
        argument: String,
    },
    #[error("{field} of `/audit {command}` is not valid: {problem}")]
    InvalidValue {
        command: CommandName,
        /// The flag (`--budget`) or the argument (`the finding id`).
        field: String,
        problem: String,
        /// What a valid value looks like.
        expected: String,
    },
    #[error("`{flag}` is a placeholder, not text")]
    Placeholder {
        command: CommandName,
        flag: &'static str,
    },
    #[error("work unit `{work_unit}` needs `--covered-tasks`")]
    CoveredTasksRequired { work_unit: String },
    #[error("a ```text handoff needs `{flag}`")]
    HandoffNeedsFlag { flag: &'static str },
    #[error("no ```json or ```text block follows `/audit report`")]
    MissingPayload {
        /// Languages of the fenced blocks that were found instead (`""` for none).
        other_blocks: Vec<String>,
    },
    #[error("{count} ```json/```text blocks follow `/audit report`; exactly one is read")]
    SeveralPayloads { count: usize },
    #[error("the ```{lang} block opened on line {line} is never closed")]
    UnclosedPayload { lang: String, line: usize },
}

impl CommandError {
    /// What was wrong, in one sentence: the app's words keep their code spans, the words
    /// the comment gave are escaped.
    #[must_use]
    pub fn what(&self) -> Md {
        use CommandError as E;
        let cmd = |c: &CommandName| Md::code(&format!("/audit {c}"));
        match self {
            E::TooLong { chars } => md!(
                "the comment has {} characters; a command comment may have at most {}",
                chars,
                MAX_COMMENT_CHARS
            ),
            E::SeveralCommands { first, second } => md!(
                "the comment holds more than one command (line {} and line {})",
                first,
                second
            ),
            E::MissingCommand => Md::lit("`/audit` is not followed by a command"),
            E::UnknownCommand { given, .. } => {
                md!("unknown command {}", Md::code(&format!("/audit {given}")))
            }
            E::UnterminatedQuote { column } => md!(
                "the double quote at column {} of the command line is never closed",
                column
            ),
            E::StrayQuote { word } => md!("stray double quote in {}", Md::code(word)),
            E::UnknownFlag { command, flag, .. } => {
                md!("{} has no flag {}", cmd(command), Md::code(flag))
            }
            E::MissingValue { command, flag } => {
                md!("{} of {} needs a value", Md::code(flag), cmd(command))
            }
            E::DuplicateFlag { flag, .. } => md!("{} is given twice", Md::code(flag)),
            E::MissingFlag { command, flag } => md!("{} needs {}", cmd(command), Md::code(flag)),
            E::MissingArgument { command, what } => md!("{} needs {}", cmd(command), what),
            E::UnexpectedArgument { command, argument } => md!(
                "unexpected argument {} for {}",
                Md::code(argument),
                cmd(command)
            ),
            E::InvalidValue {
                command,
                field,
                problem,
                ..
            } => md!(
                "{} of {} is not valid: {}",
                Md::code(field),
                cmd(command),
                Md::text(problem)
            ),
            E::Placeholder { flag, .. } => md!("{} is a placeholder, not text", Md::code(flag)),
            E::CoveredTasksRequired { work_unit } => {
                md!("work unit {} needs `--covered-tasks`", Md::code(work_unit))
            }
            E::HandoffNeedsFlag { flag } => {
                md!("a `text` handoff block needs {}", Md::code(flag))
            }
            E::MissingPayload { .. } => {
                Md::lit("no `json` or `text` block follows `/audit report`")
            }
            E::SeveralPayloads { count } => md!(
                "{} `json` or `text` blocks follow `/audit report`; exactly one is read",
                count
            ),
            E::UnclosedPayload { lang, line } => md!(
                "the {} block opened on line {} is never closed",
                Md::code(lang),
                line
            ),
        }
    }

    /// How to put it right.
    #[must_use]
    pub fn fix(&self) -> Md {
        use CommandError as E;
        match self {
            E::TooLong { .. } => {
                Md::lit("shorten the comment, or submit the report with fewer words per finding")
            }
            E::SeveralCommands { .. } => Md::lit("post each command in its own comment"),
            E::MissingCommand => {
                Md::lit("write a command after `/audit`; `/audit help` lists them")
            }
            E::UnknownCommand { suggestion, .. } => match suggestion {
                Some(name) => md!("did you mean {}?", Md::code(&format!("/audit {name}"))),
                None => Md::lit("`/audit help` lists the commands"),
            },
            E::UnterminatedQuote { .. } => {
                Md::lit("close the quote; write `\\\"` for a quote inside the text")
            }
            E::StrayQuote { .. } => {
                Md::lit("quote the whole value, as in `--note \"a \\\"quoted\\\" word\"`")
            }
            E::UnknownFlag {
                command,
                suggestion,
                ..
            } => match suggestion {
                Some(flag) => md!("did you mean {}?", Md::code(flag)),
                None => md!(
                    "`/audit help` lists the flags of {}",
                    Md::code(&format!("/audit {command}"))
                ),
            },
            E::MissingValue { flag, .. } => md!(
                "give {} one word or a double-quoted string, as in {}",
                Md::code(flag),
                Md::code(&format!("{flag} \"some text\""))
            ),
            E::DuplicateFlag { flag, .. } => md!("give {} once", Md::code(flag)),
            E::MissingFlag { flag, .. } => md!("add {} with its value", Md::code(flag)),
            E::MissingArgument { command, .. } => md!(
                "`/audit help` shows how {} is written",
                Md::code(&format!("/audit {command}"))
            ),
            E::UnexpectedArgument { argument, .. } => md!(
                "remove {}, or put the text in double quotes if it belongs to a flag",
                Md::code(argument)
            ),
            E::InvalidValue { expected, .. } => md!("write it as {}", Md::text(expected)),
            E::Placeholder { flag, .. } => md!(
                "write what {} asks for instead of a placeholder",
                Md::code(flag)
            ),
            E::CoveredTasksRequired { .. } => Md::lit(
                "name the tasks it covers, as in `--covered-tasks T-1,T-2`; only `pr:` units take them from the PR body",
            ),
            E::HandoffNeedsFlag { flag } => md!(
                "a handoff carries no ids, so write `/audit report --audit-id AUD-n --invocation REF --candidate commit:SHA` (add {})",
                Md::code(flag)
            ),
            E::MissingPayload { other_blocks } if !other_blocks.is_empty() => {
                let tags: Vec<Md> = other_blocks
                    .iter()
                    .map(|l| {
                        if l.is_empty() {
                            Md::lit("(nothing)")
                        } else {
                            Md::code(l)
                        }
                    })
                    .collect();
                md!(
                    "the blocks found are tagged {}; tag the report block `json` or the handoff `text`",
                    Md::join(&tags, ", ")
                )
            }
            E::MissingPayload { .. } => Md::lit(
                "put the report in a `json` block (or the handoff in a `text` block) under the command line",
            ),
            E::SeveralPayloads { .. } => Md::lit("submit one report per comment"),
            E::UnclosedPayload { .. } => Md::lit(
                "end the block with a closing fence at least as long as the opening one",
            ),
        }
    }
}
