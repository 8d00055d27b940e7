//! The audit dashboard issue (docs/reference.md#the-audit-dashboard): one per repository
//! with `dashboard: true`, its body rebuilt from the records of the open PRs. It is a view,
//! like the PR body: the records stand whatever becomes of it.
//!
//! A change to a record marks the repository in [`Memory`](crate::app::memory::Memory); the
//! flush ([`AuditApp::flush_dashboards`]) rebuilds each marked dashboard at most once per
//! interval, so a burst of changes folds into one edit. The reconcile sweep rebuilds it
//! too, from the reads it makes anyway.

use std::time::Duration;

use crate::app::context::{Ctx, Origin, Place};
use crate::app::reads::state;
use crate::app::AuditApp;
use crate::engine::dashboard::{self, OpenPull, Sources};
use crate::github::rest::{self, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::RepoName;
use crate::records::{self, Snapshot};

/// What one rebuild did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
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

use crate::app::memory::DashboardDue as Due;

/// The open PRs with a record in `snapshot`, as the dashboard lists them.
fn open_pulls<'a>(
    pulls: &'a [Pull],
    index: &'a crate::engine::record::Index,
    states: &'a [(usize, Result<state::State, String>)],
) -> Vec<OpenPull<'a>> {
    states
        .iter()
        .filter_map(|(i, s)| {
            let pull = &pulls[*i];
            let id = index.record_for_pull(pull.number)?;
            let record = match s {
                Ok(state::State {
                    record: Some(Ok(r)),
                    ..
                }) => Ok(r),
                Ok(state::State {
                    record: Some(Err(why)),
                    ..
                })
                | Err(why) => Err(why.clone()),
                Ok(_) => return None,
            };
            Some(OpenPull {
                number: pull.number,
                title: &pull.title,
                record_id: id,
                record,
            })
        })
        .collect()
}

/// The rows of the open `pulls` read from `snapshot`.
#[must_use]
pub(crate) fn rows_of(pulls: &[Pull], snapshot: &Snapshot) -> Vec<dashboard::Row> {
    let index = snapshot
        .file(crate::engine::layout::INDEX_PATH)
        .and_then(|t| crate::engine::record::Index::parse(t).ok())
        .unwrap_or_default();
    let states: Vec<(usize, Result<state::State, String>)> = pulls
        .iter()
        .enumerate()
        .filter(|(_, p)| index.record_for_pull(p.number).is_some())
        .map(|(i, p)| (i, state::state_of(snapshot, p.number, None)))
        .collect();
    dashboard::rows(&open_pulls(pulls, &index, &states))
}

/// The dashboard's body for the open `pulls`, from `snapshot`.
#[must_use]
pub(crate) fn body_of(ctx: &Ctx, pulls: &[Pull], snapshot: &Snapshot) -> String {
    let rows = rows_of(pulls, snapshot);
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
pub(crate) async fn refresh(
    ctx: &Ctx,
    pulls: &[Pull],
    snapshot: &Snapshot,
) -> Result<Outcome, GitHubError> {
    let Ok(config) = &ctx.config else {
        // An invalid file says nothing of the setting: the dashboard is left as it is.
        return Ok(Outcome::Nothing);
    };
    let found = rest::find_marked(&ctx.api, &ctx.repo, dashboard::LABEL, dashboard::MARKER).await?;
    if !config.dashboard {
        return match found {
            Some(issue) if issue.open => {
                let body = dashboard::closed_body();
                rest::update_issue(&ctx.api, &ctx.repo, issue.number, &body, false).await?;
                tracing::info!(repo = %ctx.repo, issue = issue.number.0, "audit dashboard closed: the setting is off");
                Ok(Outcome::Closed)
            }
            _ => Ok(Outcome::Nothing),
        };
    }
    let body = body_of(ctx, pulls, snapshot);
    match found {
        Some(issue) if issue.open && issue.body.trim_end() == body.trim_end() => {
            Ok(Outcome::Unchanged)
        }
        Some(issue) => {
            rest::update_issue(&ctx.api, &ctx.repo, issue.number, &body, true).await?;
            Ok(if issue.open {
                Outcome::Updated
            } else {
                Outcome::Reopened
            })
        }
        None => create(ctx, snapshot, &body).await,
    }
}

/// Creates the dashboard once across replicas: under a claim, after looking for it.
async fn create(ctx: &Ctx, snapshot: &Snapshot, body: &str) -> Result<Outcome, GitHubError> {
    let find = || rest::find_marked(&ctx.api, &ctx.repo, dashboard::LABEL, dashboard::MARKER);
    // The claim points at a commit of the repository: the records' own.
    let Some(anchor) = snapshot.commit.clone() else {
        return Ok(Outcome::Nothing);
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
        Outcome::Created
    } else {
        Outcome::Unchanged
    })
}

impl AuditApp {
    /// Rebuilds the dashboard of each repository a change marked at least `interval` ago
    /// since its last rebuild: what [`crate::dashboard::spawn`] runs, and what tests call.
    /// A repository that fails is marked again, for the next flush.
    pub async fn flush_dashboards(&self, interval: Duration) -> Vec<(RepoName, Outcome)> {
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

    async fn rebuild_dashboard(&self, due: &Due) -> Result<Outcome, GitHubError> {
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
        let numbers = pulls.iter().map(|p| p.number).collect();
        let wanted = state::open_records(numbers, true);
        let snapshot = records::read(&ctx.api, &ctx.repo, ctx.records_branch(), wanted).await?;
        refresh(&ctx, &pulls, &snapshot).await
    }
}

/// Pages of open pull requests (100 each) a dashboard lists.
const OPEN_PULL_PAGES: usize = 10;

/// The sweep's rebuild, from the open PRs and records it read: with a context whose claim
/// every replica shares.
///
/// # Errors
///
/// As [`refresh`].
pub(crate) async fn from_sweep(
    ctx: &Ctx,
    pulls: &[Pull],
    snapshot: &Snapshot,
) -> Result<Outcome, GitHubError> {
    let on = ctx.config.as_ref().is_ok_and(|c| c.dashboard);
    if !on && ctx.memory.dashboard_settled_off(&ctx.repo) {
        return Ok(Outcome::Nothing);
    }
    let shared = ctx.for_origin(&Origin::Dashboard);
    let outcome = refresh(&shared, pulls, snapshot).await?;
    ctx.memory
        .dashboard_off(&ctx.repo, !on && ctx.config.is_ok());
    Ok(outcome)
}

/// Every open PR with a record, as `auditloop status --repo` and the `list_audits` tool
/// show them: the dashboard's rows from one read of the records, each with its gate now
/// (evaluated as `status --pr` evaluates it, so it agrees with the check run).
#[derive(Debug)]
pub(crate) struct RepoNow {
    pub(crate) pulls: Vec<dashboard::PullStatus>,
    /// Some record cannot be trusted: the answer cannot tell.
    pub(crate) damaged: bool,
}

/// Reads `repo`'s open PRs and records, and each audited PR's gate.
///
/// # Errors
///
/// [`GitHubError`] when a read fails (no access, no such repository, GitHub down).
pub(crate) async fn repo_now(
    api: &Api,
    repo: &RepoName,
    records_branch: Option<&str>,
    operator_min: crate::engine::repo_config::Assurance,
    trust: Option<&crate::engine::receipt::TrustStore>,
) -> Result<RepoNow, GitHubError> {
    use crate::engine::repo_config::{RepoConfig, CONFIG_PATH};
    let repository = rest::get_repo(api, repo).await?;
    let default_branch = repository
        .default_branch
        .clone()
        .unwrap_or_else(|| "main".to_owned());
    let (read, pulls) = futures::try_join!(
        rest::read_file(api, repo, CONFIG_PATH, &default_branch, None),
        rest::open_pulls(api, repo, OPEN_PULL_PAGES),
    )?;
    let config = match read {
        rest::FileRead::Found { text, .. } => RepoConfig::from_yaml(&text).unwrap_or_default(),
        _ => RepoConfig::default(),
    };
    let branch = records_branch.map_or(config.records_branch.clone(), str::to_owned);
    let numbers = pulls.iter().map(|p| p.number).collect();
    let wanted = state::open_records(numbers, false);
    let snapshot = records::read(api, repo, &branch, wanted).await?;
    let rows = rows_of(&pulls, &snapshot);
    let mut out = Vec::new();
    let mut damaged = false;
    for row in &rows {
        let now = crate::app::gate_now(api, repo, row.number, records_branch, operator_min, trust)
            .await?;
        let (passes, line) = match now {
            crate::app::GateNow::InvalidConfig(e) => (false, e),
            crate::app::GateNow::Evaluated {
                gate, damaged: d, ..
            } => {
                damaged |= d.is_some();
                let passes = matches!(
                    gate.conclusion,
                    crate::engine::gate::Conclusion::Success
                        | crate::engine::gate::Conclusion::Neutral
                );
                (passes, gate.title.plain().to_owned())
            }
        };
        damaged |= row.state == "damaged";
        let mut status = dashboard::PullStatus::new(row, passes);
        // The check run's own line: the gate with the head's checks, as GitHub shows it.
        status.verdict_line = line;
        out.push(status);
    }
    Ok(RepoNow {
        pulls: out,
        damaged,
    })
}
