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
    }
}
