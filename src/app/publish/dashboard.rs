//! The audit dashboard issue (docs/reference.md#the-audit-dashboard): one per repository
//! with `dashboard: true`, its body rebuilt from the records of the open PRs. It is a view,
//! like the PR body: the records stand whatever becomes of it.
//!
//! A change to a record marks the repository in [`Memory`](crate::app::context::memory::Memory); the
//! flush ([`AuditApp::flush_dashboards`]) rebuilds each marked dashboard at most once per
//! interval, so a burst of changes folds into one edit. The reconcile sweep rebuilds it
//! too, from the reads it makes anyway.

use std::time::Duration;

use crate::app::context::{Ctx, Origin, Place};
use crate::app::repository::OpenAudits;
use crate::app::repository::OPEN_PULL_PAGES;
use crate::app::AuditApp;
use crate::engine::dashboard::{self, Sources};
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::RepoName;
use crate::records::Snapshot;

/// What one rebuild did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rebuilt {
    /// The body would not change: nothing was sent.
    Unchanged,
    Created,
    Updated,
    /// A dashboard closed by hand while the setting is on.
    Reopened,
    /// The setting is off: an open dashboard got its last edit and was closed.
    Closed,
    /// The setting is off and no dashboard is open, or the records are not there yet.
    Nothing,
}

use crate::app::context::memory::DashboardDue as Due;

/// The dashboard's body for the open PRs `audits` read.
#[must_use]
pub(crate) fn body_of(ctx: &Ctx, audits: &OpenAudits) -> String {
    let rows = audits.rows(ctx);
    let snapshot = &audits.snapshot;
    let library = snapshot
        .file(crate::engine::patterns::PATTERNS_PATH)
        .and_then(|t| crate::engine::patterns::Library::parse(t).ok());
    let view = ctx.view();
    dashboard::body(
        &rows,
        &Sources {
            view: &view,
            patterns: library.as_ref(),
            records_commit: snapshot.commit.as_ref(),
        },
    )
}

/// Brings the dashboard in line with the setting and the records: created (once, under a
/// claim, across replicas), updated, reopened, or closed; nothing sent when its body would
/// not change.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails; nothing of the records depends on it.
pub(crate) async fn refresh(ctx: &Ctx, pulls: Vec<Pull>) -> Result<Rebuilt, GitHubError> {
    let Ok(config) = &ctx.config else {
        // An invalid file says nothing of the setting: the dashboard is left as it is.
        return Ok(Rebuilt::Nothing);
    };
    let found = rest::find_marked(&ctx.api, &ctx.repo, dashboard::LABEL, dashboard::MARKER).await?;
    if !config.dashboard {
        return match found {
            Some(issue) if issue.open => {
                let body = dashboard::closed_body();
                rest::update_issue(&ctx.api, &ctx.repo, issue.number, &body, false).await?;
                tracing::info!(repo = %ctx.repo, issue = issue.number.0, "audit dashboard closed: the setting is off");
                Ok(Rebuilt::Closed)
            }
            _ => Ok(Rebuilt::Nothing),
        };
    }
    let audits = OpenAudits::read(ctx, pulls).await?;
    let body = body_of(ctx, &audits);
    match found {
        Some(issue) if issue.open && issue.body.trim_end() == body.trim_end() => {
            Ok(Rebuilt::Unchanged)
        }
        Some(issue) => {
            rest::update_issue(&ctx.api, &ctx.repo, issue.number, &body, true).await?;
            Ok(if issue.open {
                Rebuilt::Updated
            } else {
                Rebuilt::Reopened
            })
        }
        None => create(ctx, &audits.snapshot, &body).await,
    }
}

/// Creates the dashboard once across replicas: under a claim, after looking for it.
async fn create(ctx: &Ctx, snapshot: &Snapshot, body: &str) -> Result<Rebuilt, GitHubError> {
    let find = || rest::find_marked(&ctx.api, &ctx.repo, dashboard::LABEL, dashboard::MARKER);
    // The claim points at a commit of the repository: the records' own.
    let Some(anchor) = snapshot.commit.clone() else {
        return Ok(Rebuilt::Nothing);
    };
    let created = std::sync::atomic::AtomicBool::new(false);
    crate::app::claim::once(
        ctx,
        "create",
        &anchor,
        || async { Ok(find().await?.is_some()) },
        || async {
            rest::create_issue(
                &ctx.api,
                &ctx.repo,
                dashboard::TITLE,
                body,
                dashboard::LABEL,
            )
            .await?;
            created.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        },
    )
    .await?;
    Ok(if created.load(std::sync::atomic::Ordering::Relaxed) {
        Rebuilt::Created
    } else {
        Rebuilt::Unchanged
    })
}

impl AuditApp {
    /// Rebuilds the dashboard of each repository a change marked at least `interval` ago
    /// since its last rebuild: what [`crate::dashboard::spawn`] runs, and what tests call.
    /// A repository that fails is marked again, for the next flush.
    pub async fn flush_dashboards(&self, interval: Duration) -> Vec<(RepoName, Rebuilt)> {
        let mut done = Vec::new();
        for due in self.memory.dashboards_due(interval) {
            match self.rebuild_dashboard(&due).await {
                Ok(outcome) => done.push((due.repo.clone(), outcome)),
                Err(e) => {
                    tracing::warn!(repo = %due.repo, error = %e, "audit dashboard not rebuilt; tried again on the next flush");
                    self.memory.dashboard_changed(due);
                }
            }
        }
        done
    }

    async fn rebuild_dashboard(&self, due: &Due) -> Result<Rebuilt, GitHubError> {
        let config = self
            .config(&due.api, &due.repo, &due.default_branch)
            .await?;
        let place = Place {
            api: due.api.clone(),
            repo: due.repo.clone(),
            default_branch: due.default_branch.clone(),
            html_base: due.html_base.clone(),
        };
        let ctx = self.ctx(place, &Origin::Dashboard, config);
        let pulls = rest::open_pulls(&ctx.api, &ctx.repo, OPEN_PULL_PAGES).await?;
        refresh(&ctx, pulls).await
    }
}

/// The sweep's rebuild, from the open PRs it listed: with a context whose claim every
/// replica shares.
///
/// # Errors
///
/// As [`refresh`].
pub(crate) async fn from_sweep(ctx: &Ctx, pulls: &[Pull]) -> Result<Rebuilt, GitHubError> {
    let on = ctx.config.as_ref().is_ok_and(|c| c.dashboard);
    if !on && ctx.memory.dashboard_settled_off(&ctx.repo) {
        return Ok(Rebuilt::Nothing);
    }
    let shared = ctx.for_origin(&Origin::Dashboard);
    let outcome = refresh(&shared, pulls.to_vec()).await?;
    ctx.memory
        .dashboard_off(&ctx.repo, !on && ctx.config.is_ok());
    Ok(outcome)
}
