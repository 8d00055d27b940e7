//! The PR body as a view (docs/reference.md#the-pr-body): the record's sections spliced into the body read
//! just before the patch, stamped with the records commit they were computed from, and
//! never patched over a body computed from a newer one.
//!
//! GitHub offers no compare-and-set for PR bodies, so two deliveries (or two replicas)
//! rebuilding the views of one PR can finish in either order. The stamp lets the later
//! one see that the body it read shows a newer records commit than its own and leave it
//! standing, as the check run's `external_id` does for the check run (`app::reads::lineage`).

use crate::app::context::Ctx;
use crate::app::reads::observe::overtaken;
use crate::app::reads::state::State;
use crate::engine::record::Record;
use crate::engine::views::{sections, splice, BodyStatus, SpliceOutcome, Stamp};
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

/// Splices the record's sections into the PR's current body; patches only when it changed.
/// `None` when the body shows a view computed from newer records: it stands, and so does
/// the check run published with it.
pub(crate) async fn refresh_body(
    ctx: &Ctx,
    number: PrNumber,
    state: &State,
    record: &Record,
) -> Result<Option<BodyStatus>, GitHubError> {
    let fresh = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
    if overtaken(ctx, state, &fresh.body, None).await? {
        tracing::info!(
            pr = number.0,
            "a newer body stands; this view is not published"
        );
        return Ok(None);
    }
    let (status, patch) = spliced(ctx, &fresh.body, record, state.commit.as_ref());
    if let Some(body) = patch {
        rest::set_pull_body(&ctx.api, &ctx.repo, number, &body).await?;
    }
    Ok(Some(status))
}

/// What the body becomes with the record's sections stamped with `commit`, and the new
/// body when what it shows changed.
pub(crate) fn spliced(
    ctx: &Ctx,
    body: &str,
    record: &Record,
    commit: Option<&CommitSha>,
) -> (BodyStatus, Option<String>) {
    let view = ctx.view();
    let mut ours = sections(Some(record), &view);
    if let Some(commit) = commit {
        ours = ours.stamped(&Stamp {
            commit: commit.clone(),
            record: record.id.clone(),
            events: record.history.len(),
        });
    }
    match splice(body, &ours, &view.record_url(&record.id)) {
        SpliceOutcome::Unchanged { summarized } => (summary_status(summarized), None),
        SpliceOutcome::Updated { body, summarized } => (summary_status(summarized), Some(body)),
        SpliceOutcome::TooLong => (BodyStatus::TooLong, None),
    }
}

fn summary_status(summarized: bool) -> BodyStatus {
    if summarized {
        BodyStatus::Summarized
    } else {
        BodyStatus::Current
    }
}
