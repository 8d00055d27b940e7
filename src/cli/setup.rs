//! `auditloop setup`: register the GitHub App through the manifest flow.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::setup::{run as run_setup, SetupOptions};

/// The manifest shipped with auditloop, used when the working directory has none.
const BUNDLED_MANIFEST: &str = include_str!("../../app-manifest.yml");

#[derive(clap::Args, Clone, Debug, Default)]
pub struct SetupArgs {
    /// Address of the local setup page [default: 127.0.0.1:3000]
    #[arg(long)]
    pub listen: Option<String>,
    /// GitHub's web address; for GitHub Enterprise Server https://HOST [default: https://github.com]
    #[arg(long)]
    pub github_url: Option<String>,
    /// Register the App for this organization instead of your account
    #[arg(long)]
    pub org: Option<String>,
    /// The public URL GitHub delivers webhooks to, e.g. https://tunnel.example/webhook
    #[arg(long)]
    pub webhook_url: Option<String>,
}

/// Resolves the options: flags, then the environment's API URL; the manifest from
/// `app-manifest.yml` in the working directory when present.
pub fn options(
    args: &SetupArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<SetupOptions> {
    let listen = args
        .listen
        .clone()
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let listen = listen.parse().map_err(|_| {
        anyhow::anyhow!("--listen {listen:?} is not an address like 127.0.0.1:3000")
    })?;
    let api_url = env("AUDITLOOP_GITHUB_API_URL")
        .unwrap_or_else(|| crate::config::DEFAULT_API_URL.to_owned());
    let manifest =
        std::fs::read_to_string("app-manifest.yml").unwrap_or_else(|_| BUNDLED_MANIFEST.to_owned());
    Ok(SetupOptions {
        listen,
        github_url: args
            .github_url
            .clone()
            .unwrap_or_else(|| "https://github.com".to_owned()),
        api_url,
        org: args.org.clone(),
        webhook_url: args.webhook_url.clone(),
        dir: PathBuf::from("."),
        manifest,
    })
}

pub fn run(args: &SetupArgs, env: &dyn Fn(&str) -> Option<String>) -> ExitCode {
    let opts = match options(args, env) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    super::block_on(run_setup(opts))
}
