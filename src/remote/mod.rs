//! What the command line and the MCP server both offer against GitHub from outside the
//! App, with a workflow's or a person's token: the auditor's packet and post, and the gate
//! status of a PR or a repository. `cli/` and `mcp/` call these; neither names the other's
//! operations (docs/reference.md#command-line).

pub(crate) mod connection;
pub(crate) mod packet;
pub mod post;
mod post_error;
pub(crate) mod status;
pub mod status_view;

use std::io::Read as _;
use std::path::Path;

/// Reads a report from a file, or from standard input for `-`.
pub(crate) fn read_input(path: &Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading the report from standard input")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}
