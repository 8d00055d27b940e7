//! The command line (docs/reference.md#command-line).

pub mod healthcheck;
pub mod keygen;
mod logs;
mod mcp;
pub mod preflight;
pub mod root;
pub mod serve;
pub mod setup;
pub mod sign;
pub mod validate;
pub mod validate_receipt;

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
