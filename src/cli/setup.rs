//! `auditloop setup`: register the GitHub App through the manifest flow, then serve it from
//! the same process.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use crate::cli::serve::{build, Running};
use crate::operator_config::{
    ServeArgs, ServeConfig, DEFAULT_SETUP_LISTEN, GITHUB_API_URL, LISTEN,
};
use crate::setup::{run as run_setup, Launch, Registered, SetupOptions};

/// The manifest shipped with auditloop, used when the working directory has none.
const BUNDLED_MANIFEST: &str = include_str!("../../app-manifest.yml");

// The field docs are the `--help` text, written as the user reads it, not as markdown.
#[allow(clippy::doc_markdown)]
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SetupArgs {
    #[arg(long, help = LISTEN.help_as("Address of the setup page, and then of the App", DEFAULT_SETUP_LISTEN))]
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

/// An environment lookup that can move into the serving task.
pub type Env = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The address setup binds: the flag, then `AUDITLOOP_LISTEN`, then loopback.
///
/// # Errors
///
/// When the address does not parse.
pub fn listen_address(
    args: &SetupArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<std::net::SocketAddr> {
    Ok(crate::operator_config::listen(
        args.listen.clone(),
        env,
        DEFAULT_SETUP_LISTEN,
    )?)
}

/// Resolves the options: flags, then the environment; the manifest from
/// `app-manifest.yml` in the working directory when present.
pub(crate) fn options(args: &SetupArgs, env: &dyn Fn(&str) -> Option<String>) -> SetupOptions {
    let manifest =
        std::fs::read_to_string("app-manifest.yml").unwrap_or_else(|_| BUNDLED_MANIFEST.to_owned());
    SetupOptions {
        github_url: args
            .github_url
            .clone()
            .unwrap_or_else(|| "https://github.com".to_owned()),
        api_url: GITHUB_API_URL.read(None, env),
        org: args.org.clone(),
        webhook_url: args.webhook_url.clone(),
        dir: PathBuf::from("."),
        manifest,
    }
}

/// Starts the App once it is registered: the settings GitHub handed over come first, then
/// the flags and the environment as `serve` reads them. The running sweeps are kept in
/// `slot` so that they are stopped when the server stops.
pub(crate) fn launcher(
    serve_args: ServeArgs,
    env: Env,
    slot: Arc<Mutex<Option<Running>>>,
) -> Launch {
    Box::new(move |registered: Registered| {
        Box::pin(async move {
            let overlay: HashMap<&str, String> = HashMap::from([
                ("AUDITLOOP_APP_ID", registered.app_id.to_string()),
                (
                    "AUDITLOOP_PRIVATE_KEY_PATH",
                    registered.key_path.display().to_string(),
                ),
                (
                    "AUDITLOOP_WEBHOOK_SECRET",
                    registered.webhook_secret.clone(),
                ),
                ("AUDITLOOP_GITHUB_API_URL", registered.api_url.clone()),
            ]);
            let lookup = |name: &str| overlay.get(name).cloned().or_else(|| env(name));
            let mut args = serve_args;
            // The listener is already bound; what `serve` would bind does not matter here.
            args.listen = Some("127.0.0.1:0".to_owned());
            let config = ServeConfig::resolve(&args, &lookup, &|p| std::fs::read_to_string(p))?;
            let running = build(&config)?;
            let router = running.router.clone();
            *slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(running);
            Ok(router)
        })
    })
}

/// Setup on `listener`, then the App on the same listener, until `shutdown`.
///
/// # Errors
///
/// When setup or the App it starts fails to serve, or the setup result cannot be written.
pub async fn setup_then_serve(
    listener: tokio::net::TcpListener,
    opts: SetupOptions,
    serve_args: ServeArgs,
    env: Env,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let slot = Arc::new(Mutex::new(None));
    let launch = launcher(serve_args, env, slot.clone());
    let served = run_setup(listener, opts, launch, shutdown).await;
    let running = slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(running) = running {
        running.stop().await;
    }
    served
}

pub(crate) fn run(args: &SetupArgs, serve_args: &ServeArgs, env: Env) -> ExitCode {
    let listen = match listen_address(args, &*env) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = options(args, &*env);
    let serve_args = serve_args.clone();
    super::block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
        setup_then_serve(
            listener,
            opts,
            serve_args,
            env,
            crate::server::shutdown_signal(),
        )
        .await
    })
}
