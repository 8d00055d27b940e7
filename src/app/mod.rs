//! The App: maps typed events to audit operations on GitHub.
//!
//! Three rooms, and the few parts all of them share:
//! - `handlers/`: what each event does, from its reads to its answer;
//! - `commit/`: decisions applied to the records branch, one commit at a time;
//! - `publish/`: views and replies, rebuilt from what was committed.

// No function here is longer than one sitting's read (`tests/it/code_size.rs` counts the
// lines as read; clippy counts the lines of code, against `clippy.toml`'s threshold).
#![warn(clippy::too_many_lines)]

mod audit_app;
mod change;
mod claim;
mod commit;
mod context;
mod early;
mod handlers;
mod publish;
mod reads;
mod repository;
pub(crate) mod status;
mod sweeps;

use crate::commands::{parse_comment, Parsed};
use crate::delivery::{Delivery, Handled, Handler, HandlerError, Ordering};
use crate::events::{Repository, WebhookEvent};
use crate::github::deadline::Deadline;
use crate::github::{Api, GitHubError};
use crate::ids::RepoName;

pub use audit_app::AuditApp;
pub(crate) use context::{default_branch_or_main, Ctx};
pub use publish::dashboard;
pub use sweeps::reconcile::Limits as ReconcileLimits;
pub(crate) use sweeps::reconcile::ReconcileReport;

impl From<GitHubError> for HandlerError {
    fn from(e: GitHubError) -> Self {
        match e {
            // GitHub's wait, or the governor's: the installation's pace, not a failure.
            GitHubError::RateLimited { wait, .. } => HandlerError::Deferred { wait },
            e => HandlerError::GitHub(e.to_string()),
        }
    }
}

impl AuditApp {
    /// The installation's client for `delivery`'s calls: ending by its deadline (GitHub's
    /// window, or a queued delivery's own time), its writes behind the queue's.
    async fn delivery_api(
        &self,
        delivery: &Delivery,
        installation: u64,
    ) -> Result<Api, GitHubError> {
        let deadline = if delivery.pace.queued {
            Deadline::of_queued(tokio::time::Instant::now())
        } else {
            Deadline::of_delivery(delivery.received)
        };
        Ok(self
            .github
            .installation(installation, Some(delivery.id.clone()))
            .await?
            .with_deadline(deadline)
            .behind(delivery.pace.writes_ahead))
    }

    /// The context of a delivery: the configuration is read again while the reads the
    /// event needs anyway start (see [`prefetch`]), which are kept only when the records
    /// branch they assumed is still the configured one.
    async fn context(
        &self,
        delivery: &Delivery,
        api: Api,
        repository: &Repository,
        parsed: Option<&Parsed>,
    ) -> Result<Option<Ctx>, GitHubError> {
        let Ok(repo) = RepoName::new(repository.full_name.clone()) else {
            return Ok(None);
        };
        let command_at = match &delivery.event {
            WebhookEvent::IssueComment(e) => e.comment.created_at.as_deref(),
            _ => None,
        };
        let place = context::Place::new(
            api,
            repo,
            repository.default_branch.clone(),
            repository.html_url.as_deref(),
        );
        let origin = context::Origin::Delivery {
            id: &delivery.id,
            command_at,
            pr_ahead: delivery.pace.pr_ahead,
        };
        let config = self.last_config(&place.repo);
        let mut ctx = self.ctx(place, &origin, config);
        let assumed = ctx.records_branch().to_owned();
        let queried = early::prefetch::reads_config(&delivery.event, parsed);
        let (config, early) = tokio::join!(
            async {
                if queried {
                    Ok(None)
                } else {
                    self.config(&ctx.api, &ctx.repo, &ctx.default_branch)
                        .await
                        .map(Some)
                }
            },
            early::prefetch::reads(&ctx, &delivery.event, parsed),
        );
        let (config, early) = (config?, early?);
        ctx.config = match (config, early) {
            (Some(config), _) => config,
            (None, Some(blob)) => self.config_from(&ctx.repo, blob),
            // The query did not bring the file in a shape it trusts.
            (None, None) => {
                self.config(&ctx.api, &ctx.repo, &ctx.default_branch)
                    .await?
            }
        };
        if ctx.records_branch() != assumed {
            ctx.delivery_cache.forget_records();
        }
        Ok(Some(ctx))
    }
}

/// Whether auditloop acts on this event at all; the rest is answered without a GitHub call.
pub(crate) fn relevant(event: &WebhookEvent) -> bool {
    use crate::events::{
        CheckRunAction, CheckSuiteAction, CommentAction, MergeGroupAction, PullRequestAction as P,
    };
    match event {
        WebhookEvent::PullRequest(e) => !matches!(e.action, P::Closed | P::Other),
        WebhookEvent::IssueComment(e) => {
            e.action == CommentAction::Created
                && e.issue.pull_request.is_some()
                && e.comment
                    .body
                    .as_deref()
                    .is_some_and(|b| b.contains("/audit"))
        }
        WebhookEvent::CheckRun(e) => e.action != CheckRunAction::Other,
        WebhookEvent::CheckSuite(e) => e.action == CheckSuiteAction::Rerequested,
        WebhookEvent::MergeGroup(e) => e.action == MergeGroupAction::ChecksRequested,
        WebhookEvent::Issues(e) => e.action == crate::events::IssuesAction::Reopened,
        _ => false,
    }
}

pub(crate) fn repository_of(event: &WebhookEvent) -> Option<&Repository> {
    match event {
        WebhookEvent::PullRequest(e) => Some(&e.repository),
        WebhookEvent::IssueComment(e) => Some(&e.repository),
        WebhookEvent::CheckRun(e) => Some(&e.repository),
        WebhookEvent::CheckSuite(e) => Some(&e.repository),
        WebhookEvent::MergeGroup(e) => Some(&e.repository),
        WebhookEvent::Issues(e) => Some(&e.repository),
        _ => None,
    }
}

#[async_trait::async_trait]
impl Handler for AuditApp {
    /// Commands and pushes keep their pull request's order; what changes nothing a later
    /// delivery depends on (`status`, `help`, a refusal of what is no command, an event
    /// not acted on) does not wait for them.
    fn ordering(&self, delivery: &Delivery) -> Ordering {
        match &delivery.event {
            WebhookEvent::IssueComment(e) if relevant(&delivery.event) => {
                match parse_comment(e.comment.body.as_deref().unwrap_or_default()) {
                    Ok(Some(c)) if !c.is_read_only() => Ordering::InOrder,
                    _ => Ordering::Free,
                }
            }
            event if relevant(event) => Ordering::InOrder,
            _ => Ordering::Free,
        }
    }

    async fn carried_out(&self, delivery: &Delivery) -> Result<bool, HandlerError> {
        Ok(self.outcome_found(delivery).await?)
    }

    async fn handle(&self, delivery: &Delivery) -> Result<Handled, HandlerError> {
        match &delivery.event {
            WebhookEvent::Installation { name, payload } => {
                tracing::info!(event = name, action = ?payload.action, installation = ?payload.installation.map(|i| i.id), "installation event");
                return Ok(Handled::Done);
            }
            WebhookEvent::Ping => return Ok(Handled::Done),
            WebhookEvent::Unhandled { .. } => return Ok(Handled::Ignored),
            WebhookEvent::PullRequest(e)
                if e.action == crate::events::PullRequestAction::Closed =>
            {
                self.pull_closed(e).await;
                return Ok(Handled::Ignored);
            }
            _ => {}
        }
        if !relevant(&delivery.event)
            || handlers::checks::asks_another_app(&delivery.event, self.app_id())
        {
            return Ok(Handled::Ignored);
        }
        let (Some(installation), Some(repository)) = (
            delivery.event.installation_id(),
            repository_of(&delivery.event),
        ) else {
            tracing::warn!("delivery without an installation or repository; ignored");
            return Ok(Handled::Ignored);
        };
        let api = self.delivery_api(delivery, installation).await?;
        if self.caused_by_self(delivery, &api).await? {
            return Ok(Handled::Ignored);
        }
        // Every event handled here writes (a check run, a reply, a claim): when its first
        // write cannot go in time (GitHub asked this installation's writes to wait, or a
        // queue's come first), nothing is read either: the delivery is queued.
        if !api.writes_fit(1) {
            return Err(HandlerError::Deferred {
                wait: self.github.writes_paused(installation).unwrap_or_default(),
            });
        }
        // A comment is read into its command once: the early reads and the handler share it.
        let parsed = match &delivery.event {
            WebhookEvent::IssueComment(e) => {
                Some(parse_comment(e.comment.body.as_deref().unwrap_or_default()))
            }
            _ => None,
        };
        let context = self.context(delivery, api, repository, parsed.as_ref());
        let Some(ctx) = Box::pin(context).await? else {
            return Ok(Handled::Ignored);
        };
        let handled = match &delivery.event {
            WebhookEvent::PullRequest(e) => handlers::pulls::handle(&ctx, e).await?,
            WebhookEvent::IssueComment(e) => {
                let parsed = parsed.unwrap_or(Ok(None));
                return Box::pin(handlers::comment::handle(&ctx, e, parsed)).await;
            }
            WebhookEvent::CheckRun(e) => handlers::checks::check_run_event(&ctx, e).await?,
            WebhookEvent::CheckSuite(e) => handlers::checks::check_suite_event(&ctx, e).await?,
            WebhookEvent::MergeGroup(e) => handlers::checks::merge_group_event(&ctx, e).await?,
            WebhookEvent::Issues(e) => handlers::issues::handle(&ctx, e).await?,
            _ => Handled::Ignored,
        };
        Ok(handled)
    }
}
