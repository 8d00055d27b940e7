//! `auditloop mcp` (docs/reference.md#auditloop-mcp): the loop as Model Context Protocol tools on standard
//! input and output, for agent CLIs. Standard output carries protocol messages only; logs
//! go to standard error (`telemetry`).

mod io;
mod tools;

pub(crate) use tools::{Remote, Tools};

/// Serves the tools until the client closes standard input.
///
/// # Errors
///
/// When the protocol cannot start on standard input and output, or the session ends in error.
pub(crate) async fn serve(remote: Remote) -> anyhow::Result<()> {
    use rmcp::ServiceExt as _;
    let running = Tools::new(remote).serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
