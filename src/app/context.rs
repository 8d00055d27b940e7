//! What every handler works with: the installation's client, the repository, its
//! configuration from the default branch, and the delivery being handled.

use std::sync::{Arc, LazyLock};

use chrono::{DateTime, Utc};

use crate::app::memory::{Memory, Seen};
use crate::engine::repo_config::{ConfigError, RepoConfig};
use crate::engine::transition::EventContext;
use crate::engine::views::ViewContext;
use crate::github::Api;
use crate::ids::{DeliveryId, Login, RepoName};

/// The settings in force when the file is invalid: the defaults, so that views and
/// messages still name the check, branch and label a maintainer would expect.
static DEFAULTS: LazyLock<RepoConfig> = LazyLock::new(RepoConfig::default);

pub struct Ctx {
    pub api: Api,
    pub repo: RepoName,
    pub default_branch: String,
    pub delivery: DeliveryId,
    pub config: Result<RepoConfig, ConfigError>,
    /// `https://github.com`, or the Enterprise host, for links in views.
    pub html_base: String,
    pub now: DateTime<Utc>,
    /// The earliest a reply to this delivery can have been posted: its comment's creation
    /// (less a margin for clocks), else as far back as GitHub redelivers.
    pub replies_since: DateTime<Utc>,
    /// What the process remembers across deliveries.
    pub memory: Arc<Memory>,
    /// The reads this delivery made already.
    pub seen: Seen,
    /// The operator's trust store, against which kept receipts are verified again when
    /// the gate is evaluated; `None` where none is in force (a CLI run without one).
    pub trust: Option<Arc<crate::engine::receipt::TrustStore>>,
}

impl Ctx {
    /// What a change in this repository leaves for the dashboard's next flush, when the
    /// dashboard is on. No call is made here.
    pub fn dashboard_changed(&self) {
        if self.config.as_ref().is_ok_and(|c| c.dashboard) {
            self.memory
                .dashboard_changed(crate::app::memory::DashboardDue {
                    api: self.api.detached(),
                    repo: self.repo.clone(),
                    default_branch: self.default_branch.clone(),
                    html_base: self.html_base.clone(),
                });
        }
    }

    /// The repository's settings, or the defaults while its file is invalid. The one place
    /// that falls back: nothing else repeats a default.
    pub fn settings(&self) -> &RepoConfig {
        self.config.as_ref().unwrap_or(&DEFAULTS)
    }

    pub fn records_branch(&self) -> &str {
        &self.settings().records_branch
    }

    pub fn check_name(&self) -> &str {
        &self.settings().check_name
    }

    pub fn view(&self) -> ViewContext {
        ViewContext {
            html_base: self.html_base.clone(),
            repository: self.repo.clone(),
            records_branch: self.records_branch().to_owned(),
        }
    }

    pub fn event(&self, actor: &Login, comment_url: Option<String>) -> EventContext {
        EventContext {
            at: self.now,
            actor: actor.clone(),
            comment_url,
            delivery: self.delivery.clone(),
        }
    }
}

/// How far back a reply to a delivery can be: GitHub redelivers for 3 days.
pub fn replies_since(now: DateTime<Utc>, command_at: Option<&str>) -> DateTime<Utc> {
    let oldest = now - chrono::TimeDelta::days(3);
    command_at
        .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
        .map(|at| at.with_timezone(&Utc) - chrono::TimeDelta::minutes(10))
        .map_or(oldest, |at| at.max(oldest).min(now))
}

/// `https://HOST` from a repository's `html_url` (`https://HOST/OWNER/REPO`).
pub fn html_base(html_url: Option<&str>) -> String {
    html_url
        .and_then(|u| {
            let after_scheme = u.find("://")? + 3;
            let host_end = u[after_scheme..]
                .find('/')
                .map_or(u.len(), |i| after_scheme + i);
            Some(u[..host_end].to_owned())
        })
        .unwrap_or_else(|| "https://github.com".to_owned())
}
