//! The `/audit` slash commands (docs/reference.md#slash-commands): reading a PR comment into a typed command,
//! and the help table. Pure: no I/O.

mod args;
mod build;
mod command;
mod error;
mod help;
mod lexer;
mod parse;
mod scan;
mod suggest;

use crate::engine::policy::CommandName;
pub use command::{ParsedCommand, ReportPayload, ResolveTarget};
pub use error::{CommandError, MAX_COMMENT_CHARS};
pub use help::{help_rows, help_table, DOES_MAX, WHO_MAX};
pub use parse::parse_comment;
pub(crate) use parse::Parsed;

/// The flags `command` accepts, for documentation checks.
#[must_use]
pub fn flags_of(command: CommandName) -> &'static [&'static str] {
    args::flags_of(command)
}
