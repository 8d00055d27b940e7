//! Operator configuration (docs/reference.md#operator-configuration): flags, then `AUDITLOOP_*` environment variables,
//! then Probot's names, then a `.env` file (loaded into the environment at start-up without
//! overriding what is already set). Secrets are held in `secrecy` types and never printed.

use std::path::PathBuf;
use std::time::Duration;

mod credentials;
mod problems;
mod resolve;

pub use problems::ConfigError;
pub use resolve::ServeConfig;
pub(crate) use resolve::{listen, LogConfig, LogFormat};

/// One operator setting: its flag, its environment names, its default and its `--help`
/// text, each written here only. The settings tables of README.md and docs/reference.md
/// are checked against [`SETTINGS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The flag, without its dashes.
    pub flag: &'static str,
    /// The `AUDITLOOP_*` name first, then Probot's name when it has one.
    pub env: &'static [&'static str],
    pub(crate) default: Unset,
    /// What `--help` says before its `[env: …]` and `[default: …]` notes.
    pub help: &'static str,
}

/// What a setting is when neither a flag nor the environment gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unset {
    /// Absent; for a credential, [`ConfigError::Missing`].
    Absent,
    Text(&'static str),
    Seconds(Duration),
    Millis(Duration),
}

impl Setting {
    /// The `AUDITLOOP_*` name, as errors name the setting.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.env[0]
    }

    /// The default as `--help` and the README write it.
    #[must_use]
    pub fn default_text(&self) -> Option<String> {
        match self.default {
            Unset::Absent => None,
            Unset::Text(text) => Some(text.to_owned()),
            Unset::Seconds(every) => Some(every.as_secs().to_string()),
            Unset::Millis(gap) => Some(gap.as_millis().to_string()),
        }
    }

    /// The `--help` line: the text, the environment names, the default.
    #[must_use]
    pub(crate) fn help_text(&self) -> String {
        match self.default_text() {
            Some(default) => self.help_as(self.help, &default),
            None => format!("{} [env: {}]", self.help, self.env.join(", ")),
        }
    }

    /// The `--help` line of a command that reads this setting with its own words and default.
    #[must_use]
    pub(crate) fn help_as(&self, help: &str, default: &str) -> String {
        format!("{help} [env: {}] [default: {default}]", self.env.join(", "))
    }

    /// The flag, else the first environment name that is set; blank counts as unset.
    #[must_use]
    pub(crate) fn read(
        &self,
        flag: Option<String>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        self.given(flag, env).map(|g| g.value)
    }

    /// As [`Setting::read`], with the name the value came from: `--flag`, or the
    /// environment name that held it, so that an error names what the operator set.
    #[must_use]
    pub(crate) fn given(
        &self,
        flag: Option<String>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Given> {
        let (value, from) = match flag {
            Some(value) => (value, format!("--{}", self.flag)),
            None => self
                .env
                .iter()
                .find_map(|n| env(n).map(|v| (v, (*n).to_owned())))?,
        };
        (!value.trim().is_empty()).then_some(Given { value, from })
    }
}

/// A setting's value and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Given {
    pub(crate) value: String,
    /// `--flag` or the environment variable's name.
    pub(crate) from: String,
}

pub(crate) const DEFAULT_API_URL: &str = "https://api.github.com";
pub const DEFAULT_LISTEN: &str = "0.0.0.0:3000";
/// Where first-run setup listens unless told: this machine only, since the page registers
/// an App whose credentials land in `.env`.
pub(crate) const DEFAULT_SETUP_LISTEN: &str = "127.0.0.1:3000";
/// Between redelivery sweeps unless the operator sets an interval.
pub(crate) const DEFAULT_REDELIVER_INTERVAL: Duration = Duration::from_secs(300);
/// Between reconcile sweeps unless the operator sets an interval.
pub(crate) const DEFAULT_RECONCILE_INTERVAL: Duration = Duration::from_secs(600);
pub(crate) const DEFAULT_LOG: &str = "info";
/// Between two writes of one GitHub identity unless the operator sets a gap: GitHub asks
/// integrations to wait at least a second between content-creating requests.
pub(crate) const DEFAULT_WRITE_GAP: Duration = Duration::from_secs(1);

pub(crate) const APP_ID: Setting = Setting {
    flag: "app-id",
    env: &["AUDITLOOP_APP_ID", "APP_ID"],
    default: Unset::Absent,
    help: "GitHub App id",
};
pub(crate) const PRIVATE_KEY: Setting = Setting {
    flag: "private-key",
    env: &["AUDITLOOP_PRIVATE_KEY", "PRIVATE_KEY"],
    default: Unset::Absent,
    help: "The App's PEM private key, inline",
};
pub(crate) const PRIVATE_KEY_PATH: Setting = Setting {
    flag: "private-key-path",
    env: &["AUDITLOOP_PRIVATE_KEY_PATH", "PRIVATE_KEY_PATH"],
    default: Unset::Absent,
    help: "Path to the App's PEM private key",
};
pub(crate) const WEBHOOK_SECRET: Setting = Setting {
    flag: "webhook-secret",
    env: &["AUDITLOOP_WEBHOOK_SECRET", "WEBHOOK_SECRET"],
    default: Unset::Absent,
    help: "Webhook secret; several, comma-separated, while rotating",
};
pub(crate) const WEBHOOK_SECRET_FILE: Setting = Setting {
    flag: "webhook-secret-file",
    env: &["AUDITLOOP_WEBHOOK_SECRET_FILE"],
    default: Unset::Absent,
    help: "File holding the webhook secret(s), as Docker and Kubernetes mount them; trailing newline trimmed",
};
pub(crate) const GITHUB_API_URL: Setting = Setting {
    flag: "github-api-url",
    env: &["AUDITLOOP_GITHUB_API_URL"],
    default: Unset::Text(DEFAULT_API_URL),
    help: "REST base URL; GitHub Enterprise Server is https://HOST/api/v3",
};
pub(crate) const LISTEN: Setting = Setting {
    flag: "listen",
    env: &["AUDITLOOP_LISTEN"],
    default: Unset::Text(DEFAULT_LISTEN),
    help: "Address to bind",
};
pub(crate) const TRUST_STORE: Setting = Setting {
    flag: "trust-store",
    env: &["AUDITLOOP_TRUST_STORE"],
    default: Unset::Absent,
    help: "Operator-pinned Ed25519 auditor keys (TOML)",
};
pub(crate) const MIN_ASSURANCE: Setting = Setting {
    flag: "min-assurance",
    env: &["AUDITLOOP_MIN_ASSURANCE"],
    default: Unset::Text("standard"),
    help: "standard or hardened; a repository can raise it, never lower it",
};
pub(crate) const REDELIVER_INTERVAL: Setting = Setting {
    flag: "redeliver-interval",
    env: &["AUDITLOOP_REDELIVER_INTERVAL"],
    default: Unset::Seconds(DEFAULT_REDELIVER_INTERVAL),
    help: "Seconds between sweeps (also once at start) that ask GitHub to redeliver failed deliveries and queued ones a stopped process lost; 0 disables",
};
pub(crate) const RECONCILE_INTERVAL: Setting = Setting {
    flag: "reconcile-interval",
    env: &["AUDITLOOP_RECONCILE_INTERVAL"],
    default: Unset::Seconds(DEFAULT_RECONCILE_INTERVAL),
    help: "Seconds between sweeps that republish views that fell behind their records (also once at start); 0 disables",
};
pub(crate) const WRITE_GAP: Setting = Setting {
    flag: "write-gap-ms",
    env: &["AUDITLOOP_WRITE_GAP_MS"],
    default: Unset::Millis(DEFAULT_WRITE_GAP),
    help: "Milliseconds between two writes of one installation on average (a burst of 3 at most, 3 on the way at most; none while GitHub says to wait)",
};
pub(crate) const LOG: Setting = Setting {
    flag: "log",
    env: &["AUDITLOOP_LOG"],
    default: Unset::Text(DEFAULT_LOG),
    help: "Log filter in tracing env-filter syntax",
};
pub(crate) const LOG_FORMAT: Setting = Setting {
    flag: "log-format",
    env: &["AUDITLOOP_LOG_FORMAT"],
    default: Unset::Text("pretty"),
    help: "pretty or json",
};

/// Every operator setting, in the README's order.
pub const SETTINGS: [Setting; 14] = [
    APP_ID,
    PRIVATE_KEY,
    PRIVATE_KEY_PATH,
    WEBHOOK_SECRET,
    WEBHOOK_SECRET_FILE,
    GITHUB_API_URL,
    LISTEN,
    TRUST_STORE,
    MIN_ASSURANCE,
    REDELIVER_INTERVAL,
    RECONCILE_INTERVAL,
    WRITE_GAP,
    LOG,
    LOG_FORMAT,
];

/// `serve` binds [`DEFAULT_LISTEN`], unless it starts first-run setup instead.
fn serve_listen_help() -> String {
    LISTEN.help_as(
        LISTEN.help,
        &format!("{DEFAULT_LISTEN} when serving; {DEFAULT_SETUP_LISTEN} while the first run's setup page is up"),
    )
}

/// The flags of `auditloop serve`; every one may also come from the environment.
#[derive(clap::Args, Clone, Default)]
pub struct ServeArgs {
    #[arg(long, help = APP_ID.help_text())]
    pub app_id: Option<String>,
    #[arg(long, help = PRIVATE_KEY.help_text())]
    pub private_key: Option<String>,
    #[arg(long, help = PRIVATE_KEY_PATH.help_text())]
    pub private_key_path: Option<PathBuf>,
    #[arg(long, help = WEBHOOK_SECRET.help_text())]
    pub webhook_secret: Option<String>,
    #[arg(long, help = WEBHOOK_SECRET_FILE.help_text())]
    pub webhook_secret_file: Option<PathBuf>,
    #[arg(long, help = GITHUB_API_URL.help_text())]
    pub github_api_url: Option<String>,
    #[arg(long, help = serve_listen_help())]
    pub listen: Option<String>,
    #[arg(long, help = TRUST_STORE.help_text())]
    pub trust_store: Option<PathBuf>,
    #[arg(long, help = MIN_ASSURANCE.help_text())]
    pub min_assurance: Option<String>,
    #[arg(long, help = REDELIVER_INTERVAL.help_text())]
    pub redeliver_interval: Option<String>,
    #[arg(long, help = RECONCILE_INTERVAL.help_text())]
    pub reconcile_interval: Option<String>,
    #[arg(long, help = WRITE_GAP.help_text())]
    pub write_gap_ms: Option<String>,
}

/// Logging flags, shared by every subcommand.
#[derive(clap::Args, Clone, Default, Debug)]
pub struct LogArgs {
    #[arg(long, global = true, help = LOG.help_text())]
    pub(crate) log: Option<String>,
    #[arg(long, global = true, help = LOG_FORMAT.help_text())]
    pub(crate) log_format: Option<String>,
}

impl ServeArgs {
    /// The first flag given on the command line, without its dashes; `None` when none is.
    #[must_use]
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        let given = [
            (APP_ID.flag, self.app_id.is_some()),
            (PRIVATE_KEY.flag, self.private_key.is_some()),
            (PRIVATE_KEY_PATH.flag, self.private_key_path.is_some()),
            (WEBHOOK_SECRET.flag, self.webhook_secret.is_some()),
            (WEBHOOK_SECRET_FILE.flag, self.webhook_secret_file.is_some()),
            (GITHUB_API_URL.flag, self.github_api_url.is_some()),
            (LISTEN.flag, self.listen.is_some()),
            (TRUST_STORE.flag, self.trust_store.is_some()),
            (MIN_ASSURANCE.flag, self.min_assurance.is_some()),
            (REDELIVER_INTERVAL.flag, self.redeliver_interval.is_some()),
            (RECONCILE_INTERVAL.flag, self.reconcile_interval.is_some()),
            (WRITE_GAP.flag, self.write_gap_ms.is_some()),
        ];
        given.iter().find(|(_, set)| *set).map(|(flag, _)| *flag)
    }
}
