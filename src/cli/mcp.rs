//! `auditloop mcp`: the Model Context Protocol server on standard input and output
//! (docs/reference.md#auditloop-mcp), reading the token and API URL as `packet` and `post` do.

use std::process::ExitCode;

use crate::mcp::{serve, Remote};
use crate::remote::status::AssuranceArg;

#[derive(clap::Args, Debug)]
pub(crate) struct McpArgs {
    /// A token that can read the repository (and, for `post_report`, comment on pull
    /// requests).
    #[arg(long, env = "GITHUB_TOKEN", hide_env_values = true)]
    pub(crate) token: Option<String>,
    /// REST base URL; GitHub Enterprise Server is `https://HOST/api/v3`.
    #[arg(long, env = "GITHUB_API_URL", default_value = "https://api.github.com")]
    pub(crate) github_api_url: String,
    #[command(flatten)]
    pub(crate) assurance: AssuranceArg,
}

/// Serves until the client closes the connection. A missing token is not fatal: each tool
/// that needs GitHub says so, and `validate_report` works without one.
#[must_use]
pub(crate) fn run(args: &McpArgs) -> ExitCode {
    let operator_min = match args.assurance.resolve() {
        Ok(min) => min,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    let remote = Remote {
        token: args.token.clone(),
        github_api_url: args.github_api_url.clone(),
        operator_min,
    };
    super::block_on(serve(remote))
}
