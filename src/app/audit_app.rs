//! The App itself: its GitHub client, its policy (trust store, minimum assurance), its slug
//! and the configuration cache. Apart from the delivery path in `app/mod.rs`, so that the
//! rooms that take an `&AuditApp` name this file and not the one that calls them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::app::context::memory;
use crate::app::context::{self, Ctx, Operator, Origin, Place};
use crate::delivery::Delivery;
use crate::engine::receipt::TrustStore;
use crate::engine::repo_config::{Assurance, ConfigError, RepoConfig, CONFIG_PATH};
use crate::events::WebhookEvent;
use crate::github::first_reads::ConfigBlob;
use crate::github::rest::{self, FileRead};
use crate::github::{Api, GitHubApp, GitHubError};
use crate::ids::RepoName;

pub(super) type CachedConfig = (Validator, Result<RepoConfig, ConfigError>);

/// What tells a cached configuration is still the file's.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Validator {
    /// No file, or REST gave no `ETag`.
    None,
    /// REST's `ETag`, sent back as `If-None-Match`.
    ETag(String),
    /// The blob SHA, when GraphQL read the file.
    Blob(String),
}

pub struct AuditApp {
    pub(super) github: Arc<GitHubApp>,
    /// The policy every context of this App carries (see [`Operator`]).
    pub(super) operator: Operator,
    /// `.github/auditloop.yml` per repository, revalidated with its `ETag` on every event
    /// (a 304 costs no rate limit).
    pub(super) configs: Mutex<HashMap<String, CachedConfig>>,
    pub(super) memory: Arc<memory::Memory>,
}

impl AuditApp {
    pub fn new(github: Arc<GitHubApp>) -> Self {
        Self::with_policy(github, TrustStore::default(), Assurance::Standard)
    }

    pub fn with_policy(github: Arc<GitHubApp>, trust: TrustStore, operator_min: Assurance) -> Self {
        Self {
            operator: Operator::of_app(github.clone(), trust, operator_min),
            github,
            configs: Mutex::new(HashMap::new()),
            memory: Arc::new(memory::Memory::default()),
        }
    }

    /// How many times this process evaluated a PR's gate: once for each change of a PR's
    /// views (a PR sharing the head counts its own).
    #[must_use]
    pub fn gate_evaluations(&self) -> u64 {
        self.memory.gate_evaluations()
    }

    pub(crate) fn app_id(&self) -> u64 {
        self.github.app_id()
    }

    /// The context of `origin`'s work on `place`: the one constructor, with this App's
    /// policy and memory.
    pub(super) fn ctx(
        &self,
        place: Place,
        origin: &Origin<'_>,
        config: Result<RepoConfig, ConfigError>,
    ) -> Ctx {
        Ctx::new(
            place,
            origin,
            config,
            self.operator.clone(),
            self.memory.clone(),
        )
    }

    pub(super) async fn caused_by_self(
        &self,
        delivery: &Delivery,
        api: &Api,
    ) -> Result<bool, GitHubError> {
        let sender = match &delivery.event {
            WebhookEvent::PullRequest(e) => &e.sender,
            WebhookEvent::IssueComment(e) => &e.comment.user,
            WebhookEvent::CheckRun(e) => &e.sender,
            WebhookEvent::CheckSuite(e) => &e.sender,
            WebhookEvent::MergeGroup(e) => &e.sender,
            WebhookEvent::Issues(e) => &e.sender,
            _ => return Ok(false),
        };
        if sender.kind.as_deref() != Some("Bot") {
            return Ok(false);
        }
        let slug = self.operator.slug(api).await?;
        Ok(sender.login.eq_ignore_ascii_case(&format!("{slug}[bot]")))
    }

    /// A closed PR leaves the dashboard's open set: its repository's dashboard is rebuilt,
    /// when the configuration this process last read turns it on. No call is made here.
    pub(super) async fn pull_closed(&self, e: &crate::events::PullRequestEvent) {
        let Some(installation) = e.installation.as_ref().map(|i| i.id) else {
            return;
        };
        let Ok(repo) = RepoName::new(e.repository.full_name.clone()) else {
            return;
        };
        let on = self
            .configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&repo.as_str().to_ascii_lowercase())
            .is_some_and(|(_, c)| c.as_ref().is_ok_and(|c| c.dashboard));
        if !on {
            return;
        }
        // The installation's client comes from the token cache.
        let Ok(api) = self.github.installation(installation, None).await else {
            return;
        };
        self.memory.dashboard_changed(memory::DashboardDue {
            api,
            default_branch: context::default_branch_or_main(e.repository.default_branch.clone()),
            html_base: context::html_base(e.repository.html_url.as_deref()),
            repo,
        });
    }

    /// The repository configuration from the default branch, never from a PR's head.
    pub(super) async fn config(
        &self,
        api: &Api,
        repo: &RepoName,
        default_branch: &str,
    ) -> Result<Result<RepoConfig, ConfigError>, GitHubError> {
        let key = repo.as_str().to_ascii_lowercase();
        let cached = self
            .configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        let etag = match &cached {
            Some((Validator::ETag(tag), _)) => Some(tag.as_str()),
            _ => None,
        };
        let parsed = match rest::read_file(api, repo, CONFIG_PATH, default_branch, etag).await? {
            FileRead::NotModified => match cached {
                Some((_, parsed)) => return Ok(parsed),
                None => return Ok(Ok(RepoConfig::default())),
            },
            FileRead::Missing => (Validator::None, Ok(RepoConfig::default())),
            FileRead::Found { text, etag } => (
                etag.filter(|t| !t.is_empty())
                    .map_or(Validator::None, Validator::ETag),
                RepoConfig::from_yaml(&text),
            ),
        };
        self.configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, parsed.clone());
        Ok(parsed.1)
    }

    /// The configuration from the file the first reads brought, parsed again only when its
    /// blob changed.
    pub(super) fn config_from(
        &self,
        repo: &RepoName,
        blob: ConfigBlob,
    ) -> Result<RepoConfig, ConfigError> {
        let key = repo.as_str().to_ascii_lowercase();
        let mut configs = self
            .configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (validator, parsed) = match blob {
            ConfigBlob::Missing => (Validator::None, Ok(RepoConfig::default())),
            ConfigBlob::Found { oid, text } => {
                let validator = Validator::Blob(oid);
                match configs.get(&key) {
                    Some((v, parsed)) if *v == validator => return parsed.clone(),
                    _ => (validator, RepoConfig::from_yaml(&text)),
                }
            }
        };
        configs.insert(key, (validator, parsed.clone()));
        parsed
    }

    /// The configuration last read for `repo`, to start reads that depend on it (the
    /// records branch) while it is read again; they are redone if it changed.
    pub(super) fn last_config(&self, repo: &RepoName) -> Result<RepoConfig, ConfigError> {
        let key = repo.as_str().to_ascii_lowercase();
        let configs = self
            .configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match configs.get(&key) {
            Some((_, parsed)) => parsed.clone(),
            None => Ok(RepoConfig::default()),
        }
    }
}
