//! What a command logs when neither `--log` nor `AUDITLOOP_LOG` says: the server logs at
//! `info`; a one-shot command says only its own words on standard error, so that a failed
//! call is one line, not the HTTP client's errors and every retry before it
//! (docs/reference.md#command-line). `--log debug` shows them all.

use crate::operator_config::{LogConfig, LOG};

/// What kind of process a command is, for its default logging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `serve` and `setup`: a server's `info`.
    Server,
    /// `mcp`: its own `info`, without the protocol library's.
    Mcp,
    /// Every other command: its own words only.
    OneShot,
}

/// The one-shot commands: only this crate's errors, none of another crate's logs.
const ONE_SHOT: &str = "off,auditloop=error";

/// `auditloop mcp` keeps its own `info`, without the protocol library's per-message lines
/// or the HTTP client's errors, which every tool's answer already says.
const MCP: &str = "info,rmcp=warn,octocrab=off";

/// `resolved`, with the default filter of a `kind` command when the operator named none
/// (`flag`, else `AUDITLOOP_LOG` in `env`).
#[must_use]
pub(crate) fn for_kind(
    kind: Kind,
    resolved: LogConfig,
    flag: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> LogConfig {
    if LOG.read(flag, env).is_some() {
        return resolved;
    }
    let filter = match kind {
        Kind::Server => return resolved,
        Kind::Mcp => MCP,
        Kind::OneShot => ONE_SHOT,
    };
    LogConfig {
        filter: filter.to_owned(),
        ..resolved
    }
}
