//! `auditloop post --error REASON`: an auditor that could not run says so, as an
//! `AUDIT: ERROR` handoff on the record's candidate (docs/reference.md#posting-a-report).
//! The app records it as an invocation failure: no run is spent and the check run shows the
//! reason, so a missing setup step is a visible blocking condition, never a verdict.

use anyhow::anyhow;

use super::connection::{load, run_async, RemoteArgs};
use super::exit_codes::Usage;
use crate::github::rest;
use crate::ids::{Artifact, AuditId, PrNumber};

/// The longest reason posted: one line the check run can show whole.
const REASON_CHARS: usize = 500;

/// The handoff comment for a failed invocation `invocation` of `audit` on `candidate`.
#[must_use]
pub(crate) fn error_handoff(
    audit: &AuditId,
    invocation: &str,
    candidate: &Artifact,
    reason: &str,
) -> String {
    format!(
        "/audit report --audit-id {audit} --invocation {invocation} --candidate {candidate}\n\n```text\nAUDIT: ERROR\nOutput: not written\nSections covered: unknown\nFindings: critical=0, warning=0, info=0\nOpen questions: 0\nReason: {}\n```\n",
        one_line(reason)
    )
}

/// `reason` on one line, without what would end the fenced block, cut to
/// [`REASON_CHARS`].
fn one_line(reason: &str) -> String {
    let flat: String = reason
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "'");
    if flat.chars().count() <= REASON_CHARS {
        return flat;
    }
    let mut cut: String = flat.chars().take(REASON_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// What failed: why, which invocation, and the run it was asked for.
pub(crate) struct Failed<'a> {
    pub(crate) reason: &'a str,
    pub(crate) invocation: Option<&'a str>,
    pub(crate) expect_run: Option<u32>,
}

/// Posts the handoff on `remote`'s pull request, unless `expect_run` names a run that
/// exists (the auditor ran after all); the line `post` prints.
///
/// # Errors
///
/// When the reason or invocation is missing, the record cannot be read, or the comment
/// cannot be created.
pub(crate) fn run(remote: &RemoteArgs, failed: &Failed<'_>) -> anyhow::Result<String> {
    let reason = failed.reason;
    if reason.trim().is_empty() {
        return Err(Usage(
            "--error needs a reason: what the auditor could not do, and how to set it up".into(),
        )
        .into());
    }
    let invocation = failed
        .invocation
        .map(str::trim)
        .filter(|r| !r.is_empty() && !r.contains(char::is_whitespace))
        .ok_or_else(|| {
            Usage("--error needs --invocation REF (or AUDITLOOP_INVOCATION_REF), one word".into())
        })?;
    run_async(async {
        let api = remote.api()?;
        let loaded = load(remote, &api, false).await?;
        let record = &loaded.record;
        if let Some(n) = failed.expect_run.filter(|n| record.run(*n).is_some()) {
            return Ok(format!(
                "run {n} of {} already exists; nothing posted",
                record.id
            ));
        }
        let body = error_handoff(&record.id, invocation, &record.candidate_artifact, reason);
        let (id, _) = rest::create_comment_at(&api, &remote.repo, PrNumber(remote.pr), &body)
            .await
            .map_err(|e| anyhow!("posting the invocation failure: {e}"))?;
        Ok(format!(
            "posted an invocation failure of {} to #{} of {} (comment {id})",
            record.id, remote.pr, remote.repo
        ))
    })
}
