//! Whether a delivery's outcome is on GitHub: what the redelivery sweep asks of a delivery
//! answered `202` whose process may have stopped with it queued
//! (docs/reference.md#queued-deliveries). Reads only.

use crate::app::context::{self, Origin, Place};
use crate::app::reads::loading;
use crate::app::AuditApp;
use crate::commands::parse_comment;
use crate::delivery::Delivery;
use crate::engine::record::has_delivery;
use crate::engine::views::reply::delivery_marker;
use crate::events::{IssueCommentEvent, PullRequestEvent, WebhookEvent};
use crate::github::rest;
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, PrNumber, RepoName};

impl AuditApp {
    /// Whether what `delivery` was to do shows: a command's +1 or its reply (refusal,
    /// `status`, `help`); a push's event in the record, or its check run. A check event
    /// re-evaluates a gate, which nothing tells apart from another evaluation: `false`, so
    /// that it is asked for again (evaluating twice changes nothing).
    pub(crate) async fn outcome_found(&self, delivery: &Delivery) -> Result<bool, GitHubError> {
        if !crate::app::relevant(&delivery.event) {
            return Ok(true);
        }
        let (Some(installation), Some(repository)) = (
            delivery.event.installation_id(),
            crate::app::repository_of(&delivery.event),
        ) else {
            return Ok(true);
        };
        let Ok(repo) = RepoName::new(repository.full_name.clone()) else {
            return Ok(true);
        };
        let api = self
            .github
            .installation(installation, Some(delivery.id.clone()))
            .await?;
        match &delivery.event {
            WebhookEvent::IssueComment(e) => self.answered(&api, &repo, e, delivery).await,
            WebhookEvent::PullRequest(e) => {
                let place = Place::new(
                    api,
                    repo,
                    repository.default_branch.clone(),
                    repository.html_url.as_deref(),
                );
                self.push_seen(place, e, delivery).await
            }
            _ => Ok(false),
        }
    }

    /// A command's +1 (by this App), or a reply carrying the delivery's marker.
    async fn answered(
        &self,
        api: &Api,
        repo: &RepoName,
        e: &IssueCommentEvent,
        delivery: &Delivery,
    ) -> Result<bool, GitHubError> {
        if !matches!(
            parse_comment(e.comment.body.as_deref().unwrap_or_default()),
            Ok(Some(_)) | Err(_)
        ) {
            return Ok(true);
        }
        let bot = format!("{}[bot]", self.operator.slug(api).await?);
        if rest::reacted_by(api, repo, e.comment.id, "+1", &bot).await? {
            return Ok(true);
        }
        let since = context::replies_since(chrono::Utc::now(), e.comment.created_at.as_deref());
        let marker = delivery_marker(delivery.id.as_str_lossy());
        let replies = rest::comments_since(api, repo, PrNumber(e.issue.number), since).await?;
        Ok(replies
            .iter()
            .any(|(login, body)| login.eq_ignore_ascii_case(&bot) && body.contains(&marker)))
    }

    /// A push the record was to be rebound to: its event in the record, or the record on
    /// its head already. Any other pull-request event: our check run on its head.
    async fn push_seen(
        &self,
        place: Place,
        e: &PullRequestEvent,
        delivery: &Delivery,
    ) -> Result<bool, GitHubError> {
        let Ok(head) = CommitSha::new(e.pull_request.head.sha.clone()) else {
            return Ok(true);
        };
        let config = self
            .config(&place.api, &place.repo, &place.default_branch)
            .await?;
        let ctx = self.ctx(place, &Origin::Status, config);
        let rebinds = crate::app::early::prefetch::may_rebind(e) && ctx.settings().baseline_on_push;
        if rebinds {
            if let Ok(state) = loading::load(&ctx, e.number, None).await? {
                if let Some(Ok(record)) = &state.record {
                    return Ok(has_delivery(record, &delivery.id)
                        || record.candidate_artifact.sha() == &head);
                }
            }
        }
        let slug = ctx.bot_slug().await?;
        let runs = rest::check_runs(&ctx.api, &ctx.repo, &head).await?;
        Ok(runs.iter().any(|r| {
            r.name == ctx.check_name()
                && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(slug)
        }))
    }
}
