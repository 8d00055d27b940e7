//! Sorting a command's tokens into flags and positional arguments, and reading typed
//! values out of them.

use std::collections::BTreeMap;
use std::str::FromStr;

use super::error::{excerpt, CommandError};
use super::lexer::Token;
use super::suggest::nearest;
use crate::engine::policy::CommandName;
use crate::engine::text::is_placeholder;
use crate::ids::IdError;

/// The flags each command accepts; every flag takes one value. `help` checks its usage
/// lines against this list.
// One arm per command, read as a table, even where two commands take the same flags.
#[allow(clippy::match_same_arms)]
pub(crate) fn flags_of(command: CommandName) -> &'static [&'static str] {
    match command {
        CommandName::New => &[
            "--goal",
            "--oracle",
            "--evidence",
            "--covered-tasks",
            "--work-unit",
            "--budget",
        ],
        CommandName::Adopt => &[],
        CommandName::Report => &["--audit-id", "--invocation", "--candidate"],
        CommandName::Baseline => &["--covered-tasks", "--evidence"],
        CommandName::Resolve => &["--note"],
        CommandName::Override => &["--budget", "--note"],
        CommandName::Waive => &["--basis", "--reason"],
        CommandName::Veto => &["--from-round", "--reason"],
        CommandName::Dispose => &["--note"],
        CommandName::Status | CommandName::Gate | CommandName::Help => &[],
    }
}

/// The arguments of one command, consumed by the typed getters below.
pub(crate) struct Args {
    command: CommandName,
    flags: BTreeMap<&'static str, String>,
    positionals: std::vec::IntoIter<String>,
}

impl Args {
    pub(crate) fn collect(command: CommandName, tokens: Vec<Token>) -> Result<Args, CommandError> {
        let known = flags_of(command);
        let mut flags = BTreeMap::new();
        let mut positionals = Vec::new();
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            let Token::Word(word) = &token else {
                positionals.push(token.into_text());
                continue;
            };
            if !looks_like_flag(word) {
                positionals.push(token.into_text());
                continue;
            }
            let Some(flag) = known.iter().copied().find(|f| *f == word.as_str()) else {
                // `--goal=x` is a typo of `--goal x`: suggest by the part before `=`.
                let stem = word.split('=').next().unwrap_or(word);
                let suggestion = nearest(stem, known.iter().copied(), |f| f);
                return Err(CommandError::UnknownFlag {
                    command,
                    flag: excerpt(word),
                    suggestion,
                });
            };
            let value = match tokens.peek() {
                Some(Token::Word(next)) if looks_like_flag(next) => None,
                Some(_) => tokens.next().map(Token::into_text),
                None => None,
            };
            let Some(value) = value else {
                return Err(CommandError::MissingValue { command, flag });
            };
            if flags.insert(flag, value).is_some() {
                return Err(CommandError::DuplicateFlag { command, flag });
            }
        }
        Ok(Args {
            command,
            flags,
            positionals: positionals.into_iter(),
        })
    }

    pub(crate) fn command(&self) -> CommandName {
        self.command
    }

    pub(crate) fn optional(&mut self, flag: &'static str) -> Option<String> {
        self.flags.remove(flag)
    }

    pub(crate) fn required(&mut self, flag: &'static str) -> Result<String, CommandError> {
        self.optional(flag).ok_or(CommandError::MissingFlag {
            command: self.command,
            flag,
        })
    }

    /// Free text (`--goal`, `--note`, …): refused when it is a placeholder.
    pub(crate) fn text(&mut self, flag: &'static str) -> Result<Option<String>, CommandError> {
        match self.optional(flag) {
            Some(text) if is_placeholder(&text) => Err(CommandError::Placeholder {
                command: self.command,
                flag,
            }),
            other => Ok(other),
        }
    }

    pub(crate) fn required_text(&mut self, flag: &'static str) -> Result<String, CommandError> {
        self.text(flag)?.ok_or(CommandError::MissingFlag {
            command: self.command,
            flag,
        })
    }

    pub(crate) fn positive(&mut self, flag: &'static str) -> Result<Option<u32>, CommandError> {
        self.optional(flag)
            .map(|value| positive(self.command, flag, &value))
            .transpose()
    }

    pub(crate) fn id<T: FromStr<Err = IdError>>(
        &mut self,
        flag: &'static str,
    ) -> Result<Option<T>, CommandError> {
        self.optional(flag)
            .map(|value| id(self.command, &format!("`{flag}`"), &value))
            .transpose()
    }

    pub(crate) fn list<T: FromStr<Err = IdError> + PartialEq>(
        &mut self,
        flag: &'static str,
    ) -> Result<Option<Vec<T>>, CommandError> {
        self.optional(flag)
            .map(|value| list(self.command, &format!("`{flag}`"), &value))
            .transpose()
    }

    pub(crate) fn next_positional(&mut self) -> Option<String> {
        self.positionals.next()
    }

    /// Refuses whatever positional argument is left.
    pub(crate) fn finish(mut self) -> Result<(), CommandError> {
        match self.positionals.next() {
            Some(argument) => Err(CommandError::UnexpectedArgument {
                command: self.command,
                argument: excerpt(&argument),
            }),
            None => Ok(()),
        }
    }
}

fn looks_like_flag(word: &str) -> bool {
    word.starts_with('-')
        && word
            .chars()
            .nth(1)
            .is_some_and(|c| c == '-' || c.is_alphabetic())
}

pub(crate) fn invalid(
    command: CommandName,
    field: &str,
    problem: impl Into<String>,
    expected: impl Into<String>,
) -> CommandError {
    CommandError::InvalidValue {
        command,
        field: field.to_owned(),
        problem: problem.into(),
        expected: expected.into(),
    }
}

fn positive(command: CommandName, flag: &str, value: &str) -> Result<u32, CommandError> {
    match value.parse::<u32>() {
        Ok(n) if n > 0 && value.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(invalid(
            command,
            &format!("`{flag}`"),
            format!("{:?} is not a positive whole number", excerpt(value)),
            "a positive whole number, such as 3",
        )),
    }
}

pub(crate) fn id<T: FromStr<Err = IdError>>(
    command: CommandName,
    field: &str,
    value: &str,
) -> Result<T, CommandError> {
    value.parse::<T>().map_err(|e| {
        invalid(
            command,
            field,
            format!("{:?} is not {}", excerpt(value), e.what),
            e.expected,
        )
    })
}

/// A comma-separated list; blanks around items are allowed inside quotes.
pub(crate) fn list<T: FromStr<Err = IdError> + PartialEq>(
    command: CommandName,
    field: &str,
    value: &str,
) -> Result<Vec<T>, CommandError> {
    let mut items: Vec<T> = Vec::new();
    for item in value.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(invalid(
                command,
                field,
                format!("{:?} has an empty item", excerpt(value)),
                "a comma-separated list with no empty items, such as A-01,A-02",
            ));
        }
        let parsed: T = id(command, field, item)?;
        if items.contains(&parsed) {
            return Err(invalid(
                command,
                field,
                format!("{:?} is named twice", excerpt(item)),
                "a list that names each item once",
            ));
        }
        items.push(parsed);
    }
    Ok(items)
}
