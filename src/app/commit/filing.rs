//! The tech-debt issue a `file` disposition opens: once, findable again by its marker.
//! The decision (`decision/on_record.rs`) asks for it only after checking on the state it
//! decides on that the disposition will be accepted, so a refused command opens nothing.

use crate::app::context::Ctx;
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, FindingId, IssueNumber, PrNumber};

/// The issue a `file` disposition of `finding` (of run `run` of `record`) opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IssueToFile {
    pub(crate) record: AuditId,
    pub(crate) run: u32,
    pub(crate) finding: FindingId,
    /// The finding's claim, for the title and the body.
    pub(crate) summary: String,
    pub(crate) note: String,
    /// The finding's evidence refs and closure criteria, as its run recorded them.
    pub(crate) evidence_refs: Vec<String>,
    pub(crate) required_outcome: Option<String>,
    pub(crate) verification_required: Option<String>,
    pub(crate) pull: PrNumber,
    /// A commit of the repository for the claim ref (the PR's head).
    pub(crate) anchor: CommitSha,
}

impl IssueToFile {
    /// One issue per finding of a run: the claim's name, and the key its number is kept by.
    pub(crate) fn key(&self) -> String {
        format!("file-{}-run-{}-{}", self.record, self.run, self.finding)
    }
}

/// Opens the issue, or finds the one an earlier attempt opened.
pub(crate) async fn open(
    ctx: &Ctx,
    wanted: &IssueToFile,
) -> Result<Option<IssueNumber>, GitHubError> {
    let IssueToFile {
        record,
        run,
        finding,
        summary,
        note,
        pull,
        anchor,
        ..
    } = wanted;
    let label = ctx.settings().tech_debt_label.clone();
    let title: String = format!("{record} {finding}: {summary}")
        .chars()
        .take(200)
        .collect();
    // The marker names the finding of its run, so a redelivery finds the issue it opened;
    // the second names the delivery, so that one refused in the end can close it.
    let marker = format!("<!-- auditloop:filed:{record}:run-{run}:{finding} -->");
    let by = filed_by(ctx);
    let body = format!(
        "Filed from pull request {pull} by a `file` disposition of {finding} (round {run} of [{record}]({})).\n\n{}\n\n{marker}\n{by}",
        ctx.view().record_url(record),
        issue_text(wanted, summary, note),
    );
    // Found by its marker on a redelivery; opened by one process when replicas race.
    let found = || rest::find_issue(&ctx.api, &ctx.repo, &label, &marker);
    let opened = std::sync::Mutex::new(None);
    crate::app::claim::once(
        ctx,
        &wanted.key(),
        anchor,
        || async { Ok(found().await?.is_some()) },
        || async {
            let n = rest::create_issue(&ctx.api, &ctx.repo, &title, &body, &label).await?;
            *opened
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(n);
            Ok(())
        },
    )
    .await?;
    let opened = *opened
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match opened {
        Some(n) => Ok(Some(n)),
        None => found().await,
    }
}

/// The marker of the issues a delivery's `file` disposition opened.
fn filed_by(ctx: &Ctx) -> String {
    // The delivery marker's encoding, so that no delivery id can close the comment.
    crate::engine::views::reply::delivery_marker(ctx.delivery.as_str_lossy())
        .replace("auditloop:delivery:", "auditloop:filed-by:")
}

/// Closes the issue an earlier attempt of this delivery's `file` disposition opened, when
/// the disposition is refused in the end (the finding left the latest run meanwhile): no
/// issue outlives the decision it served. Says why on the issue first; the issue's number,
/// for the refusal to name.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails.
pub(crate) async fn withdraw(ctx: &Ctx, why: &str) -> Result<Option<IssueNumber>, GitHubError> {
    let label = &ctx.settings().tech_debt_label;
    let Some(issue) = rest::find_marked(&ctx.api, &ctx.repo, label, &filed_by(ctx)).await? else {
        return Ok(None);
    };
    if issue.open {
        let text = format!(
            "auditloop: closed. The `file` disposition that opened this issue was not recorded: {why}. Nothing links to this issue; a maintainer can dispose the finding again where it is still raised."
        );
        rest::create_comment(&ctx.api, &ctx.repo, PrNumber(issue.number.0), &text).await?;
        rest::update_issue(&ctx.api, &ctx.repo, issue.number, &issue.body, false).await?;
    }
    Ok(Some(issue.number))
}

/// The finding as the issue shows it: its claim, evidence and what done means, then the
/// maintainer's note; every text escaped, as in every view.
fn issue_text(wanted: &IssueToFile, claim: &str, note: &str) -> String {
    use crate::engine::md::escape::{block, inline};
    let refs = if wanted.evidence_refs.is_empty() {
        "—".to_owned()
    } else {
        wanted
            .evidence_refs
            .iter()
            .map(|r| format!("`{}`", inline(r, 200).replace('`', "")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let criterion = |text: &Option<String>| text.as_deref().map_or_else(|| "—".to_owned(), block);
    format!(
        "**Claim**\n\n{}\n\n**Evidence**: {refs}\n\n**Required outcome**\n\n{}\n\n**Verification required**\n\n{}\n\n**Note** (the disposition)\n\n{}",
        block(claim),
        criterion(&wanted.required_outcome),
        criterion(&wanted.verification_required),
        block(note),
    )
}
