//! `auditloop mcp`: the Model Context Protocol server on standard input and output
//! (docs/reference.md#auditloop-mcp), reading the token and API URL as `packet` and `post` do.

use std::process::ExitCode;

use crate::mcp::{serve, Remote};
use crate::remote::api_url;
use crate::remote::exit_codes::USAGE;
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

impl McpArgs {
    /// What can be checked before serving: the API URL and `--min-assurance`.
    ///
    /// # Errors
    ///
    /// A usage error naming what is wrong.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        api_url::checked(api_url::FLAG, &self.github_api_url)?;
        self.assurance.resolve()?;
        Ok(())
    }
}

/// Serves until the client closes the connection. A missing token is not fatal: each tool
/// that needs GitHub says so, and `validate_report` works without one.
#[must_use]
pub(crate) fn run(args: &McpArgs) -> ExitCode {
    let checked = args.assurance.resolve().and_then(|min| {
        let url = api_url::checked(api_url::FLAG, &args.github_api_url)?;
        Ok((min, url))
    });
    let (operator_min, github_api_url) = match checked {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(USAGE);
        }
    };
    let remote = Remote {
        token: args.token.clone(),
        github_api_url,
        operator_min,
    };
    super::block_on(serve(remote))
}
