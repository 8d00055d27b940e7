//! `auditloop post --repo OWNER/REPO --pr N [--expect-run N] REPORT.json`: checks the
//! report as `validate` does and posts it as one `/audit report` comment (docs/reference.md#posting-a-report).
//! The `post_report` tool (`mcp`) goes through [`prepare`] and [`send`] as well. With
//! `--error REASON` it posts an `AUDIT: ERROR` handoff instead ([`super::post_error`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;

use super::connection::{load, run_async, RemoteArgs};
use super::failure::explained;
use crate::engine::report::{parse_report, Problem};
use crate::github::{rest, Api};
use crate::ids::PrNumber;

/// What `post` and the `post_report` tool say before they post
/// (docs/reference.md#independence-of-the-auditor).
pub(crate) const INDEPENDENCE: &str = "the report is posted as the token's login: unless it is signed (or the repository sets `allow_self_audit: true`), the app refuses it as `self-audit` when that login is one of the pull request's implementers: its author, an account that pushed to it, or one GitHub links as author or committer of its commits";

/// GitHub refuses a comment longer than this (docs/reference.md#posting-a-report).
pub(crate) const COMMENT_LIMIT: usize = 65_536;

#[derive(clap::Args, Debug)]
pub(crate) struct PostArgs {
    #[command(flatten)]
    pub(crate) remote: RemoteArgs,
    /// Post nothing when run N of the record already exists: a repeated dispatch never
    /// spends the budget twice.
    #[arg(long)]
    pub(crate) expect_run: Option<u32>,
    /// Post no report but an `AUDIT: ERROR` handoff saying why the auditor could not run
    /// (a setup step missing, a crash): an invocation failure, which spends no run.
    #[arg(long, value_name = "REASON", conflicts_with = "report")]
    pub(crate) error: Option<String>,
    /// The invocation that failed, with `--error`.
    #[arg(long, env = "AUDITLOOP_INVOCATION_REF", value_name = "REF")]
    pub(crate) invocation: Option<String>,
    /// The report file, or `-` for standard input.
    #[arg(required_unless_present = "error")]
    pub(crate) report: Option<PathBuf>,
}

/// The comment `post` sends: the command line and the report in one fenced JSON block.
#[must_use]
pub fn comment_body(report_text: &str) -> String {
    format!("/audit report\n\n```json\n{}\n```\n", report_text.trim())
}

/// Why a report is not posted, before any call.
#[derive(Debug)]
pub(crate) enum Unpostable {
    /// The problems `validate` finds, in its order.
    Problems(Vec<Problem>),
    /// The comment would pass GitHub's limit; the words say by how much.
    TooLong(String),
}

/// The comment for the report `text`, or why it cannot be posted.
///
/// # Errors
///
/// [`Unpostable`] when the report has a problem or the comment would be too long.
pub(crate) fn prepare(text: &str) -> Result<String, Unpostable> {
    parse_report(text).map_err(Unpostable::Problems)?;
    let body = comment_body(text);
    let length = body.chars().count();
    if length > COMMENT_LIMIT {
        return Err(Unpostable::TooLong(format!(
            "the report comment would be {length} characters, {} over GitHub's limit of 65,536; nothing was posted",
            length - COMMENT_LIMIT
        )));
    }
    Ok(body)
}

/// What [`send`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sent {
    /// A comment was posted.
    pub(crate) posted: bool,
    /// The comment's address, when one was posted.
    pub(crate) comment_url: Option<String>,
    /// The line `post` prints.
    pub(crate) message: String,
}

/// Posts `body` on the PR, unless `expect_run` names a run the record already has.
///
/// # Errors
///
/// When the record cannot be read (with `expect_run`) or the comment cannot be created.
pub(crate) async fn send(
    remote: &RemoteArgs,
    api: &Api,
    body: &str,
    expect_run: Option<u32>,
) -> anyhow::Result<Sent> {
    if let Some(n) = expect_run {
        let loaded = load(remote, api, false).await?;
        if loaded.record.run(n).is_some() {
            return Ok(Sent {
                posted: false,
                comment_url: None,
                message: format!(
                    "run {n} of {} already exists; nothing posted",
                    loaded.record.id
                ),
            });
        }
    }
    let (id, url) = rest::create_comment_at(api, &remote.repo, PrNumber(remote.pr), body)
        .await
        .map_err(|e| anyhow!("posting the report: {e}"))?;
    Ok(Sent {
        posted: true,
        comment_url: url,
        message: format!(
            "posted the report to #{} of {} (comment {id})",
            remote.pr, remote.repo
        ),
    })
}

/// # Errors
///
/// When the report cannot be read, the comment would exceed GitHub's limit, the token is
/// missing, or a GitHub call fails; a report with problems is exit code 1, not an error.
pub(crate) fn run(args: &PostArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let Some(report) = &args.report else {
        let failed = super::post_error::Failed {
            reason: args.error.as_deref().unwrap_or_default(),
            invocation: args.invocation.as_deref(),
            expect_run: args.expect_run,
        };
        let line = super::post_error::run(&args.remote, &failed)
            .map_err(|e| explained(e, &args.remote.repo, Some(args.remote.pr)))?;
        writeln!(out, "{line}")?;
        return Ok(ExitCode::SUCCESS);
    };
    let text = super::read_input(report)?;
    eprintln!("{INDEPENDENCE}");
    let body = match prepare(&text) {
        Ok(body) => body,
        Err(Unpostable::Problems(problems)) => {
            for problem in problems {
                writeln!(out, "{problem}")?;
            }
            return Ok(ExitCode::FAILURE);
        }
        Err(Unpostable::TooLong(words)) => return Err(anyhow!(words)),
    };
    let sent = run_async(async {
        let api = args.remote.api()?;
        send(&args.remote, &api, &body, args.expect_run).await
    })
    .map_err(|e| explained(e, &args.remote.repo, Some(args.remote.pr)))?;
    writeln!(out, "{}", sent.message)?;
    Ok(ExitCode::SUCCESS)
}
