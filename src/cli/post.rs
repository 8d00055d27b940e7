//! `auditloop post --repo OWNER/REPO --pr N [--expect-run N] REPORT.json`: checks the
//! report as `validate` does and posts it as one `/audit report` comment (CONTRACT §2, §11).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};

use super::remote::{load, run_async, RemoteArgs};
use crate::engine::report::parse_report;
use crate::github::rest;
use crate::ids::PrNumber;

/// GitHub refuses a comment longer than this (CONTRACT §5.1).
pub const COMMENT_LIMIT: usize = 65_536;

#[derive(clap::Args, Debug)]
pub struct PostArgs {
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Post nothing when run N of the record already exists: a repeated dispatch never
    /// spends the budget twice.
    #[arg(long)]
    pub expect_run: Option<u32>,
    /// The report file, or `-` for standard input.
    pub report: PathBuf,
}

/// The comment `post` sends: the command line and the report in one fenced JSON block.
#[must_use]
pub fn comment_body(report_text: &str) -> String {
    format!("/audit report\n\n```json\n{}\n```\n", report_text.trim())
}

/// # Errors
///
/// When the report cannot be read, the comment would exceed GitHub's limit, the token is
/// missing, or a GitHub call fails; a report with problems is exit code 1, not an error.
pub fn run(args: &PostArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let text = super::read_input(&args.report)?;
    if let Err(problems) = parse_report(&text) {
        for problem in problems {
            writeln!(out, "{problem}")?;
        }
        return Ok(ExitCode::FAILURE);
    }
    let body = comment_body(&text);
    let length = body.chars().count();
    if length > COMMENT_LIMIT {
        bail!(
            "the report comment would be {length} characters, {} over GitHub's limit of 65,536; nothing was posted",
            length - COMMENT_LIMIT
        );
    }
    let message = run_async(async {
        let api = args.remote.api()?;
        if let Some(n) = args.expect_run {
            let loaded = load(&args.remote, &api, false).await?;
            if loaded.record.run(n).is_some() {
                return Ok(format!(
                    "run {n} of {} already exists; nothing posted",
                    loaded.record.id
                ));
            }
        }
        let id = rest::create_comment(&api, &args.remote.repo, PrNumber(args.remote.pr), &body)
            .await
            .map_err(|e| anyhow!("posting the report: {e}"))?;
        Ok(format!(
            "posted the report to #{} of {} (comment {id})",
            args.remote.pr, args.remote.repo
        ))
    })?;
    writeln!(out, "{message}")?;
    Ok(ExitCode::SUCCESS)
}
