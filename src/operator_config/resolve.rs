//! The settings resolved and checked: what `serve` and the logs run with, and what a
//! missing or invalid setting says. Every problem is found before any is reported, each
//! named by the flag or variable its value came from.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::credentials;
use super::problems::{ConfigError, Env, Problems, ReadFile};
use super::{
    LogArgs, ServeArgs, Setting, DEFAULT_API_URL, DEFAULT_LISTEN, DEFAULT_LOG,
    DEFAULT_RECONCILE_INTERVAL, DEFAULT_REDELIVER_INTERVAL, GITHUB_API_URL, LISTEN, LOG,
    LOG_FORMAT, MIN_ASSURANCE, RECONCILE_INTERVAL, REDELIVER_INTERVAL, TRUST_STORE, WRITE_GAP,
};
use crate::engine::repo_config::Assurance;
use crate::github::PrivateKey;
use crate::server::signature::WebhookSecrets;

/// The listen address: the flag, else `AUDITLOOP_LISTEN`, else `default` (serving and
/// first-run setup bind different ones; the health check reaches the serving one).
///
/// # Errors
///
/// The [`ConfigError`] naming `--listen` or `AUDITLOOP_LISTEN` when the address does not parse.
pub(crate) fn listen(
    flag: Option<String>,
    env: Env,
    default: &str,
) -> Result<SocketAddr, ConfigError> {
    let Some(given) = LISTEN.given(flag, env) else {
        return default.parse().map_err(|_| {
            ConfigError::invalid(LISTEN.name(), format!("{default:?} is not an address"))
        });
    };
    given.value.trim().parse().map_err(|_| {
        ConfigError::invalid(
            &given.from,
            format!("{:?} is not an address like {default}", given.value),
        )
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogFormat {
    Pretty,
    Json,
}

#[derive(Debug, Clone)]
pub(crate) struct LogConfig {
    pub(crate) filter: String,
    pub(crate) format: LogFormat,
}

/// Everything `serve` needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub app_id: u64,
    pub(crate) private_key: PrivateKey,
    pub webhook_secrets: WebhookSecrets,
    pub github_api_url: String,
    pub listen: SocketAddr,
    pub(crate) trust_store: Option<PathBuf>,
    pub(crate) min_assurance: Assurance,
    /// Zero when redelivery sweeps are disabled.
    pub redeliver_interval: Duration,
    /// Zero when reconcile sweeps are disabled.
    pub(crate) reconcile_interval: Duration,
    /// The least time between two writes of one installation.
    pub(crate) write_gap: Duration,
}

/// A number of seconds (`0` disables), or `default` when unset.
fn seconds(
    flag: Option<String>,
    env: Env,
    setting: &Setting,
    default: Duration,
) -> Result<Duration, ConfigError> {
    let Some(given) = setting.given(flag, env) else {
        return Ok(default);
    };
    given
        .value
        .trim()
        .parse()
        .map(Duration::from_secs)
        .map_err(|_| {
            ConfigError::invalid(
                &given.from,
                format!("{:?} is not a number of seconds (0 disables)", given.value),
            )
        })
}

fn write_gap(flag: Option<String>, env: Env) -> Result<Duration, ConfigError> {
    let Some(given) = WRITE_GAP.given(flag, env) else {
        return Ok(super::DEFAULT_WRITE_GAP);
    };
    given
        .value
        .trim()
        .parse()
        .map(Duration::from_millis)
        .map_err(|_| {
            ConfigError::invalid(
                &given.from,
                format!("{:?} is not a number of milliseconds", given.value),
            )
        })
}

fn api_url(flag: Option<String>, env: Env) -> Result<String, ConfigError> {
    let Some(given) = GITHUB_API_URL.given(flag, env) else {
        return Ok(DEFAULT_API_URL.to_owned());
    };
    crate::github::endpoint::rest_base(&given.value)
        .map_err(|why| ConfigError::invalid(&given.from, why))
}

/// The operator's least assurance; `hardened` needs a trust store, since without a
/// trusted auditor key no signed receipt verifies and every report would be refused.
fn min_assurance(
    flag: Option<String>,
    env: Env,
    trust_store: Option<&PathBuf>,
) -> Result<Assurance, ConfigError> {
    let Some(given) = MIN_ASSURANCE.given(flag, env) else {
        return Ok(Assurance::Standard);
    };
    match given.value.trim() {
        "standard" => Ok(Assurance::Standard),
        "hardened" if trust_store.is_none() => Err(ConfigError::invalid(
            &given.from,
            "hardened needs a trust store (AUDITLOOP_TRUST_STORE or --trust-store): without a trusted auditor key no receipt verifies, so every report would be refused".into(),
        )),
        "hardened" => Ok(Assurance::Hardened),
        other => Err(ConfigError::invalid(
            &given.from,
            format!("{other:?} is neither standard nor hardened"),
        )),
    }
}

impl ServeConfig {
    /// True when no App credential at all is configured (no id, key or webhook secret):
    /// `serve` then starts first-run setup. Some but not all is an error naming the rest.
    pub(crate) fn has_no_credentials(args: &ServeArgs, env: Env) -> bool {
        credentials::none_given(args, env)
    }

    /// Resolves flags and environment; `read_file` loads the PEM and the secret file when
    /// paths are given.
    ///
    /// # Errors
    ///
    /// The [`ConfigError`] naming every setting that is missing or invalid (several at once
    /// as [`ConfigError::Several`]), or a file that cannot be read.
    pub fn resolve(args: &ServeArgs, env: Env, read_file: ReadFile) -> Result<Self, ConfigError> {
        let mut problems = Problems::default();
        let app_id = credentials::app_id(args, env, &mut problems);
        let private_key = credentials::private_key(args, env, read_file, &mut problems);
        let webhook_secrets = credentials::webhook_secrets(args, env, read_file, &mut problems);
        let github_api_url = problems.take(api_url(args.github_api_url.clone(), env));
        let listen = problems.take(listen(args.listen.clone(), env, DEFAULT_LISTEN));
        let trust_store = TRUST_STORE
            .read(
                args.trust_store.as_ref().map(|p| p.display().to_string()),
                env,
            )
            .map(PathBuf::from);
        let min_assurance = problems.take(min_assurance(
            args.min_assurance.clone(),
            env,
            trust_store.as_ref(),
        ));
        let redeliver_interval = problems.take(seconds(
            args.redeliver_interval.clone(),
            env,
            &REDELIVER_INTERVAL,
            DEFAULT_REDELIVER_INTERVAL,
        ));
        let reconcile_interval = problems.take(seconds(
            args.reconcile_interval.clone(),
            env,
            &RECONCILE_INTERVAL,
            DEFAULT_RECONCILE_INTERVAL,
        ));
        let write_gap = problems.take(write_gap(args.write_gap_ms.clone(), env));
        let (
            Some(app_id),
            Some(private_key),
            Some(webhook_secrets),
            Some(github_api_url),
            Some(listen),
            Some(min_assurance),
            Some(redeliver_interval),
            Some(reconcile_interval),
            Some(write_gap),
        ) = (
            app_id,
            private_key,
            webhook_secrets,
            github_api_url,
            listen,
            min_assurance,
            redeliver_interval,
            reconcile_interval,
            write_gap,
        )
        else {
            return Err(problems.into_error().unwrap_or_else(|| {
                ConfigError::invalid("auditloop", "a setting was left unresolved".into())
            }));
        };
        Ok(Self {
            app_id,
            private_key,
            webhook_secrets,
            github_api_url,
            listen,
            trust_store,
            min_assurance,
            redeliver_interval,
            reconcile_interval,
            write_gap,
        })
    }
}

impl LogConfig {
    /// # Errors
    ///
    /// The [`ConfigError`] of a log format or filter that is invalid.
    pub(crate) fn resolve(args: &LogArgs, env: Env) -> Result<Self, ConfigError> {
        let filter = LOG
            .read(args.log.clone(), env)
            .unwrap_or_else(|| DEFAULT_LOG.to_owned());
        let format = match LOG_FORMAT.given(args.log_format.clone(), env) {
            None => LogFormat::Pretty,
            Some(given) => match given.value.trim() {
                "pretty" => LogFormat::Pretty,
                "json" => LogFormat::Json,
                other => {
                    return Err(ConfigError::invalid(
                        &given.from,
                        format!("{other:?} is neither pretty nor json"),
                    ))
                }
            },
        };
        Ok(Self { filter, format })
    }
}
