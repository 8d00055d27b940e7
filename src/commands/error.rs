//! Why a command was refused, and how to put it right. The GitHub layer renders
//! `auditloop: refused` + [`CommandError::what`] + [`CommandError::fix`].

use super::model::CommandName;

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
    /// What was wrong, in one sentence.
    #[must_use]
    pub fn what(&self) -> String {
        self.to_string()
    }

    /// How to put it right.
    #[must_use]
    pub fn fix(&self) -> String {
        use CommandError as E;
        match self {
            E::TooLong { .. } => {
                "shorten the comment, or submit the report with fewer words per finding".into()
            }
            E::SeveralCommands { .. } => "post each command in its own comment".into(),
            E::MissingCommand => "write a command after `/audit`; `/audit help` lists them".into(),
            E::UnknownCommand { suggestion, .. } => match suggestion {
                Some(name) => format!("did you mean `/audit {name}`?"),
                None => "`/audit help` lists the commands".into(),
            },
            E::UnterminatedQuote { .. } => {
                "close the quote; write `\\\"` for a quote inside the text".into()
            }
            E::StrayQuote { .. } => {
                "quote the whole value, as in `--note \"a \\\"quoted\\\" word\"`".into()
            }
            E::UnknownFlag {
                command,
                suggestion,
                ..
            } => match suggestion {
                Some(flag) => format!("did you mean `{flag}`?"),
                None => format!("`/audit help` lists the flags of `/audit {command}`"),
            },
            E::MissingValue { flag, .. } => format!(
                "give `{flag}` one word or a double-quoted string, as in `{flag} \"some text\"`"
            ),
            E::DuplicateFlag { flag, .. } => format!("give `{flag}` once"),
            E::MissingFlag { flag, .. } => format!("add `{flag}` with its value"),
            E::MissingArgument { command, .. } => {
                format!("`/audit help` shows how `/audit {command}` is written")
            }
            E::UnexpectedArgument { argument, .. } => format!(
                "remove `{argument}`, or put the text in double quotes if it belongs to a flag"
            ),
            E::InvalidValue { expected, .. } => format!("write it as {expected}"),
            E::Placeholder { flag, .. } => {
                format!("write what `{flag}` asks for instead of a placeholder")
            }
            E::CoveredTasksRequired { .. } => {
                "name the tasks it covers, as in `--covered-tasks T-1,T-2`; only `pr:` units take them from the PR body".into()
            }
            E::HandoffNeedsFlag { flag } => format!(
                "a handoff carries no ids, so write `/audit report --audit-id AUD-n --invocation REF --candidate commit:SHA` (add `{flag}`)"
            ),
            E::MissingPayload { other_blocks } if !other_blocks.is_empty() => format!(
                "the blocks found are tagged {}; tag the report block ```json or the handoff ```text",
                other_blocks
                    .iter()
                    .map(|l| if l.is_empty() { "(nothing)".to_owned() } else { format!("`{l}`") })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            E::MissingPayload { .. } => {
                "put the report in a ```json block (or the handoff in a ```text block) under the command line".into()
            }
            E::SeveralPayloads { .. } => "submit one report per comment".into(),
            E::UnclosedPayload { lang, .. } => {
                format!("end the block with a closing fence at least as long as the opening one (```{lang} … ```)")
            }
        }
    }
}
