//! What `packet` and `post` share: the repository and PR, a token client, and the PR's
//! record read from the records branch.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use secrecy::SecretString;

use super::api_url;
use super::exit_codes::Usage;
use crate::engine::layout::{record_path, stored_report, IndexMap, INDEX_PATH, PATTERNS_PATH};
use crate::engine::patterns::Library;
use crate::engine::record::shards::shards_of;
use crate::engine::record::{Index, Record};
use crate::engine::repo_config::{RepoConfig, CONFIG_PATH};
use crate::github::rest::{self, FileRead};
use crate::github::token::token_api;
use crate::github::Api;
use crate::ids::{PrNumber, RepoName};
use crate::records::{self, Snapshot};

#[derive(clap::Args, Debug, Clone)]
pub(crate) struct RemoteArgs {
    /// The repository, OWNER/REPO.
    #[arg(long)]
    pub(crate) repo: RepoName,
    /// The pull request number.
    #[arg(long)]
    pub(crate) pr: u64,
    /// A token that can read the repository (and, for `post`, comment on pull requests).
    #[arg(long, env = "GITHUB_TOKEN", hide_env_values = true)]
    pub(crate) token: Option<String>,
    /// REST base URL; GitHub Enterprise Server is `https://HOST/api/v3`.
    #[arg(long, env = "GITHUB_API_URL", default_value = "https://api.github.com")]
    pub(crate) github_api_url: String,
    /// The records branch; by default the one `.github/auditloop.yml` names on the
    /// default branch.
    #[arg(long)]
    pub(crate) records_branch: Option<String>,
}

/// The token given, trimmed.
///
/// # Errors
///
/// A [`Usage`] error when none is given.
pub(crate) fn token(token: Option<&str>) -> Result<SecretString, Usage> {
    match token.map(str::trim).filter(|t| !t.is_empty()) {
        Some(token) => Ok(SecretString::from(token.to_owned())),
        None => Err(Usage("no token: pass --token or set GITHUB_TOKEN".into())),
    }
}

impl RemoteArgs {
    /// What can be checked before any call: a token and an API URL that is a URL.
    ///
    /// # Errors
    ///
    /// A [`Usage`] error naming what is wrong.
    pub(crate) fn check(&self) -> Result<(), Usage> {
        token(self.token.as_deref())?;
        api_url::checked(api_url::FLAG, &self.github_api_url)?;
        Ok(())
    }

    /// # Errors
    ///
    /// When no token is given, the API URL is no URL, or the client cannot be built.
    pub(crate) fn api(&self) -> anyhow::Result<Api> {
        let token = token(self.token.as_deref())?;
        let url = api_url::checked(api_url::FLAG, &self.github_api_url)?;
        token_api(&url, &token, Duration::from_secs(20)).map_err(|e| anyhow!("{e}"))
    }

    /// `--records-branch`, else the repository configuration's, else the default.
    ///
    /// # Errors
    ///
    /// When the repository configuration cannot be read from GitHub.
    pub(crate) async fn records_branch(&self, api: &Api) -> anyhow::Result<String> {
        if let Some(b) = &self.records_branch {
            return Ok(b.clone());
        }
        Ok(self.rules(api).await?.config.records_branch)
    }

    /// The repository's default branch and its configuration there (the rules live on
    /// the default branch, never a PR's head).
    ///
    /// # Errors
    ///
    /// When the repository or its configuration cannot be read from GitHub, or the
    /// configuration does not parse.
    pub(crate) async fn rules(&self, api: &Api) -> anyhow::Result<Rules> {
        let repo = rest::get_repo(api, &self.repo)
            .await
            .with_context(|| format!("reading {}", self.repo))?;
        let default_branch = crate::app::default_branch_or_main(repo.default_branch);
        let read = rest::read_file(api, &self.repo, CONFIG_PATH, &default_branch, None)
            .await
            .with_context(|| format!("reading {CONFIG_PATH} of {}", self.repo))?;
        let config = match read {
            FileRead::Found { text, .. } => {
                RepoConfig::from_yaml(&text).map_err(|e| anyhow!("{e}"))?
            }
            _ => RepoConfig::default(),
        };
        Ok(Rules {
            default_branch,
            config,
        })
    }
}

/// The repository's default branch and the configuration on it.
pub(crate) struct Rules {
    pub(crate) default_branch: String,
    pub(crate) config: RepoConfig,
}

/// The PR's record, the snapshot it was read from, and its stored reports by run.
pub(crate) struct PullRecords {
    pub(crate) record: Record,
    pub(crate) snapshot: Snapshot,
    pub(crate) branch: String,
    pub(crate) reports: BTreeMap<u32, serde_json::Value>,
    /// The repository's pattern library (docs/reference.md#the-pattern-library), when the branch holds one that parses.
    pub(crate) patterns: Option<Library>,
}

/// Reads the PR's record (and, with `reports`, every stored report of it and the pattern
/// library: what the packet shows).
///
/// # Errors
///
/// When a GitHub read fails or the stored record does not load.
pub(crate) async fn load(
    args: &RemoteArgs,
    api: &Api,
    reports: bool,
) -> anyhow::Result<PullRecords> {
    let branch = args.records_branch(api).await?;
    load_on(args, api, reports, branch).await
}

/// [`load`] from the records branch `branch`.
///
/// # Errors
///
/// When a GitHub read fails or the stored record does not load.
pub(crate) async fn load_on(
    args: &RemoteArgs,
    api: &Api,
    reports: bool,
    branch: String,
) -> anyhow::Result<PullRecords> {
    let pr = PrNumber(args.pr);
    // By path: the index's entry for the PR, its record, then what the record's runs name.
    let wanted = records::Named(move |files: &records::Files| {
        let mut paths = vec![INDEX_PATH.to_owned()];
        paths.extend(shards_of(IndexMap::Pulls, [pr.0.to_string().as_str()]));
        let Some(id) = records::index_of(files).and_then(|i| i.record_for_pull(pr).cloned()) else {
            return paths;
        };
        let record = record_path(&id);
        if reports {
            paths.push(PATTERNS_PATH.to_owned());
            let runs = files
                .get(&record)
                .and_then(|t| crate::engine::record::load_record(t).ok())
                .map(|r| {
                    r.runs()
                        .map(|run| stored_report(&run.report))
                        .collect::<Vec<_>>()
                });
            paths.extend(runs.unwrap_or_default());
        }
        paths.push(record);
        paths
    });
    let snapshot = records::read(api, &args.repo, &branch, wanted)
        .await
        .with_context(|| format!("reading the records branch {branch} of {}", args.repo))?;
    if snapshot.commit.is_none() {
        bail!(
            "{} has no records branch {branch}: no audit record yet",
            args.repo
        );
    }
    let index = snapshot
        .file(INDEX_PATH)
        .ok_or_else(|| anyhow!("the records branch {branch} has no index.json"))
        .and_then(|t| Index::parse(t).map_err(|e| anyhow!("index.json: {e}")))?;
    let record = match records::record_of_pull(&snapshot, &index, pr) {
        Some(Ok(record)) => record,
        Some(Err(why)) => bail!("{why}"),
        None => bail!(
            "pull request #{} of {} has no audit record",
            args.pr,
            args.repo
        ),
    };
    let mut stored = BTreeMap::new();
    for run in record.runs() {
        if let Some(v) = snapshot
            .file(&stored_report(&run.report))
            .and_then(|t| serde_json::from_str(t).ok())
        {
            stored.insert(run.run, v);
        }
    }
    let patterns = snapshot
        .file(PATTERNS_PATH)
        .and_then(|t| Library::parse(t).ok());
    Ok(PullRecords {
        record,
        snapshot,
        branch,
        reports: stored,
        patterns,
    })
}

/// Runs `task` on a small single-threaded runtime.
///
/// # Errors
///
/// When the runtime cannot start, or with `task`'s own error.
pub(crate) fn run_async<T>(
    task: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(task)
}
