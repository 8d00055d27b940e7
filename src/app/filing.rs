//! The tech-debt issue a `file` disposition opens: once, findable again by its marker.

use crate::app::context::Ctx;
use crate::app::reply::Refused;
use crate::app::store::Stop;
use crate::engine::record::DispositionKind;
use crate::engine::transition::{self as t};
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::PrNumber;

use crate::app::exec::*;

/// Opens the tech-debt issue for a `file` disposition, after checking on the current record
/// that the disposition will be accepted, so a refused command opens nothing. `None` when
/// this delivery is already recorded: the decision then stops as already applied and only
/// the views are finished.
pub(super) async fn file_issue(
    ctx: &Ctx,
    pull: &Pull,
    finding: &crate::ids::FindingId,
    note: &str,
) -> Result<Result<Option<u64>, Refused>, GitHubError> {
    let state = match crate::app::store::load(ctx, PrNumber(pull.number), None).await? {
        Ok(s) => s,
        Err(why) => return Ok(Err(crate::app::store::damaged(ctx, &why))),
    };
    let record = match current(&state, &ctx.delivery) {
        Ok(r) => r,
        Err(Stop::Refused(why)) => return Ok(Err(why)),
        Err(Stop::Damaged(why)) => return Ok(Err(crate::app::store::damaged(ctx, &why))),
        Err(Stop::AlreadyApplied) => return Ok(Ok(None)),
    };
    if let Err(r) = t::check_dispose(record, finding, DispositionKind::File) {
        return Ok(Err(r.into()));
    }
    let summary = record
        .latest_finding(finding)
        .map(|f| f.claim.clone())
        .unwrap_or_default();
    let label = ctx.settings().tech_debt_label.clone();
    let title: String = format!("{} {finding}: {}", record.id, summary)
        .chars()
        .take(200)
        .collect();
    // The marker names the finding of its run, so a redelivery finds the issue it opened.
    let run = record.latest_run().map_or(0, |r| r.run);
    let marker = format!("<!-- auditloop:filed:{}:run-{run}:{finding} -->", record.id);
    let body = format!(
        "Filed from pull request #{} by a `file` disposition of {finding} ({}).\n\n{}\n\n{marker}",
        pull.number,
        record.id,
        crate::engine::views::escape::block(note),
    );
    // Found by its marker on a redelivery; opened by one process when replicas race.
    let found = || rest::find_issue(&ctx.api, &ctx.repo, &label, &marker);
    let opened = std::sync::Mutex::new(None);
    crate::app::claim::once(
        ctx,
        &format!("file-{}-run-{run}-{finding}", record.id),
        &pull.head_sha,
        || async { Ok(found().await?.is_some()) },
        || async {
            let n = rest::create_issue(&ctx.api, &ctx.repo, &title, &body, &label).await?;
            *opened.lock().unwrap_or_else(|p| p.into_inner()) = Some(n);
            Ok(())
        },
    )
    .await?;
    let opened = *opened.lock().unwrap_or_else(|p| p.into_inner());
    match opened {
        Some(n) => Ok(Ok(Some(n))),
        None => Ok(Ok(found().await?)),
    }
}
