//! The YAML parser's bounds for `.github/auditloop.yml`, and its errors in the words a
//! maintainer editing the file reads.

use super::error::ConfigError;

/// A configuration file is a few dozen lines: anything far larger, deeper or alias-heavy is
/// an attack on the parser, and is refused within these bounds instead of expanded.
pub(super) const MAX_CONFIG_BYTES: usize = 64 * 1024;

pub(super) fn parse_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: 32,
            max_anchors: 64,
            max_aliases: 256,
            max_nodes: 20_000,
            max_documents: 1,
        },
        with_snippet: false,
    }
}

pub(super) fn yaml_error(err: &serde_saphyr::Error, setting: &str) -> ConfigError {
    let location = err.location();
    let mut message = err.without_snippet().to_string();
    // The parser puts the position into its text; we report it once, up front.
    if let Some(loc) = &location {
        let noise = format!(" at line {}, column {}", loc.line(), loc.column());
        message = message.replacen(&noise, "", 1);
    }
    // Advice meant for programmers using the parser, not for the file's editor.
    message = message.replacen(", set DuplicateKeyPolicy in Options if acceptable", "", 1);
    // Only where the parser's words leave the setting out (`invalid u32`), and only a path
    // it could follow to the end.
    let last = setting.rsplit('.').next().unwrap_or_default();
    let named = last.is_empty() || setting.contains('?') || message.contains(last);
    if !named {
        message = format!("{setting}: {message}");
    }
    let to_usize = |n: u64| usize::try_from(n).ok().filter(|n| *n > 0);
    ConfigError {
        line: location.as_ref().and_then(|l| to_usize(l.line())),
        column: location.as_ref().and_then(|l| to_usize(l.column())),
        message,
    }
}
