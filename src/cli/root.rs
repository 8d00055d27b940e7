//! Top-level parsing and dispatch; `main.rs` only calls [`run`].

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::operator_config::{LogArgs, LogConfig, ServeArgs};

#[derive(Parser)]
#[command(
    name = "auditloop",
    version,
    about = "A GitHub App that runs PR-driven audit loops and gates protected branches on them",
    after_help = "To start: run `auditloop` with no arguments and open the address it prints \
                  (http://127.0.0.1:3000 unless --listen says otherwise). The first run \
                  registers the GitHub App, writes .env, and then serves it.\n\
                  Docs: https://github.com/auditloop/auditloop/tree/main/docs"
)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// `auditloop` alone is `auditloop serve`.
    #[command(flatten)]
    pub(crate) serve: ServeArgs,
    #[command(flatten)]
    pub(crate) log: LogArgs,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Run the webhook server (the default). With no App credentials, starts `setup`.
    Serve(ServeArgs),
    /// First-run setup: register the GitHub App from app-manifest.yml, write .env, then serve.
    Setup(crate::cli::setup::SetupArgs),
    /// Ask a running auditloop for /healthz; exits 0 when it answers 200 (for images without curl).
    Healthcheck(crate::cli::healthcheck::HealthcheckArgs),
    /// Make an Ed25519 key pair for a hardened auditor; prints the trust-store entry.
    Keygen(crate::cli::keygen::KeygenArgs),
    /// Normalize a report and sign a receipt for one repository; prints the signed report.
    Sign(crate::cli::sign::SignArgs),
    /// Offline shape check of a report: prints its digest, or every problem found.
    Validate(crate::cli::validate::ValidateArgs),
    /// Print the audit packet of a PR's record as JSON, read from the records branch.
    Packet(crate::remote::packet::PacketArgs),
    /// Check a report as `validate` does, then post it as one `/audit report` comment.
    Post(crate::remote::post::PostArgs),
    /// Read-only: the gate of a PR's head now; exits 0 when it passes, 1 when not, 2 when it cannot tell.
    Status(crate::remote::status::StatusArgs),
    /// A Model Context Protocol server on standard input and output: packet, validate, status and post as tools.
    Mcp(crate::cli::mcp::McpArgs),
}

fn offline(result: anyhow::Result<ExitCode>) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("auditloop: {e:#}");
        ExitCode::FAILURE
    })
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn env_arc() -> crate::cli::setup::Env {
    std::sync::Arc::new(env_lookup)
}

/// With no App credential at all, the first run registers the App and then serves it,
/// on the address `serve` was given, instead of failing.
fn serve_or_setup(args: &ServeArgs) -> ExitCode {
    if crate::operator_config::ServeConfig::has_no_credentials(args, &env_lookup) {
        let setup = crate::cli::setup::SetupArgs {
            listen: args.listen.clone(),
            ..Default::default()
        };
        return crate::cli::setup::run(&setup, args, env_arc());
    }
    crate::cli::serve::run(args, &env_lookup)
}

#[must_use]
pub fn run() -> ExitCode {
    // `.env` fills in only what flags and the environment leave unset.
    let _ = dotenvy::dotenv();
    let cli = Cli::parse();
    let log = match LogConfig::resolve(&cli.log, &env_lookup) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    crate::telemetry::init(&log);
    match cli.command {
        None => serve_or_setup(&cli.serve),
        Some(Command::Serve(args)) => serve_or_setup(&args),
        Some(Command::Setup(args)) => {
            crate::cli::setup::run(&args, &ServeArgs::default(), env_arc())
        }
        Some(Command::Healthcheck(args)) => crate::cli::healthcheck::run(&args, &env_lookup),
        Some(Command::Keygen(args)) => {
            offline(crate::cli::keygen::run(&args, &mut std::io::stdout()))
        }
        Some(Command::Sign(args)) => offline(crate::cli::sign::run(&args, &mut std::io::stdout())),
        Some(Command::Validate(args)) => {
            offline(crate::cli::validate::run(&args, &mut std::io::stdout()))
        }
        Some(Command::Packet(args)) => {
            offline(crate::remote::packet::run(&args, &mut std::io::stdout()))
        }
        Some(Command::Post(args)) => {
            offline(crate::remote::post::run(&args, &mut std::io::stdout()))
        }
        Some(Command::Status(args)) => crate::remote::status::run(&args, &mut std::io::stdout()),
        Some(Command::Mcp(args)) => crate::cli::mcp::run(&args),
    }
}
