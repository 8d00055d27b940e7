//! Top-level parsing and dispatch; `main.rs` only calls [`run`].

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use super::logs::{self, Kind};
use super::preflight::Refusal;
use crate::operator_config::{LogArgs, LogConfig, ServeArgs};
use crate::remote::exit_codes::{
    code_of, PACKET_CODES, PLAIN_CODES, REPORT_CODES, STATUS_CODES, USAGE,
};

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
    #[command(after_help = PLAIN_CODES)]
    Healthcheck(crate::cli::healthcheck::HealthcheckArgs),
    /// Make an Ed25519 key pair for a hardened auditor; prints the trust-store entry.
    #[command(after_help = PLAIN_CODES)]
    Keygen(crate::cli::keygen::KeygenArgs),
    /// Normalize a report and sign a receipt for one repository; prints the signed report.
    #[command(after_help = REPORT_CODES)]
    Sign(crate::cli::sign::SignArgs),
    /// Offline shape check of a report: prints its digest, or every problem found.
    #[command(after_help = REPORT_CODES)]
    Validate(crate::cli::validate::ValidateArgs),
    /// Print the audit packet of a PR's record as JSON, read from the records branch.
    #[command(after_help = PACKET_CODES)]
    Packet(crate::remote::packet::PacketArgs),
    /// Check a report as `validate` does, then post it as one `/audit report` comment.
    #[command(after_help = REPORT_CODES)]
    Post(crate::remote::post::PostArgs),
    /// Read-only: the gate of a PR's head now; exits 0 when it passes, 1 when not, 3 when it cannot tell.
    #[command(after_help = STATUS_CODES)]
    Status(crate::remote::status::StatusArgs),
    // The `--help` text names the tools as a client sees them, not as Markdown.
    #[allow(clippy::doc_markdown)]
    /// A Model Context Protocol server on standard input and output; its tools: audit_packet, validate_report, gate_status, list_audits, post_report.
    Mcp(crate::cli::mcp::McpArgs),
}

/// The command's exit code, or its error on one line and 1 (2 for a usage error).
fn offline(result: anyhow::Result<ExitCode>) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("auditloop: {e:#}");
        ExitCode::from(code_of(&e, 1))
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

/// A command line that parsed and passed the checks, with the logging it runs with.
pub struct Checked {
    cli: Cli,
    log: LogConfig,
}

/// Parses `args` (the program name first) and checks what can be checked before a command
/// runs, reading no file and calling no one, so any command line can be checked; `env` is
/// the environment the log settings are read from.
///
/// # Errors
///
/// The [`Refusal`] saying what is wrong.
pub fn check<I, T>(args: I, env: &dyn Fn(&str) -> Option<String>) -> Result<Checked, Refusal>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(args).map_err(Refusal::Clap)?;
    let json = matches!(&cli.command, Some(Command::Status(a)) if a.json);
    let invalid = |words: String| Refusal::Invalid { words, json };
    let log = LogConfig::resolve(&cli.log, env).map_err(|e| invalid(e.to_string()))?;
    let kind = checked_kind(cli.command.as_ref()).map_err(|e| invalid(format!("{e:#}")))?;
    let log = logs::for_kind(kind, log, cli.log.log.clone(), env);
    Ok(Checked { cli, log })
}

/// The command's kind, once the values of a command that talks to GitHub are checked.
fn checked_kind(command: Option<&Command>) -> anyhow::Result<Kind> {
    Ok(match command {
        None | Some(Command::Serve(_) | Command::Setup(_)) => Kind::Server,
        Some(Command::Packet(a)) => a.remote.check().map(|()| Kind::OneShot)?,
        Some(Command::Post(a)) => a.remote.check().map(|()| Kind::OneShot)?,
        Some(Command::Status(a)) => a.check().map(|()| Kind::OneShot)?,
        Some(Command::Mcp(a)) => a.check().map(|()| Kind::Mcp)?,
        Some(_) => Kind::OneShot,
    })
}

#[must_use]
pub fn run() -> ExitCode {
    // `.env` fills in only what flags and the environment leave unset.
    let _ = dotenvy::dotenv();
    let checked = match check(std::env::args_os(), &env_lookup) {
        Ok(checked) => checked,
        Err(Refusal::Clap(e)) => e.exit(),
        Err(Refusal::Invalid { words, json }) => {
            return crate::remote::status::refuse(json, &mut std::io::stdout(), &words, USAGE);
        }
    };
    crate::telemetry::init(&checked.log);
    dispatch(checked.cli.command, &checked.cli.serve)
}

fn dispatch(command: Option<Command>, serve: &ServeArgs) -> ExitCode {
    // `--log` and `--log-format` are global; `serve`'s flags before another subcommand's
    // name would be ignored, so they are refused.
    if let (Some(_), Some(flag)) = (&command, serve.first_given()) {
        eprintln!(
            "auditloop: --{flag} is a flag of `serve`: give it after `serve`, or with no subcommand"
        );
        return ExitCode::from(2);
    }
    match command {
        None => serve_or_setup(serve),
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
