//! The PR body as a view (docs/reference.md#the-pr-body): the record's sections spliced into the body read
//! just before the patch, stamped with the records commit they were computed from, and
//! never patched over a body computed from a newer one.
//!
//! GitHub offers no compare-and-set for PR bodies, so two deliveries (or two replicas)
//! rebuilding the views of one PR can finish in either order. The stamp lets the later
//! one see that the body it read shows a newer records commit than its own and leave it
//! standing, as the check run's `external_id` does for the check run (`app::reads::lineage`).

use crate::app::context::Ctx;
use crate::app::reads::lineage;
use crate::app::reads::state::State;
use crate::engine::record::Record;
use crate::engine::views::{body_stamp, sections, splice, BodyStatus, SpliceOutcome, Stamp};
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

/// Whether `body` shows a view computed from a records commit newer than `state`'s, one
/// the records branch still holds: then this view is not published over it.
///
/// No call is made when the body has no stamp, or its stamp names our commit, one of its
/// parents, or `known` (a commit the caller found ours to extend, such as the one our
/// check run names), or shows our record with no more history events than ours has (a
/// record's history only grows, so that view is not newer). Otherwise GitHub is asked (`lineage::newer_on_branch`), so a stamp a
/// body editor wrote counts only when it names a real, newer commit of the branch; the
/// delivery that wrote that commit publishes the views computed from it. Anything else is
/// overwritten: a stamp is no evidence of damage, since anyone who can edit the body can
/// write one (damage is judged from our check run's `external_id`, which only the App
/// writes).
pub(crate) async fn overtaken(
    ctx: &Ctx,
    state: &State,
    body: &str,
    known: Option<&CommitSha>,
) -> Result<bool, GitHubError> {
    let (Some(stamp), Some(ours)) = (body_stamp(body), &state.commit) else {
        return Ok(false);
    };
    let commit = &stamp.commit;
    if commit == ours || state.parents.contains(commit) || known == Some(commit) {
        return Ok(false);
    }
    if let Some(Ok(record)) = &state.record {
        if stamp.record == record.id && stamp.events <= record.history.len() {
            return Ok(false);
        }
    }
    lineage::newer_on_branch(ctx, ours, commit).await
}
