//! Reconcile (docs/reference.md#redelivery-and-reconcile): views are rebuilt from the records on every event, but a
//! delivery that failed after its records commit and was never redelivered leaves them
//! behind. A sweep walks the open PRs of every installation and republishes the check run
//! and the PR-body sections of each PR whose views no longer match its record.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::app::change::refresh;
use crate::app::claim;
use crate::app::context::{default_branch_or_main, html_base, Ctx, Origin, Place};
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::state::{self, State};
use crate::app::AuditApp;
use crate::engine::record::Record;
use crate::engine::views::{sections, splice, SpliceOutcome};
use crate::github::rest::{self, CheckRunInfo, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, PrNumber, RepoName};
use crate::records::{self, Snapshot};

/// What one sweep may spend.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// GitHub requests per sweep; once spent, no new repository or republish is started.
    pub max_calls: u64,
    /// Pages per listing (installations, repositories, open PRs), 100 items each.
    pub max_pages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_calls: 500,
            max_pages: 10,
        }
    }
}

/// What one sweep saw and did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReconcileReport {
    pub installations: usize,
    pub repositories: usize,
    /// Open PRs with a record whose views were compared with it.
    pub checked: usize,
    /// `owner/repo#N` of each PR whose views were republished.
    pub republished: Vec<String>,
    /// Repositories whose sweep failed (GitHub failed underneath), with the error.
    pub failed: Vec<(String, String)>,
    /// GitHub requests the sweep sent.
    pub calls: u64,
    /// The call budget ran out before every PR was looked at.
    pub budget_spent: bool,
    /// Claim refs deleted because their delivery can no longer come again.
    pub pruned: usize,
}

struct Sweep<'a> {
    app: &'a AuditApp,
    limits: Limits,
    calls: Arc<AtomicU64>,
    report: ReconcileReport,
}

impl Sweep<'_> {
    fn spent(&mut self) -> bool {
        let spent = self.calls.load(Ordering::Relaxed) >= self.limits.max_calls;
        self.report.budget_spent |= spent;
        spent
    }
}

/// Whether the PR body's sections are not the record's.
fn body_behind(pull: &Pull, record: &Record, ctx: &Ctx) -> bool {
    let view = ctx.view();
    matches!(
        splice(
            &pull.body,
            &sections(Some(record), &view),
            &view.record_url(&record.id)
        ),
        SpliceOutcome::Updated { .. }
    )
}

impl AuditApp {
    /// One reconcile sweep over every installation, within `limits`. Only a failure to list
    /// the installations is an error; a repository that fails is reported and skipped.
    ///
    /// # Errors
    ///
    /// When the installations cannot be listed.
    pub async fn reconcile(&self, limits: Limits) -> Result<ReconcileReport, GitHubError> {
        let calls = Arc::new(AtomicU64::new(0));
        let mut sweep = Sweep {
            app: self,
            limits,
            calls: calls.clone(),
            report: ReconcileReport::default(),
        };
        let app_api = self.github.app_api(None).counting(calls.clone());
        let installations = rest::installations(&app_api, limits.max_pages).await?;
        sweep.report.installations = installations.len();
        'installations: for installation in installations {
            if sweep.spent() {
                break;
            }
            let api = match self.github.installation(installation.id, None).await {
                Ok(api) => api.counting(calls.clone()),
                Err(e) => {
                    let what = format!("installation {}", installation.id);
                    sweep.report.failed.push((what, e.to_string()));
                    continue;
                }
            };
            let repos = rest::installation_repositories(&api, limits.max_pages).await;
            let repos = match repos {
                Ok(r) => r,
                Err(e) => {
                    let what = format!("installation {}", installation.id);
                    sweep.report.failed.push((what, e.to_string()));
                    continue;
                }
            };
            for repo in repos.into_iter().filter(|r| !r.archived) {
                if sweep.spent() {
                    break 'installations;
                }
                sweep.report.repositories += 1;
                let name = repo.full_name.clone();
                if let Err(e) = sweep.repository(api.clone(), repo).await {
                    sweep.report.failed.push((name.clone(), e.to_string()));
                }
                if let Err(e) = sweep.claims(&api, &name).await {
                    sweep.report.failed.push((name, e.to_string()));
                }
            }
        }
        sweep.report.calls = calls.load(Ordering::Relaxed);
        Ok(sweep.report)
    }
}

impl Sweep<'_> {
    /// Deletes the claim refs (`app::claim`) of deliveries too old to come again: one
    /// listing per repository, then a delete per expired claim, within the call budget.
    /// Claims whose age their name does not tell are kept.
    async fn claims(&mut self, api: &Api, full_name: &str) -> Result<(), GitHubError> {
        let Ok(repo) = RepoName::new(full_name.to_owned()) else {
            return Ok(());
        };
        if self.spent() {
            return Ok(());
        }
        let prefix = claim::PREFIX
            .trim_start_matches("refs/")
            .trim_end_matches('/');
        let now = chrono::Utc::now();
        let names = rest::matching_refs(api, &repo, prefix).await?;
        for name in names.iter().filter(|n| claim::expired(n, now)) {
            if self.spent() {
                break;
            }
            rest::delete_ref(api, &repo, name).await?;
            self.report.pruned += 1;
        }
        if self.report.pruned > 0 {
            tracing::debug!(repo = %repo, pruned = self.report.pruned, "reconcile: old claims pruned");
        }
        Ok(())
    }

    /// Republishes the views of `item`'s open PRs that fell behind their records: one
    /// listing, the configuration, one read of the records they have, then per PR.
    async fn repository(&mut self, api: Api, item: rest::RepoItem) -> Result<(), GitHubError> {
        let Some((ctx, pulls)) = self.context(api, item).await? else {
            return Ok(());
        };
        let open: Vec<PrNumber> = pulls.iter().map(|p| p.number).collect();
        let wanted = state::open_records(open, ctx.settings().patterns);
        let snapshot = records::read(&ctx.api, &ctx.repo, ctx.records_branch(), wanted).await?;
        if snapshot.commit.is_none() {
            return Ok(());
        }
        // The dashboard from the same reads; its failure is the repository's, reported.
        if let Err(e) = crate::app::publish::dashboard::from_sweep(&ctx, &pulls).await {
            self.report
                .failed
                .push((format!("{} dashboard", ctx.repo), e.to_string()));
        }
        let bot = ctx.bot_slug().await?.to_owned();
        let check_name = ctx
            .config
            .as_ref()
            .map(|c| c.check_name.clone())
            .unwrap_or_default();
        let ours = Ours {
            bot: &bot,
            check_name: &check_name,
        };
        for pull in &pulls {
            if self.spent() {
                break;
            }
            self.pull(&ctx, &snapshot, ours, pull).await?;
        }
        Ok(())
    }

    /// The context of a sweep of `item`, and its open PRs; `None` when it has none or its
    /// configuration is broken or disabled (the next event's views show that).
    async fn context(
        &self,
        api: Api,
        item: rest::RepoItem,
    ) -> Result<Option<(Ctx, Vec<Pull>)>, GitHubError> {
        let Ok(repo) = RepoName::new(item.full_name.clone()) else {
            return Ok(None);
        };
        let default_branch = default_branch_or_main(item.default_branch);
        let pulls = rest::open_pulls(&api, &repo, self.limits.max_pages).await?;
        if pulls.is_empty() {
            return Ok(None);
        }
        let config = self.app.config(&api, &repo, &default_branch).await?;
        if !config
            .as_ref()
            .is_ok_and(crate::engine::repo_config::RepoConfig::enabled)
        {
            return Ok(None);
        }
        let place = Place {
            api,
            repo,
            default_branch,
            html_base: html_base(item.html_url.as_deref()),
        };
        let ctx = self.app.ctx(place, &Origin::Sweep, config);
        Ok(Some((ctx, pulls)))
    }

    /// Compares `pull`'s views with its record and republishes those behind.
    async fn pull(
        &mut self,
        ctx: &Ctx,
        snapshot: &Snapshot,
        ours: Ours<'_>,
        pull: &Pull,
    ) -> Result<(), GitHubError> {
        let state = state::state_of(snapshot, pull.number, None)
            .map_err(crate::app::reads::lineage::Damage::from);
        let Ok(State {
            record: Some(Ok(record)),
            ..
        }) = &state
        else {
            return Ok(());
        };
        self.report.checked += 1;
        let runs = rest::check_runs(&ctx.api, &ctx.repo, &pull.head_sha).await?;
        let our_run = runs.iter().find(|r| {
            r.name == ours.check_name
                && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(ours.bot)
        });
        let run_behind = run_behind(ctx, snapshot, record, our_run).await?;
        let body_behind = body_behind(pull, record, ctx);
        if !run_behind && !body_behind {
            return Ok(());
        }
        let mode = RunMode::create_if(run_behind);
        let target = observe::Target {
            pull,
            state: &state,
            records_commit: snapshot.commit.as_ref(),
            runs: Some(&runs),
            checked: false,
        };
        refresh::refresh(ctx, target, mode, Body::rebuild_if(body_behind)).await?;
        tracing::info!(repo = %ctx.repo, pr = pull.number.0, run_behind, body_behind, "reconcile: views republished");
        self.report
            .republished
            .push(format!("{}{}", ctx.repo, pull.number));
        Ok(())
    }
}

/// How our check run is told from others on a head: its name and the App's slug.
#[derive(Clone, Copy)]
struct Ours<'a> {
    bot: &'a str,
    check_name: &'a str,
}

/// Whether our check run names a records commit other than the one the record was last
/// changed in: a different commit holding the same record blob is not behind.
async fn run_behind(
    ctx: &Ctx,
    snapshot: &Snapshot,
    record: &Record,
    ours: Option<&CheckRunInfo>,
) -> Result<bool, GitHubError> {
    let Some(named) = ours
        .and_then(|r| r.external_id.clone())
        .and_then(|e| CommitSha::new(e).ok())
    else {
        return Ok(true);
    };
    if Some(&named) == snapshot.commit.as_ref() {
        return Ok(false);
    }
    let path = crate::engine::layout::record_path(&record.id);
    let then = records::blob_at(&ctx.api, &ctx.repo, &named, &path).await?;
    Ok(then.as_ref() != snapshot.blob_sha(&path))
}
