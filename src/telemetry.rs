//! Structured logging with `tracing`: pretty for people, JSON for log pipelines.

use tracing_subscriber::EnvFilter;

use crate::operator_config::{LogConfig, LogFormat};

/// Colour codes only for a terminal, and never when `NO_COLOR` is set to anything but
/// the empty string (<https://no-color.org>).
#[must_use]
pub(crate) fn colours(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(std::ffi::OsStr::is_empty)
}

/// Installs the global subscriber; a bad filter falls back to `info` and says so.
pub(crate) fn init(config: &LogConfig) {
    let (filter, bad) = match EnvFilter::try_new(&config.filter) {
        Ok(f) => (f, None),
        Err(e) => (EnvFilter::new("info"), Some(e.to_string())),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colours(
            std::io::IsTerminal::is_terminal(&std::io::stderr()),
            std::env::var_os("NO_COLOR").as_deref(),
        ))
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

#[cfg(test)]
mod tests {
    use super::colours;

    #[test]
    fn colours_only_on_a_terminal_without_no_color() {
        assert!(colours(true, None));
        assert!(colours(true, Some("".as_ref())));
        assert!(!colours(true, Some("1".as_ref())));
        assert!(!colours(false, None));
    }
}
