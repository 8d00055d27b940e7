//! The command line (docs/reference.md#command-line).

pub mod healthcheck;
pub mod keygen;
pub mod mcp;
pub mod packet;
pub mod post;
pub mod remote;
pub mod root;
pub mod serve;
pub mod setup;
pub mod sign;
pub mod status;
pub mod status_view;
pub mod validate;

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

/// Runs a long-lived command on a multi-threaded runtime; its error is printed on one line.
pub(crate) fn block_on(
    task: impl std::future::Future<Output = anyhow::Result<()>>,
) -> std::process::ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("auditloop: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(task) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("auditloop: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
