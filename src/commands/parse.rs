//! `parse_comment`: from a PR comment body to at most one typed command (docs/reference.md#reading-a-command).

use super::args::Args;
use super::build::build;
use super::command::{ParsedCommand, ReportPayload};
use super::error::{excerpt, CommandError, MAX_COMMENT_CHARS};
use super::lexer::{tokenize, LexError, Token};
use super::scan::{scan, Fence, Scan};
use super::suggest::nearest;
use crate::engine::policy::CommandName;

/// What a comment holds: no command, one typed command, or why its command line was refused.
pub(crate) type Parsed = Result<Option<ParsedCommand>, CommandError>;

/// Reads a comment. `Ok(None)`: the comment is not a command (its first non-blank line
/// outside quotes and fences is not `/audit` + a space or the line's end). `Err`: it is
/// one, and is refused; nothing may be recorded.
///
/// # Errors
///
/// The [`CommandError`] of a command that is refused.
pub fn parse_comment(body: &str) -> Parsed {
    let scanned = scan(body);
    let Some(command_line) = scanned.command() else {
        return Ok(None);
    };
    let chars = body.chars().count();
    if chars > MAX_COMMENT_CHARS {
        return Err(CommandError::TooLong { chars });
    }
    if let Some(second) = scanned.commands.get(1) {
        return Err(CommandError::SeveralCommands {
            first: command_line.line,
            second: second.line,
        });
    }
    let mut tokens = tokenize(command_line.rest)
        .map_err(|e| match e {
            LexError::Unterminated { column } => CommandError::UnterminatedQuote {
                column: command_line.rest_column + column,
            },
            LexError::Stray { word } => CommandError::StrayQuote {
                word: excerpt(&word),
            },
        })?
        .into_iter();
    let name = match tokens.next() {
        None => return Err(CommandError::MissingCommand),
        Some(Token::Quoted(given)) => return Err(unknown(&given)),
        Some(Token::Word(word)) => CommandName::from_word(&word).ok_or_else(|| unknown(&word))?,
    };
    let payload = match name {
        CommandName::Report => Some(payload(&scanned, command_line.line)?),
        _ => None,
    };
    let args = Args::collect(name, tokens.collect())?;
    build(args, payload).map(Some)
}

fn unknown(given: &str) -> CommandError {
    let suggestion = nearest(given, CommandName::ALL, CommandName::as_str);
    CommandError::UnknownCommand {
        given: excerpt(given),
        suggestion,
    }
}

/// The one ```json or ```text block after the command line.
fn payload(scanned: &Scan<'_>, command_line: usize) -> Result<ReportPayload, CommandError> {
    let after = scanned.fences.iter().filter(|f| f.line > command_line);
    let candidates: Vec<&Fence> = after
        .clone()
        .filter(|f| matches!(f.lang.as_str(), "json" | "text"))
        .collect();
    match candidates.as_slice() {
        [] => Err(CommandError::MissingPayload {
            other_blocks: after.map(|f| f.lang.clone()).collect(),
        }),
        [fence] if !fence.closed => Err(CommandError::UnclosedPayload {
            lang: fence.lang.clone(),
            line: fence.line,
        }),
        [fence] if fence.lang == "json" => Ok(ReportPayload::Json(fence.content.clone())),
        [fence] => Ok(ReportPayload::Handoff(fence.content.clone())),
        several => Err(CommandError::SeveralPayloads {
            count: several.len(),
        }),
    }
}
