//! Why a command line is refused before any command runs (`cli::root::check`): clap's
//! parse, the log settings, or a value a command would otherwise find wrong only at its
//! first GitHub call (a token, an API URL that is a URL, `--min-assurance`)
//! (docs/reference.md#command-line).

use crate::remote::exit_codes::USAGE;

/// Why a command line is refused before anything runs.
#[derive(Debug)]
pub enum Refusal {
    /// clap's: a usage error (exit 2), or `--help` and `--version` (exit 0).
    Clap(clap::Error),
    /// A value clap takes that the command cannot use: one line, exit 2; `json` when
    /// `status --json` asked for its answer as JSON.
    Invalid { words: String, json: bool },
}

impl Refusal {
    /// The exit code the command line ends with.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        match self {
            Refusal::Clap(e) => e.exit_code(),
            Refusal::Invalid { .. } => USAGE.into(),
        }
    }

    /// What is said: clap's text, or the one line.
    #[must_use]
    pub fn words(&self) -> String {
        match self {
            Refusal::Clap(e) => e.to_string(),
            Refusal::Invalid { words, .. } => words.clone(),
        }
    }
}
