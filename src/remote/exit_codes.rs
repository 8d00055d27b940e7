//! The exit codes of the command line (docs/reference.md#command-line), and the error that
//! says a command could not run as asked: a usage error, clap's code.

/// The command line was wrong: a flag clap refuses, a value the command cannot use (an API
/// URL that is no URL, no token), or an input file that cannot be read.
pub const USAGE: u8 = 2;

/// `status` cannot tell whether the gate passes: GitHub could not be read, or the records
/// are damaged.
pub const CANNOT_TELL: u8 = 3;

/// A usage error: the command exits [`USAGE`] with these words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// [`USAGE`] when `error` is (or wraps) a [`Usage`], else `otherwise`.
#[must_use]
pub fn code_of(error: &anyhow::Error, otherwise: u8) -> u8 {
    if error.chain().any(<dyn std::error::Error>::is::<Usage>) {
        USAGE
    } else {
        otherwise
    }
}

/// What every `--help` of a command that reads a report says of its exit codes.
pub(crate) const REPORT_CODES: &str = "Exit codes: 0 done (the report is valid); 1 the report has problems, listed on standard output, or the command failed; 2 usage error: a bad flag or value, or a file that cannot be read.";

/// What `packet`'s `--help` says of its exit codes.
pub(crate) const PACKET_CODES: &str = "Exit codes: 0 printed; 1 GitHub could not be read or the PR has no record that loads; 2 usage error: a bad flag or value, or no token.";

/// What `status`'s `--help` says of its exit codes.
pub(crate) const STATUS_CODES: &str = "Exit codes: 0 the gate passes; 1 it does not; 2 usage error: a bad flag or value, or no token; 3 cannot tell: GitHub could not be read, or the records are damaged. With --json a failure also prints {\"error\": \"...\", \"exit_code\": N} on standard output.";

/// What the other commands' `--help` says of their exit codes.
pub(crate) const PLAIN_CODES: &str =
    "Exit codes: 0 done; 1 failed; 2 usage error: a bad flag or value, or a file that cannot be read.";
