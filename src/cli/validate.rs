//! `auditloop validate REPORT.json`: the offline intake check of a report.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::validate_receipt::{check_receipt, read_trust_store};
use crate::engine::report::parse_report;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The report file, or `-` for standard input.
    pub report: PathBuf,
    /// The operator's trust store (TOML of `[keys.ID] public_key = "…"`): with it, an
    /// embedded receipt's signature is verified too.
    #[arg(long)]
    pub trust_store: Option<PathBuf>,
}

/// Prints the normalized digest and exits 0, or every problem (`rule: path: message`) and
/// exits 1. An embedded receipt is checked as `validate_receipt` says: its digest and
/// bindings always, its signature with `--trust-store`.
///
/// # Errors
///
/// When the input cannot be read or the output cannot be written; a report with problems is exit code 1, not an error.
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let text = crate::remote::read_input(&args.report)?;
    match parse_report(&text) {
        Ok(intake) => {
            let trust = args
                .trust_store
                .as_deref()
                .map(read_trust_store)
                .transpose()?;
            let receipt = check_receipt(&intake, trust.as_ref(), chrono::Utc::now());
            for problem in &receipt.problems {
                writeln!(out, "{problem}")?;
            }
            if !receipt.problems.is_empty() {
                return Ok(ExitCode::FAILURE);
            }
            writeln!(out, "{}", intake.digest)?;
            for note in &receipt.notes {
                writeln!(out, "{note}")?;
            }
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
