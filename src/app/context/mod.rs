//! What every handler works with: the installation's client, the repository, its
//! configuration from the default branch, and the delivery being handled.

pub(crate) mod ahead_reads;
pub(crate) mod delivery_cache;
pub(crate) mod failure;
pub(crate) mod memory;

use std::sync::{Arc, LazyLock};

use chrono::{DateTime, Utc};
use tokio::sync::OnceCell;

use crate::app::context::delivery_cache::DeliveryCache;
use crate::app::context::memory::Memory;
use crate::engine::receipt::TrustStore;
use crate::engine::repo_config::{Assurance, ConfigError, RepoConfig};
use crate::engine::transition::EventContext;
use crate::engine::views::ViewContext;
use crate::github::{rest, Api, GitHubApp, GitHubError};
use crate::ids::{DeliveryId, Login, RepoName};

/// The settings in force when the file is invalid: the defaults, so that views and
/// messages still name the check, branch and label a maintainer would expect.
static DEFAULTS: LazyLock<RepoConfig> = LazyLock::new(RepoConfig::default);

/// What the operator set for the App, the same for every delivery of a process: the
/// minimum assurance it requires, the trust store kept receipts are verified against, and
/// who the App is on GitHub (its slug, read once, to know its own check runs). Not
/// `engine::policy`, which says who may run which command.
#[derive(Clone)]
pub(crate) struct Operator {
    pub(crate) min_assurance: Assurance,
    /// `None` where none is in force (a CLI run without one).
    pub(crate) trust: Option<Arc<TrustStore>>,
    identity: Option<Arc<Identity>>,
}

/// The App as GitHub knows it: its slug, read once through its JWT.
struct Identity {
    github: Arc<GitHubApp>,
    slug: OnceCell<String>,
}

impl Operator {
    /// The operator's settings of the App `github` is.
    pub(crate) fn of_app(
        github: Arc<GitHubApp>,
        trust: TrustStore,
        operator_min: Assurance,
    ) -> Self {
        Self {
            min_assurance: operator_min,
            trust: Some(Arc::new(trust)),
            identity: Some(Arc::new(Identity {
                github,
                slug: OnceCell::new(),
            })),
        }
    }

    /// The settings of a run outside the App (`status`, the MCP server): no App identity.
    pub(crate) fn outside(operator_min: Assurance, trust: Option<&TrustStore>) -> Self {
        Self {
            min_assurance: operator_min,
            trust: trust.map(|t| Arc::new(t.clone())),
            identity: None,
        }
    }

    /// The App's slug, read once from `GET /app`.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when `GET /app` fails, or outside the App, which has no identity.
    pub(crate) async fn slug(&self, api: &Api) -> Result<&str, GitHubError> {
        let Some(identity) = &self.identity else {
            return Err(GitHubError::Setup(
                "no App identity outside the App: its slug is unknown".to_owned(),
            ));
        };
        identity
            .slug
            .get_or_try_init(|| async {
                let app = identity.github.app_api(api.delivery().cloned());
                rest::app_slug(&app).await
            })
            .await
            .map(String::as_str)
    }
}

/// Where a context's work comes from: a webhook delivery, or the App's own work with the
/// name its claims and events carry in place of a delivery id.
pub(crate) enum Origin<'a> {
    /// A delivery, with its comment's creation time when it is a command, and how many
    /// earlier deliveries of its pull request are not carried out yet.
    Delivery {
        id: &'a DeliveryId,
        command_at: Option<&'a str>,
        pr_ahead: u32,
    },
    /// The reconcile sweep.
    Sweep,
    /// The dashboard's rebuild: one name every replica shares, so that its claims agree.
    Dashboard,
    /// `auditloop status` and the MCP server's reads.
    Status,
}

impl Origin<'_> {
    fn delivery_id(&self) -> DeliveryId {
        match self {
            Origin::Delivery { id, .. } => (*id).clone(),
            Origin::Sweep => DeliveryId("reconcile".to_owned()),
            Origin::Dashboard => DeliveryId("dashboard".to_owned()),
            Origin::Status => DeliveryId("auditloop-status".to_owned()),
        }
    }
}

/// The repository a context serves, as the event or listing named it.
pub(crate) struct Place {
    pub(crate) api: Api,
    pub(crate) repo: RepoName,
    pub(crate) default_branch: String,
    /// `https://github.com`, or the Enterprise host, for links in views.
    pub(crate) html_base: String,
}

impl Place {
    /// `repo` as GitHub describes it (a payload's `repository`, `GET /repos/{owner}/{repo}`):
    /// its default branch, `main` when the description leaves it out, and its host.
    pub(crate) fn new(
        api: Api,
        repo: RepoName,
        default_branch: Option<String>,
        html_url: Option<&str>,
    ) -> Self {
        Self {
            api,
            repo,
            default_branch: default_branch_or_main(default_branch),
            html_base: html_base(html_url),
        }
    }
}

/// The default branch GitHub named, or `main` where an answer leaves it out: the one place
/// that guesses.
pub(crate) fn default_branch_or_main(named: Option<String>) -> String {
    named.unwrap_or_else(|| "main".to_owned())
}

pub(crate) struct Ctx {
    pub(crate) api: Api,
    pub(crate) repo: RepoName,
    pub(crate) default_branch: String,
    pub(crate) delivery: DeliveryId,
    pub(crate) config: Result<RepoConfig, ConfigError>,
    /// `https://github.com`, or the Enterprise host, for links in views.
    pub(crate) html_base: String,
    pub(crate) now: DateTime<Utc>,
    /// The earliest a reply to this delivery can have been posted: its comment's creation
    /// (less a margin for clocks), else as far back as GitHub redelivers.
    pub(crate) replies_since: DateTime<Utc>,
    /// What the process remembers across deliveries.
    pub(crate) memory: Arc<Memory>,
    /// The reads this delivery made already.
    pub(crate) delivery_cache: DeliveryCache,
    /// The App's operator: minimum assurance, trust store, slug.
    pub(crate) operator: Operator,
    /// Earlier deliveries of the same pull request not carried out yet (queued).
    pub(crate) pr_ahead: u32,
}

impl Ctx {
    /// The one way a context is made: for `origin`'s work on `place`, under `config`.
    pub(crate) fn new(
        place: Place,
        origin: &Origin<'_>,
        config: Result<RepoConfig, ConfigError>,
        operator: Operator,
        memory: Arc<Memory>,
    ) -> Self {
        let now = Utc::now();
        let (command_at, pr_ahead) = match origin {
            Origin::Delivery {
                command_at,
                pr_ahead,
                ..
            } => (*command_at, *pr_ahead),
            _ => (None, 0),
        };
        Self {
            api: place.api,
            repo: place.repo,
            default_branch: place.default_branch,
            delivery: origin.delivery_id(),
            config,
            html_base: place.html_base,
            now,
            replies_since: replies_since(now, command_at),
            memory,
            delivery_cache: DeliveryCache::default(),
            operator,
            pr_ahead,
        }
    }

    /// The same repository and time for another origin's work, with nothing seen yet.
    #[must_use]
    pub(crate) fn for_origin(&self, origin: &Origin<'_>) -> Self {
        Self {
            api: self.api.clone(),
            repo: self.repo.clone(),
            default_branch: self.default_branch.clone(),
            delivery: origin.delivery_id(),
            config: self.config.clone(),
            html_base: self.html_base.clone(),
            now: self.now,
            replies_since: self.replies_since,
            memory: self.memory.clone(),
            delivery_cache: DeliveryCache::default(),
            operator: self.operator.clone(),
            pr_ahead: 0,
        }
    }

    /// The App's slug (see [`Operator::slug`]).
    ///
    /// # Errors
    ///
    /// As [`Operator::slug`].
    pub(crate) async fn bot_slug(&self) -> Result<&str, GitHubError> {
        self.operator.slug(&self.api).await
    }

    /// What a change in this repository leaves for the dashboard's next flush, when the
    /// dashboard is on. No call is made here.
    pub(crate) fn dashboard_changed(&self) {
        if self.config.as_ref().is_ok_and(|c| c.dashboard) {
            self.memory
                .dashboard_changed(crate::app::context::memory::DashboardDue {
                    api: self.api.detached(),
                    repo: self.repo.clone(),
                    default_branch: self.default_branch.clone(),
                    html_base: self.html_base.clone(),
                });
        }
    }

    /// The repository's settings, or the defaults while its file is invalid. The one place
    /// that falls back: nothing else repeats a default.
    pub(crate) fn settings(&self) -> &RepoConfig {
        self.config.as_ref().unwrap_or(&DEFAULTS)
    }

    pub(crate) fn records_branch(&self) -> &str {
        &self.settings().records_branch
    }

    pub(crate) fn check_name(&self) -> &str {
        &self.settings().check_name
    }

    pub(crate) fn view(&self) -> ViewContext {
        ViewContext {
            html_base: self.html_base.clone(),
            repository: self.repo.clone(),
            records_branch: self.records_branch().to_owned(),
        }
    }

    pub(crate) fn event(&self, actor: &Login, comment_url: Option<String>) -> EventContext {
        EventContext {
            at: self.now,
            actor: actor.clone(),
            comment_url,
            delivery: self.delivery.clone(),
        }
    }
}

/// How far back a reply to a delivery can be: GitHub redelivers for 3 days.
pub(crate) fn replies_since(now: DateTime<Utc>, command_at: Option<&str>) -> DateTime<Utc> {
    let oldest = now - chrono::TimeDelta::days(3);
    command_at
        .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
        .map(|at| at.with_timezone(&Utc) - chrono::TimeDelta::minutes(10))
        .map_or(oldest, |at| at.max(oldest).min(now))
}

/// `https://HOST` from a repository's `html_url` (`https://HOST/OWNER/REPO`).
pub(crate) fn html_base(html_url: Option<&str>) -> String {
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
