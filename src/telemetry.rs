//! Structured logging with `tracing`: pretty for people, JSON for log pipelines.

use tracing_subscriber::EnvFilter;

use crate::operator_config::{LogConfig, LogFormat};

/// Installs the global subscriber; a bad filter falls back to `info` and says so.
pub fn init(config: &LogConfig) {
    let (filter, bad) = match EnvFilter::try_new(&config.filter) {
        Ok(f) => (f, None),
        Err(e) => (EnvFilter::new("info"), Some(e.to_string())),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let installed = match config.format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
    };
    if installed.is_ok() {
        if let Some(e) = bad {
            tracing::warn!(error = %e, filter = %config.filter, "invalid AUDITLOOP_LOG filter; using info");
        }
    }
}
