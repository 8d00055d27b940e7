//! `auditloop validate REPORT.json`: the offline intake check of a report.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::report::parse_report;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The report file, or `-` for standard input.
    pub report: PathBuf,
}

/// Prints the normalized digest and exits 0, or every problem (`rule: path: message`) and
/// exits 1. A receipt is checked for shape only: its key is the operator's to verify.
///
/// # Errors
///
/// When the input cannot be read or the output cannot be written; a report with problems is exit code 1, not an error.
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let text = crate::remote::read_input(&args.report)?;
    match parse_report(&text) {
        Ok(intake) => {
            writeln!(out, "{}", intake.digest)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(problems) => {
            for problem in problems {
                writeln!(out, "{problem}")?;
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
