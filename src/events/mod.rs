//! Typed webhook events: the `X-GitHub-Event` name picks the payload type.

mod payload;

pub(crate) use payload::*;

use crate::ids::PrNumber;

/// A parsed delivery body. Events auditloop does not handle keep only their name.
#[derive(Debug, Clone)]
pub enum WebhookEvent {
    PullRequest(Box<PullRequestEvent>),
    IssueComment(Box<IssueCommentEvent>),
    CheckRun(Box<CheckRunEvent>),
    CheckSuite(Box<CheckSuiteEvent>),
    MergeGroup(Box<MergeGroupEvent>),
    Issues(Box<IssuesEvent>),
    Installation {
        name: String,
        payload: InstallationEvent,
    },
    Ping,
    Unhandled {
        name: String,
    },
}

/// A payload that is not valid JSON, or lacks a field auditloop needs.
#[derive(Debug, thiserror::Error)]
#[error("{event} payload: {path}: {message}")]
pub struct PayloadError {
    pub(crate) event: String,
    pub(crate) path: String,
    pub(crate) message: String,
}

fn typed<T: serde::de::DeserializeOwned>(event: &str, body: &[u8]) -> Result<T, PayloadError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| PayloadError {
        event: event.to_owned(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

impl WebhookEvent {
    /// # Errors
    ///
    /// The [`PayloadError`] when `body` is not a payload of the event `name`.
    pub fn parse(name: &str, body: &[u8]) -> Result<Self, PayloadError> {
        Ok(match name {
            "pull_request" => WebhookEvent::PullRequest(Box::new(typed(name, body)?)),
            "issue_comment" => WebhookEvent::IssueComment(Box::new(typed(name, body)?)),
            "check_run" => WebhookEvent::CheckRun(Box::new(typed(name, body)?)),
            "check_suite" => WebhookEvent::CheckSuite(Box::new(typed(name, body)?)),
            "merge_group" => WebhookEvent::MergeGroup(Box::new(typed(name, body)?)),
            "issues" => WebhookEvent::Issues(Box::new(typed(name, body)?)),
            "installation" | "installation_repositories" | "installation_target" => {
                WebhookEvent::Installation {
                    name: name.to_owned(),
                    payload: typed(name, body)?,
                }
            }
            "ping" => {
                typed::<serde::de::IgnoredAny>(name, body)?;
                WebhookEvent::Ping
            }
            _ => {
                // Still refuse a body that is not JSON at all: GitHub never sends one.
                typed::<serde::de::IgnoredAny>(name, body)?;
                WebhookEvent::Unhandled {
                    name: name.to_owned(),
                }
            }
        })
    }

    #[must_use]
    pub(crate) fn name(&self) -> &str {
        match self {
            WebhookEvent::PullRequest(_) => "pull_request",
            WebhookEvent::IssueComment(_) => "issue_comment",
            WebhookEvent::CheckRun(_) => "check_run",
            WebhookEvent::CheckSuite(_) => "check_suite",
            WebhookEvent::MergeGroup(_) => "merge_group",
            WebhookEvent::Issues(_) => "issues",
            WebhookEvent::Installation { name, .. } | WebhookEvent::Unhandled { name } => name,
            WebhookEvent::Ping => "ping",
        }
    }

    #[must_use]
    pub(crate) fn repository(&self) -> Option<&str> {
        match self {
            WebhookEvent::PullRequest(e) => Some(&e.repository.full_name),
            WebhookEvent::IssueComment(e) => Some(&e.repository.full_name),
            WebhookEvent::CheckRun(e) => Some(&e.repository.full_name),
            WebhookEvent::CheckSuite(e) => Some(&e.repository.full_name),
            WebhookEvent::MergeGroup(e) => Some(&e.repository.full_name),
            WebhookEvent::Issues(e) => Some(&e.repository.full_name),
            _ => None,
        }
    }

    /// The pull request a delivery is about, when the payload names one.
    #[must_use]
    pub(crate) fn pull_number(&self) -> Option<PrNumber> {
        match self {
            WebhookEvent::PullRequest(e) => Some(e.number),
            WebhookEvent::IssueComment(e) => e
                .issue
                .pull_request
                .as_ref()
                .map(|_| PrNumber(e.issue.number)),
            WebhookEvent::CheckRun(e) => e.check_run.pull_requests.first().map(|p| p.number),
            WebhookEvent::CheckSuite(e) => e.check_suite.pull_requests.first().map(|p| p.number),
            WebhookEvent::MergeGroup(e) => e.merge_group.queued_pull(),
            _ => None,
        }
    }

    /// Deliveries with the same key are handled one after the other; others concurrently.
    /// The key is the pull request wherever the payload names one, so that a check event
    /// (naming its PRs through its head) and a comment on the same PR never race; check
    /// events that name no PR (a fork's head) serialize per repository.
    #[must_use]
    pub fn serial_key(&self) -> String {
        let Some(repo) = self.repository() else {
            return String::new();
        };
        match self.pull_number() {
            Some(n) => format!("{}#{}", repo.to_ascii_lowercase(), n.0),
            None => repo.to_ascii_lowercase(),
        }
    }

    #[must_use]
    pub(crate) fn action(&self) -> Option<String> {
        let text = |v: &dyn std::fmt::Debug| format!("{v:?}");
        match self {
            WebhookEvent::PullRequest(e) => Some(text(&e.action)),
            WebhookEvent::IssueComment(e) => Some(text(&e.action)),
            WebhookEvent::CheckRun(e) => Some(text(&e.action)),
            WebhookEvent::CheckSuite(e) => Some(text(&e.action)),
            WebhookEvent::MergeGroup(e) => Some(text(&e.action)),
            WebhookEvent::Issues(e) => Some(text(&e.action)),
            WebhookEvent::Installation { payload, .. } => payload.action.clone(),
            _ => None,
        }
    }

    #[must_use]
    pub(crate) fn installation_id(&self) -> Option<u64> {
        match self {
            WebhookEvent::PullRequest(e) => e.installation.map(|i| i.id),
            WebhookEvent::IssueComment(e) => e.installation.map(|i| i.id),
            WebhookEvent::CheckRun(e) => e.installation.map(|i| i.id),
            WebhookEvent::CheckSuite(e) => e.installation.map(|i| i.id),
            WebhookEvent::MergeGroup(e) => e.installation.map(|i| i.id),
            WebhookEvent::Issues(e) => e.installation.map(|i| i.id),
            WebhookEvent::Installation { payload, .. } => payload.installation.map(|i| i.id),
            _ => None,
        }
    }
}
