//! Operator configuration (docs/reference.md#operator-configuration): flags, then `AUDITLOOP_*` environment variables,
//! then Probot's names, then a `.env` file (loaded into the environment at start-up without
//! overriding what is already set). Secrets are held in `secrecy` types and never printed.

use std::net::SocketAddr;
use std::path::PathBuf;

use secrecy::SecretString;

use crate::engine::repo_config::Assurance;
use crate::github::PrivateKey;
use crate::server::signature::WebhookSecrets;

/// The flags of `auditloop serve`; every one may also come from the environment.
// The field docs are the `--help` text, written as the user reads it, not as markdown.
#[allow(clippy::doc_markdown)]
#[derive(clap::Args, Clone, Default)]
pub struct ServeArgs {
    /// GitHub App id [env: AUDITLOOP_APP_ID, APP_ID]
    #[arg(long)]
    pub app_id: Option<String>,
    /// The App's PEM private key, inline [env: AUDITLOOP_PRIVATE_KEY, PRIVATE_KEY]
    #[arg(long)]
    pub private_key: Option<String>,
    /// Path to the App's PEM private key [env: AUDITLOOP_PRIVATE_KEY_PATH, PRIVATE_KEY_PATH]
    #[arg(long)]
    pub private_key_path: Option<PathBuf>,
    /// Webhook secret; several, comma-separated, while rotating [env: AUDITLOOP_WEBHOOK_SECRET, WEBHOOK_SECRET]
    #[arg(long)]
    pub webhook_secret: Option<String>,
    /// File holding the webhook secret(s), as Docker and Kubernetes mount them; trailing newline trimmed [env: AUDITLOOP_WEBHOOK_SECRET_FILE]
    #[arg(long)]
    pub webhook_secret_file: Option<PathBuf>,
    /// REST base URL; GitHub Enterprise Server is https://HOST/api/v3 [env: AUDITLOOP_GITHUB_API_URL]
    #[arg(long)]
    pub github_api_url: Option<String>,
    /// Address to bind [env: AUDITLOOP_LISTEN] [default: 0.0.0.0:3000 when serving; 127.0.0.1:3000 while the first run's setup page is up]
    #[arg(long)]
    pub listen: Option<String>,
    /// Operator-pinned Ed25519 auditor keys (TOML) [env: AUDITLOOP_TRUST_STORE]
    #[arg(long)]
    pub trust_store: Option<PathBuf>,
    /// standard or hardened; a repository can raise it, never lower it [env: AUDITLOOP_MIN_ASSURANCE]
    #[arg(long)]
    pub min_assurance: Option<String>,
    /// Seconds between sweeps that ask GitHub to redeliver failed deliveries; 0 disables [env: AUDITLOOP_REDELIVER_INTERVAL] [default: 300]
    #[arg(long)]
    pub redeliver_interval: Option<String>,
    /// Seconds between sweeps that republish views that fell behind their records (also once at start); 0 disables [env: AUDITLOOP_RECONCILE_INTERVAL] [default: 600]
    #[arg(long)]
    pub reconcile_interval: Option<String>,
}

/// Logging flags, shared by every subcommand.
// The field docs are the `--help` text, written as the user reads it, not as markdown.
#[allow(clippy::doc_markdown)]
#[derive(clap::Args, Clone, Default, Debug)]
pub struct LogArgs {
    /// Log filter in tracing env-filter syntax [env: AUDITLOOP_LOG] [default: info]
    #[arg(long, global = true)]
    pub log: Option<String>,
    /// pretty or json [env: AUDITLOOP_LOG_FORMAT] [default: pretty]
    #[arg(long, global = true)]
    pub log_format: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

#[derive(Debug, Clone)]
pub struct LogConfig {
    pub filter: String,
    pub format: LogFormat,
}

/// Everything `serve` needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub app_id: u64,
    pub private_key: PrivateKey,
    pub webhook_secrets: WebhookSecrets,
    pub github_api_url: String,
    pub listen: SocketAddr,
    pub trust_store: Option<PathBuf>,
    pub min_assurance: Assurance,
    /// Zero when redelivery sweeps are disabled.
    pub redeliver_interval: std::time::Duration,
    /// Zero when reconcile sweeps are disabled.
    pub reconcile_interval: std::time::Duration,
}

pub const DEFAULT_API_URL: &str = "https://api.github.com";
pub const DEFAULT_LISTEN: &str = "0.0.0.0:3000";
/// Between redelivery sweeps unless the operator sets an interval.
pub const DEFAULT_REDELIVER_INTERVAL: std::time::Duration = std::time::Duration::from_secs(300);
/// Between reconcile sweeps unless the operator sets an interval.
pub const DEFAULT_RECONCILE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(600);

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

const APP_ID: &str = "AUDITLOOP_APP_ID (--app-id, or APP_ID)";
const PRIVATE_KEY: &str = "AUDITLOOP_PRIVATE_KEY or AUDITLOOP_PRIVATE_KEY_PATH (--private-key, --private-key-path, or PRIVATE_KEY, PRIVATE_KEY_PATH)";
const WEBHOOK_SECRET: &str = "AUDITLOOP_WEBHOOK_SECRET or AUDITLOOP_WEBHOOK_SECRET_FILE (--webhook-secret, --webhook-secret-file, or WEBHOOK_SECRET)";

/// Reads a setting: the flag, else the environment variable, else Probot's fallback name.
fn pick(
    flag: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
    names: &[&str],
) -> Option<String> {
    flag.or_else(|| names.iter().find_map(|n| env(n)))
        .filter(|v| !v.trim().is_empty())
}

/// A number of seconds (`0` disables), or `default` when unset.
fn seconds(
    flag: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
    setting: &'static str,
    default: std::time::Duration,
) -> Result<std::time::Duration, ConfigError> {
    match pick(flag, env, &[setting]) {
        None => Ok(default),
        Some(text) => text
            .trim()
            .parse()
            .map(std::time::Duration::from_secs)
            .map_err(|_| ConfigError::Invalid {
                setting,
                message: format!("{text:?} is not a number of seconds (0 disables)"),
            }),
    }
}

/// The webhook secret(s): given inline, or read from the file a secret is mounted as.
/// Both at once is refused rather than one silently winning.
fn webhook_secret(
    args: &ServeArgs,
    env: &dyn Fn(&str) -> Option<String>,
    read_file: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
) -> Result<Option<String>, ConfigError> {
    let inline = pick(
        args.webhook_secret.clone(),
        env,
        &["AUDITLOOP_WEBHOOK_SECRET", "WEBHOOK_SECRET"],
    );
    let file = pick(
        args.webhook_secret_file
            .as_ref()
            .map(|p| p.display().to_string()),
        env,
        &["AUDITLOOP_WEBHOOK_SECRET_FILE"],
    );
    match (inline, file) {
        (Some(_), Some(_)) => Err(ConfigError::Invalid {
            setting: "AUDITLOOP_WEBHOOK_SECRET_FILE",
            message: "given together with AUDITLOOP_WEBHOOK_SECRET (--webhook-secret-file and --webhook-secret): give the secret one way only".into(),
        }),
        (inline, None) => Ok(inline),
        (None, Some(path)) => {
            // The error names the path only: the content is the secret.
            let text = read_file(std::path::Path::new(&path)).map_err(|e| ConfigError::Invalid {
                setting: "AUDITLOOP_WEBHOOK_SECRET_FILE",
                message: format!("cannot read {path}: {e}"),
            })?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if WebhookSecrets::parse(text).is_none() {
                return Err(ConfigError::Invalid {
                    setting: "AUDITLOOP_WEBHOOK_SECRET_FILE",
                    message: format!("{path} holds no secret"),
                });
            }
            Ok(Some(text.to_owned()))
        }
    }
}

impl ServeConfig {
    /// True when no App credential at all is configured: `serve` then points to `setup`.
    pub fn has_no_credentials(args: &ServeArgs, env: &dyn Fn(&str) -> Option<String>) -> bool {
        pick(args.app_id.clone(), env, &["AUDITLOOP_APP_ID", "APP_ID"]).is_none()
            && pick(
                args.private_key.clone(),
                env,
                &["AUDITLOOP_PRIVATE_KEY", "PRIVATE_KEY"],
            )
            .is_none()
            && pick(
                args.private_key_path
                    .as_ref()
                    .map(|p| p.display().to_string()),
                env,
                &["AUDITLOOP_PRIVATE_KEY_PATH", "PRIVATE_KEY_PATH"],
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
        let app_id = pick(args.app_id.clone(), env, &["AUDITLOOP_APP_ID", "APP_ID"]);
        let key_inline = pick(
            args.private_key.clone(),
            env,
            &["AUDITLOOP_PRIVATE_KEY", "PRIVATE_KEY"],
        );
        let key_path = pick(
            args.private_key_path
                .as_ref()
                .map(|p| p.display().to_string()),
            env,
            &["AUDITLOOP_PRIVATE_KEY_PATH", "PRIVATE_KEY_PATH"],
        );
        let secret = webhook_secret(args, env, read_file)?;

        let mut missing = Vec::new();
        if app_id.is_none() {
            missing.push(APP_ID);
        }
        if key_inline.is_none() && key_path.is_none() {
            missing.push(PRIVATE_KEY);
        }
        let secrets = secret.as_deref().and_then(WebhookSecrets::parse);
        if secrets.is_none() {
            missing.push(WEBHOOK_SECRET);
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
                setting: "AUDITLOOP_APP_ID",
                message: "must be the App's numeric id".into(),
            })?;
        let pem = match (key_inline, key_path) {
            // Inline keys often arrive with literal `\n` from .env files.
            (Some(inline), _) => inline.replace("\\n", "\n"),
            (None, Some(path)) => {
                read_file(std::path::Path::new(&path)).map_err(|e| ConfigError::Invalid {
                    setting: "AUDITLOOP_PRIVATE_KEY_PATH",
                    message: format!("cannot read {path}: {e}"),
                })?
            }
            (None, None) => unreachable!("checked above"),
        };
        if !pem.contains("-----BEGIN") {
            return Err(ConfigError::Invalid {
                setting: "AUDITLOOP_PRIVATE_KEY",
                message: "is not a PEM private key (expected -----BEGIN RSA PRIVATE KEY-----)"
                    .into(),
            });
        }

        let github_api_url = pick(
            args.github_api_url.clone(),
            env,
            &["AUDITLOOP_GITHUB_API_URL"],
        )
        .unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        let parsed: http::Uri = github_api_url.parse().map_err(|_| ConfigError::Invalid {
            setting: "AUDITLOOP_GITHUB_API_URL",
            message: format!("{github_api_url:?} is not a URL"),
        })?;
        if parsed.scheme().is_none() || parsed.host().is_none() {
            return Err(ConfigError::Invalid {
                setting: "AUDITLOOP_GITHUB_API_URL",
                message: format!("{github_api_url:?} needs a scheme and host, e.g. https://ghe.example.com/api/v3"),
            });
        }

        let listen_text = pick(args.listen.clone(), env, &["AUDITLOOP_LISTEN"])
            .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen = listen_text.parse().map_err(|_| ConfigError::Invalid {
            setting: "AUDITLOOP_LISTEN",
            message: format!("{listen_text:?} is not an address like 0.0.0.0:3000"),
        })?;

        let trust_store = pick(
            args.trust_store.as_ref().map(|p| p.display().to_string()),
            env,
            &["AUDITLOOP_TRUST_STORE"],
        )
        .map(PathBuf::from);

        let min_assurance = match pick(
            args.min_assurance.clone(),
            env,
            &["AUDITLOOP_MIN_ASSURANCE"],
        )
        .as_deref()
        {
            None | Some("standard") => Assurance::Standard,
            Some("hardened") => Assurance::Hardened,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    setting: "AUDITLOOP_MIN_ASSURANCE",
                    message: format!("{other:?} is neither standard nor hardened"),
                })
            }
        };

        let redeliver_interval = seconds(
            args.redeliver_interval.clone(),
            env,
            "AUDITLOOP_REDELIVER_INTERVAL",
            DEFAULT_REDELIVER_INTERVAL,
        )?;
        let reconcile_interval = seconds(
            args.reconcile_interval.clone(),
            env,
            "AUDITLOOP_RECONCILE_INTERVAL",
            DEFAULT_RECONCILE_INTERVAL,
        )?;

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
        })
    }
}

impl LogConfig {
    /// # Errors
    ///
    /// The [`ConfigError`] of a log format or filter that is invalid.
    pub fn resolve(
        args: &LogArgs,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let filter =
            pick(args.log.clone(), env, &["AUDITLOOP_LOG"]).unwrap_or_else(|| "info".to_owned());
        let format = match pick(args.log_format.clone(), env, &["AUDITLOOP_LOG_FORMAT"]).as_deref()
        {
            None | Some("pretty") => LogFormat::Pretty,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    setting: "AUDITLOOP_LOG_FORMAT",
                    message: format!("{other:?} is neither pretty nor json"),
                })
            }
        };
        Ok(Self { filter, format })
    }
}
