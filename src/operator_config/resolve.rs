//! The settings resolved and checked: what `serve` and the logs run with, and what a
//! missing or invalid setting says.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use secrecy::SecretString;

use super::{
    LogArgs, ServeArgs, Setting, APP_ID, DEFAULT_API_URL, DEFAULT_LISTEN, DEFAULT_LOG,
    DEFAULT_RECONCILE_INTERVAL, DEFAULT_REDELIVER_INTERVAL, GITHUB_API_URL, LISTEN, LOG,
    LOG_FORMAT, MIN_ASSURANCE, PRIVATE_KEY, PRIVATE_KEY_PATH, RECONCILE_INTERVAL,
    REDELIVER_INTERVAL, TRUST_STORE, WEBHOOK_SECRET, WEBHOOK_SECRET_FILE, WRITE_GAP,
};
use crate::engine::repo_config::Assurance;
use crate::github::PrivateKey;
use crate::server::signature::WebhookSecrets;

/// The listen address: the flag, else `AUDITLOOP_LISTEN`, else `default` (serving and
/// first-run setup bind different ones; the health check reaches the serving one).
///
/// # Errors
///
/// The [`ConfigError`] naming `AUDITLOOP_LISTEN` when the address does not parse.
pub(crate) fn listen(
    flag: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
    default: &str,
) -> Result<SocketAddr, ConfigError> {
    let text = LISTEN.read(flag, env).unwrap_or_else(|| default.to_owned());
    text.trim().parse().map_err(|_| ConfigError::Invalid {
        setting: LISTEN.name(),
        message: format!("{text:?} is not an address like {default}"),
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

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Names every missing setting, with its flag and environment names, on one line.
    #[error("missing {}. Set them as flags, environment variables or in .env (run `auditloop setup` to register the GitHub App; https://github.com/auditloop/auditloop/blob/main/docs/operations.md tells more)", .0.join("; "))]
    Missing(Vec<&'static str>),
    #[error("{setting}: {message}")]
    Invalid {
        setting: &'static str,
        message: String,
    },
}

const MISSING_APP_ID: &str = "AUDITLOOP_APP_ID (--app-id, or APP_ID)";
const MISSING_PRIVATE_KEY: &str = "AUDITLOOP_PRIVATE_KEY or AUDITLOOP_PRIVATE_KEY_PATH (--private-key, --private-key-path, or PRIVATE_KEY, PRIVATE_KEY_PATH)";
const MISSING_WEBHOOK_SECRET: &str = "AUDITLOOP_WEBHOOK_SECRET or AUDITLOOP_WEBHOOK_SECRET_FILE (--webhook-secret, --webhook-secret-file, or WEBHOOK_SECRET)";

/// A number of seconds (`0` disables), or `default` when unset.
fn seconds(
    flag: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
    setting: &Setting,
    default: Duration,
) -> Result<Duration, ConfigError> {
    match setting.read(flag, env) {
        None => Ok(default),
        Some(text) => {
            text.trim()
                .parse()
                .map(Duration::from_secs)
                .map_err(|_| ConfigError::Invalid {
                    setting: setting.name(),
                    message: format!("{text:?} is not a number of seconds (0 disables)"),
                })
        }
    }
}

/// The webhook secret(s): given inline, or read from the file a secret is mounted as.
/// Both at once is refused rather than one silently winning.
fn webhook_secret(
    args: &ServeArgs,
    env: &dyn Fn(&str) -> Option<String>,
    read_file: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
) -> Result<Option<String>, ConfigError> {
    let inline = WEBHOOK_SECRET.read(args.webhook_secret.clone(), env);
    let file = WEBHOOK_SECRET_FILE.read(
        args.webhook_secret_file
            .as_ref()
            .map(|p| p.display().to_string()),
        env,
    );
    match (inline, file) {
        (Some(_), Some(_)) => Err(ConfigError::Invalid {
            setting: WEBHOOK_SECRET_FILE.name(),
            message: "given together with AUDITLOOP_WEBHOOK_SECRET (--webhook-secret-file and --webhook-secret): give the secret one way only".into(),
        }),
        (inline, None) => Ok(inline),
        (None, Some(path)) => {
            // The error names the path only: the content is the secret.
            let text = read_file(std::path::Path::new(&path)).map_err(|e| ConfigError::Invalid {
                setting: WEBHOOK_SECRET_FILE.name(),
                message: format!("cannot read {path}: {e}"),
            })?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if WebhookSecrets::parse(text).is_none() {
                return Err(ConfigError::Invalid {
                    setting: WEBHOOK_SECRET_FILE.name(),
                    message: format!("{path} holds no secret"),
                });
            }
            Ok(Some(text.to_owned()))
        }
    }
}

impl ServeConfig {
    /// True when no App credential at all is configured: `serve` then points to `setup`.
    pub(crate) fn has_no_credentials(
        args: &ServeArgs,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> bool {
        APP_ID.read(args.app_id.clone(), env).is_none()
            && PRIVATE_KEY.read(args.private_key.clone(), env).is_none()
            && PRIVATE_KEY_PATH
                .read(
                    args.private_key_path
                        .as_ref()
                        .map(|p| p.display().to_string()),
                    env,
                )
                .is_none()
    }

    /// Resolves flags and environment; `read_file` loads the PEM when a path is given.
    ///
    /// # Errors
    ///
    /// The [`ConfigError`] naming each setting that is missing or invalid, or a key file that cannot be read.
    pub fn resolve(
        args: &ServeArgs,
        env: &dyn Fn(&str) -> Option<String>,
        read_file: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
    ) -> Result<Self, ConfigError> {
        let app_id = APP_ID.read(args.app_id.clone(), env);
        let key_inline = PRIVATE_KEY.read(args.private_key.clone(), env);
        let key_path = PRIVATE_KEY_PATH.read(
            args.private_key_path
                .as_ref()
                .map(|p| p.display().to_string()),
            env,
        );
        let secret = webhook_secret(args, env, read_file)?;

        let mut missing = Vec::new();
        if app_id.is_none() {
            missing.push(MISSING_APP_ID);
        }
        if key_inline.is_none() && key_path.is_none() {
            missing.push(MISSING_PRIVATE_KEY);
        }
        let secrets = secret.as_deref().and_then(WebhookSecrets::parse);
        if secrets.is_none() {
            missing.push(MISSING_WEBHOOK_SECRET);
        }
        let (Some(app_id), Some(webhook_secrets)) = (app_id, secrets) else {
            return Err(ConfigError::Missing(missing));
        };
        if !missing.is_empty() {
            return Err(ConfigError::Missing(missing));
        }

        let app_id = app_id
            .trim()
            .parse::<u64>()
            .map_err(|_| ConfigError::Invalid {
                setting: APP_ID.name(),
                message: "must be the App's numeric id".into(),
            })?;
        let pem = match (key_inline, key_path) {
            // Inline keys often arrive with literal `\n` from .env files.
            (Some(inline), _) => inline.replace("\\n", "\n"),
            (None, Some(path)) => {
                read_file(std::path::Path::new(&path)).map_err(|e| ConfigError::Invalid {
                    setting: PRIVATE_KEY_PATH.name(),
                    message: format!("cannot read {path}: {e}"),
                })?
            }
            (None, None) => unreachable!("checked above"),
        };
        if !pem.contains("-----BEGIN") {
            return Err(ConfigError::Invalid {
                setting: PRIVATE_KEY.name(),
                message: "is not a PEM private key (expected -----BEGIN RSA PRIVATE KEY-----)"
                    .into(),
            });
        }

        let github_api_url = GITHUB_API_URL
            .read(args.github_api_url.clone(), env)
            .unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        let parsed: http::Uri = github_api_url.parse().map_err(|_| ConfigError::Invalid {
            setting: GITHUB_API_URL.name(),
            message: format!("{github_api_url:?} is not a URL"),
        })?;
        if parsed.scheme().is_none() || parsed.host().is_none() {
            return Err(ConfigError::Invalid {
                setting: GITHUB_API_URL.name(),
                message: format!("{github_api_url:?} needs a scheme and host, e.g. https://ghe.example.com/api/v3"),
            });
        }

        let listen = listen(args.listen.clone(), env, DEFAULT_LISTEN)?;

        let trust_store = TRUST_STORE
            .read(
                args.trust_store.as_ref().map(|p| p.display().to_string()),
                env,
            )
            .map(PathBuf::from);

        let min_assurance = match MIN_ASSURANCE
            .read(args.min_assurance.clone(), env)
            .as_deref()
        {
            None | Some("standard") => Assurance::Standard,
            Some("hardened") => Assurance::Hardened,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    setting: MIN_ASSURANCE.name(),
                    message: format!("{other:?} is neither standard nor hardened"),
                })
            }
        };

        let redeliver_interval = seconds(
            args.redeliver_interval.clone(),
            env,
            &REDELIVER_INTERVAL,
            DEFAULT_REDELIVER_INTERVAL,
        )?;
        let reconcile_interval = seconds(
            args.reconcile_interval.clone(),
            env,
            &RECONCILE_INTERVAL,
            DEFAULT_RECONCILE_INTERVAL,
        )?;

        let write_gap = match WRITE_GAP.read(args.write_gap_ms.clone(), env) {
            None => super::DEFAULT_WRITE_GAP,
            Some(text) => text
                .trim()
                .parse()
                .map(Duration::from_millis)
                .map_err(|_| ConfigError::Invalid {
                    setting: WRITE_GAP.name(),
                    message: format!("{text:?} is not a number of milliseconds"),
                })?,
        };

        Ok(Self {
            app_id,
            private_key: PrivateKey(SecretString::from(pem)),
            webhook_secrets,
            github_api_url: github_api_url.trim_end_matches('/').to_owned(),
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
    pub(crate) fn resolve(
        args: &LogArgs,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let filter = LOG
            .read(args.log.clone(), env)
            .unwrap_or_else(|| DEFAULT_LOG.to_owned());
        let format = match LOG_FORMAT.read(args.log_format.clone(), env).as_deref() {
            None | Some("pretty") => LogFormat::Pretty,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    setting: LOG_FORMAT.name(),
                    message: format!("{other:?} is neither pretty nor json"),
                })
            }
        };
        Ok(Self { filter, format })
    }
}
