//! Typed webhook events: the `X-GitHub-Event` name picks the payload type.

mod payload;

pub(crate) use payload::*;

use crate::ids::PrNumber;

/// A parsed delivery body. Events auditloop does not handle keep only their name.
#[derive(Debug, Clone)]
pub enum Event {
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

impl Event {
    /// # Errors
    ///
    /// The [`PayloadError`] when `body` is not a payload of the event `name`.
    pub fn parse(name: &str, body: &[u8]) -> Result<Self, PayloadError> {
        Ok(match name {
            "pull_request" => Event::PullRequest(Box::new(typed(name, body)?)),
            "issue_comment" => Event::IssueComment(Box::new(typed(name, body)?)),
            "check_run" => Event::CheckRun(Box::new(typed(name, body)?)),
            "check_suite" => Event::CheckSuite(Box::new(typed(name, body)?)),
            "merge_group" => Event::MergeGroup(Box::new(typed(name, body)?)),
            "issues" => Event::Issues(Box::new(typed(name, body)?)),
            "installation" | "installation_repositories" | "installation_target" => {
                Event::Installation {
                    name: name.to_owned(),
                    payload: typed(name, body)?,
                }
            }
            "ping" => {
                typed::<serde::de::IgnoredAny>(name, body)?;
                Event::Ping
            }
            _ => {
                // Still refuse a body that is not JSON at all: GitHub never sends one.
                typed::<serde::de::IgnoredAny>(name, body)?;
                Event::Unhandled {
                    name: name.to_owned(),
                }
            }
        })
    }

    #[must_use]
    pub(crate) fn name(&self) -> &str {
        match self {
            Event::PullRequest(_) => "pull_request",
            Event::IssueComment(_) => "issue_comment",
            Event::CheckRun(_) => "check_run",
            Event::CheckSuite(_) => "check_suite",
            Event::MergeGroup(_) => "merge_group",
            Event::Issues(_) => "issues",
            Event::Installation { name, .. } | Event::Unhandled { name } => name,
            Event::Ping => "ping",
        }
    }

    #[must_use]
    pub(crate) fn repository(&self) -> Option<&str> {
        match self {
            Event::PullRequest(e) => Some(&e.repository.full_name),
            Event::IssueComment(e) => Some(&e.repository.full_name),
            Event::CheckRun(e) => Some(&e.repository.full_name),
            Event::CheckSuite(e) => Some(&e.repository.full_name),
            Event::MergeGroup(e) => Some(&e.repository.full_name),
            Event::Issues(e) => Some(&e.repository.full_name),
            _ => None,
        }
    }

    /// The pull request a delivery is about, when the payload names one.
    #[must_use]
    pub(crate) fn pull_number(&self) -> Option<PrNumber> {
        match self {
            Event::PullRequest(e) => Some(e.number),
            Event::IssueComment(e) => e
                .issue
                .pull_request
                .as_ref()
                .map(|_| PrNumber(e.issue.number)),
            Event::CheckRun(e) => e.check_run.pull_requests.first().map(|p| p.number),
            Event::CheckSuite(e) => e.check_suite.pull_requests.first().map(|p| p.number),
            Event::MergeGroup(e) => e.merge_group.queued_pull(),
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
            Event::PullRequest(e) => Some(text(&e.action)),
            Event::IssueComment(e) => Some(text(&e.action)),
            Event::CheckRun(e) => Some(text(&e.action)),
            Event::CheckSuite(e) => Some(text(&e.action)),
            Event::MergeGroup(e) => Some(text(&e.action)),
            Event::Issues(e) => Some(text(&e.action)),
            Event::Installation { payload, .. } => payload.action.clone(),
            _ => None,
        }
    }

    #[must_use]
    pub(crate) fn installation_id(&self) -> Option<u64> {
        match self {
            Event::PullRequest(e) => e.installation.map(|i| i.id),
            Event::IssueComment(e) => e.installation.map(|i| i.id),
            Event::CheckRun(e) => e.installation.map(|i| i.id),
            Event::CheckSuite(e) => e.installation.map(|i| i.id),
            Event::MergeGroup(e) => e.installation.map(|i| i.id),
            Event::Issues(e) => e.installation.map(|i| i.id),
            Event::Installation { payload, .. } => payload.installation.map(|i| i.id),
            _ => None,
        }
    }
}
