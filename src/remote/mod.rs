//! What the command line and the MCP server both offer against GitHub from outside the
//! App, with a workflow's or a person's token: the auditor's packet and post, and the gate
//! status of a PR or a repository. `cli/` and `mcp/` call these; neither names the other's
//! operations (docs/reference.md#command-line).

pub(crate) mod api_url;
pub(crate) mod connection;
pub mod exit_codes;
pub(crate) mod failure;
pub(crate) mod packet;
pub mod post;
mod post_error;
pub(crate) mod status;
pub mod status_view;

use std::io::Read as _;
use std::path::Path;

/// Reads a report from a file, or from standard input for `-`.
///
/// # Errors
///
/// A [`exit_codes::Usage`] error when the file cannot be read: the command line named a
/// file that is not there, or not text.
pub(crate) fn read_input(path: &Path) -> anyhow::Result<String> {
    use exit_codes::Usage;
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Usage(format!("reading the report from standard input: {e}")))?;
        return Ok(text);
    }
    Ok(std::fs::read_to_string(path)
        .map_err(|e| Usage(format!("cannot read {}: {e}", path.display())))?)
}
