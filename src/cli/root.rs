//! Top-level parsing and dispatch; `main.rs` only calls [`run`].

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{LogArgs, LogConfig, ServeArgs};

#[derive(Parser)]
#[command(
    name = "auditloop",
    version,
    about = "A GitHub App that runs PR-driven audit loops and gates protected branches on them"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `auditloop` alone is `auditloop serve`.
    #[command(flatten)]
    pub serve: ServeArgs,
    #[command(flatten)]
    pub log: LogArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the webhook server (the default).
    Serve(ServeArgs),
    /// Make an Ed25519 key pair for a hardened auditor; prints the trust-store entry.
    Keygen(crate::cli::keygen::KeygenArgs),
    /// Normalize a report and sign a receipt for one repository; prints the signed report.
    Sign(crate::cli::sign::SignArgs),
    /// Offline shape check of a report: prints its digest, or every problem found.
    Validate(crate::cli::validate::ValidateArgs),
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
        None => crate::cli::serve::run(&cli.serve, &env_lookup),
        Some(Command::Serve(args)) => crate::cli::serve::run(&args, &env_lookup),
        Some(Command::Keygen(args)) => {
            offline(crate::cli::keygen::run(&args, &mut std::io::stdout()))
        }
        Some(Command::Sign(args)) => offline(crate::cli::sign::run(&args, &mut std::io::stdout())),
        Some(Command::Validate(args)) => {
            offline(crate::cli::validate::run(&args, &mut std::io::stdout()))
        }
    }
}
