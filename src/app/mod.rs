//! The App: maps typed events to audit operations on GitHub.

mod checks;

use std::sync::Arc;

use tokio::sync::OnceCell;

use crate::events::{Event, PullRequestAction};
use crate::github::{Call, GitHubApp, GitHubError};
use crate::server::webhook::Delivery;
use crate::server::{Handled, Handler, HandlerError};

pub struct AuditApp {
    github: Arc<GitHubApp>,
    /// `<slug>[bot]`, read once from `GET /app`, to ignore events the App caused itself.
    bot_login: OnceCell<String>,
}

impl From<GitHubError> for HandlerError {
    fn from(e: GitHubError) -> Self {
        HandlerError::GitHub(e.to_string())
    }
}

#[derive(serde::Deserialize)]
struct AppInfo {
    slug: String,
}

impl AuditApp {
    pub fn new(github: Arc<GitHubApp>) -> Self {
        Self {
            github,
            bot_login: OnceCell::new(),
        }
    }

    async fn bot_login(&self, delivery: &Delivery) -> Result<&str, GitHubError> {
        self.bot_login
            .get_or_try_init(|| async {
                let api = self.github.app_api(Some(delivery.id.clone()));
                let info: AppInfo = api.json(Call::get("GET /app", "/app")).await?;
                Ok::<_, GitHubError>(format!("{}[bot]", info.slug))
            })
            .await
            .map(String::as_str)
    }

    async fn caused_by_self(&self, delivery: &Delivery) -> Result<bool, GitHubError> {
        let sender = match &delivery.event {
            Event::PullRequest(e) => &e.sender,
            Event::IssueComment(e) => &e.comment.user,
            Event::CheckRun(e) => &e.sender,
            Event::CheckSuite(e) => &e.sender,
            Event::MergeGroup(e) => &e.sender,
            _ => return Ok(false),
        };
        if sender.kind.as_deref() != Some("Bot") {
            return Ok(false);
        }
        Ok(sender
            .login
            .eq_ignore_ascii_case(self.bot_login(delivery).await?))
    }
}

#[async_trait::async_trait]
impl Handler for AuditApp {
    async fn handle(&self, delivery: &Delivery) -> Result<Handled, HandlerError> {
        match &delivery.event {
            Event::Installation { name, payload } => {
                tracing::info!(event = name, action = ?payload.action, installation = ?payload.installation.map(|i| i.id), "installation event");
                return Ok(Handled::Done);
            }
            Event::Ping => return Ok(Handled::Done),
            Event::Unhandled { .. } => return Ok(Handled::Ignored),
            _ => {}
        }
        if self.caused_by_self(delivery).await? {
            return Ok(Handled::Ignored);
        }
        let Some(installation) = delivery.event.installation_id() else {
            tracing::warn!("delivery without an installation; ignored");
            return Ok(Handled::Ignored);
        };
        match &delivery.event {
            Event::PullRequest(e)
                if matches!(
                    e.action,
                    PullRequestAction::Opened
                        | PullRequestAction::Reopened
                        | PullRequestAction::Synchronize
                        | PullRequestAction::ReadyForReview
                ) =>
            {
                let api = self
                    .github
                    .installation(installation, Some(delivery.id.clone()))
                    .await?;
                checks::create_gate_run(&api, &e.repository.full_name, &e.pull_request.head.sha)
                    .await?;
                Ok(Handled::Done)
            }
            _ => Ok(Handled::Ignored),
        }
    }
}
