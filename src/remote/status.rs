//! `auditloop status --repo OWNER/REPO [--pr N] [--json]`: without `--pr`, every audited
//! open PR in the dashboard's sections; with it, the gate of the PR's head as the
//! app computes it now, read-only (docs/reference.md#command-line). Exits 0 when it passes, 1 when it does
//! not, 2 on a usage error, 3 when it cannot tell (no access, damaged records). The
//! `gate_status` tool (`mcp`) answers with the same [`status`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;

use super::connection::{run_async, RemoteArgs};
use super::exit_codes::{code_of, Usage, CANNOT_TELL};
use super::failure::explain;
use super::status_view::GateStatus;
use crate::app::status::{gate_now, repo_now, GateNow, RepoNow};
use crate::engine::receipt::TrustStore;
use crate::engine::repo_config::Assurance;
use crate::github::Api;
use crate::ids::{PrNumber, RepoName};

#[derive(clap::Args, Debug)]
pub(crate) struct StatusArgs {
    /// The repository, OWNER/REPO.
    #[arg(long)]
    pub(crate) repo: RepoName,
    /// The pull request number; without it, every open PR of the repository that has an
    /// audit record, in the dashboard's sections.
    #[arg(long)]
    pub(crate) pr: Option<u64>,
    /// A token that can read the repository.
    #[arg(long, env = "GITHUB_TOKEN", hide_env_values = true)]
    pub(crate) token: Option<String>,
    /// REST base URL; GitHub Enterprise Server is `https://HOST/api/v3`.
    #[arg(long, env = "GITHUB_API_URL", default_value = "https://api.github.com")]
    pub(crate) github_api_url: String,
    /// The records branch; by default the one `.github/auditloop.yml` names on the
    /// default branch.
    #[arg(long)]
    pub(crate) records_branch: Option<String>,
    /// Print `{"passes", "conclusion", "conditions", "record"}` as JSON (with `--pr`), or
    /// `{"pulls": [...]}` (without).
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) assurance: AssuranceArg,
}

impl StatusArgs {
    /// What can be checked before any call: the token, the API URL, `--min-assurance`.
    ///
    /// # Errors
    ///
    /// A usage error naming what is wrong.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        self.remote(0).check()?;
        self.assurance.resolve()?;
        Ok(())
    }

    /// The PR's target, as `packet` and `post` take it.
    fn remote(&self, pr: u64) -> RemoteArgs {
        RemoteArgs {
            repo: self.repo.clone(),
            pr,
            token: self.token.clone(),
            github_api_url: self.github_api_url.clone(),
            records_branch: self.records_branch.clone(),
        }
    }
}

/// The operator's minimum assurance, which the gate holds a repository to (condition 9).
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct AssuranceArg {
    /// The operator minimum the app runs with, `standard` or `hardened`.
    #[arg(long, env = "AUDITLOOP_MIN_ASSURANCE")]
    pub(crate) min_assurance: Option<String>,
}

impl AssuranceArg {
    /// # Errors
    ///
    /// When the word is neither `standard` nor `hardened`.
    pub(crate) fn resolve(&self) -> anyhow::Result<Assurance> {
        match self.min_assurance.as_deref().map(str::trim) {
            None | Some("" | "standard") => Ok(Assurance::Standard),
            Some("hardened") => Ok(Assurance::Hardened),
            Some(other) => Err(Usage(format!(
                "--min-assurance must be `standard` or `hardened`, not `{other}`"
            ))
            .into()),
        }
    }
}

/// The operator's trust store when `AUDITLOOP_TRUST_STORE` names one, so a kept receipt is
/// verified again as the server does; without it the recorded grade stands.
fn trust_in_force() -> anyhow::Result<Option<TrustStore>> {
    let Some(path) = std::env::var_os("AUDITLOOP_TRUST_STORE") else {
        return Ok(None);
    };
    let path = std::path::PathBuf::from(path);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("AUDITLOOP_TRUST_STORE: cannot read {}", path.display()))?;
    TrustStore::from_toml(&text)
        .map(Some)
        .with_context(|| format!("AUDITLOOP_TRUST_STORE: {}", path.display()))
}

/// The gate now, and, when the records cannot be trusted, why and how to repair them.
///
/// # Errors
///
/// When the repository, the PR or the records branch cannot be read.
pub(crate) async fn status(
    remote: &RemoteArgs,
    api: &Api,
    operator_min: Assurance,
) -> anyhow::Result<(GateStatus, Option<String>)> {
    let trust = trust_in_force()?;
    let now = gate_now(
        api,
        &remote.repo,
        PrNumber(remote.pr),
        remote.records_branch.as_deref(),
        operator_min,
        trust.as_ref(),
    )
    .await
    .with_context(|| format!("reading the gate of #{} of {}", remote.pr, remote.repo))?;
    Ok(match now {
        GateNow::InvalidConfig(e) => (GateStatus::invalid_config(&e), None),
        GateNow::Evaluated {
            gate,
            record,
            certified_report,
            damaged,
        } => {
            let verified = (trust.as_ref(), certified_report.as_deref());
            (GateStatus::new(&gate, record.as_deref(), verified), damaged)
        }
    })
}

/// The words for records that cannot be trusted.
#[must_use]
pub(crate) fn damaged_words(why: &str) -> String {
    format!("cannot tell: the audit records are damaged: {why}")
}

/// Every open PR with a record, in the dashboard's sections (docs/reference.md#the-audit-dashboard).
///
/// # Errors
///
/// When the repository, its open PRs or the records branch cannot be read.
pub(crate) async fn repo_status(
    remote: &RemoteArgs,
    api: &Api,
    operator_min: Assurance,
) -> anyhow::Result<RepoNow> {
    let trust = trust_in_force()?;
    repo_now(
        api,
        &remote.repo,
        remote.records_branch.as_deref(),
        operator_min,
        trust.as_ref(),
    )
    .await
    .with_context(|| format!("reading the audits of {}", remote.repo))
}

/// `{"pulls": [...]}`, as `status --repo --json` prints it and `list_audits` answers.
#[must_use]
pub(crate) fn repo_json(now: &RepoNow) -> serde_json::Value {
    serde_json::json!({ "pulls": now.pulls })
}

/// `{"error", "exit_code"}`, what `status --json` prints when it has no answer.
#[must_use]
pub(crate) fn error_json(words: &str, code: u8) -> String {
    serde_json::json!({ "error": words, "exit_code": code }).to_string()
}

/// Says why there is no answer: one line on standard error and, with `--json`, the
/// [`error_json`] on standard output.
pub(crate) fn refuse(json: bool, out: &mut dyn Write, words: &str, code: u8) -> ExitCode {
    eprintln!("auditloop: {words}");
    if json {
        let _ = writeln!(out, "{}", error_json(words, code));
    }
    ExitCode::from(code)
}

/// [`refuse`] for a read that failed: a usage error as it is, else cannot tell and why.
fn unread(args: &StatusArgs, out: &mut dyn Write, e: &anyhow::Error) -> ExitCode {
    let code = code_of(e, CANNOT_TELL);
    let words = if code == CANNOT_TELL {
        format!("cannot tell: {}", explain(e, &args.repo, args.pr))
    } else {
        format!("{e:#}")
    };
    refuse(args.json, out, &words, code)
}

/// Prints every audited PR and exits 0 when all pass, 1 when one does not, 3 when it
/// cannot tell.
fn run_repo(args: &StatusArgs, out: &mut dyn Write) -> ExitCode {
    let remote = args.remote(0);
    let read = args.assurance.resolve().and_then(|min| {
        run_async(async {
            let api = remote.api()?;
            repo_status(&remote, &api, min).await
        })
    });
    let now = match read {
        Ok(now) => now,
        Err(e) => return unread(args, out, &e),
    };
    let text = if args.json {
        serde_json::to_string_pretty(&repo_json(&now)).map(|t| t + "\n")
    } else {
        Ok(crate::engine::dashboard::terminal(
            &now.pulls,
            remote.repo.as_str(),
        ))
    };
    if let Err(e) = write_out(text, out) {
        eprintln!("auditloop: {e}");
        return ExitCode::from(CANNOT_TELL);
    }
    if now.damaged {
        eprintln!("auditloop: cannot tell: some audit records are damaged; `auditloop status --repo {} --pr N` says which and how to repair them", remote.repo);
        return ExitCode::from(CANNOT_TELL);
    }
    if now.pulls.iter().all(|p| p.passes) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes what `status` prints, or says why it could not be made.
fn write_out(text: serde_json::Result<String>, out: &mut dyn Write) -> anyhow::Result<()> {
    out.write_all(text?.as_bytes())?;
    Ok(())
}

/// Prints the gate and exits 0, 1, 2 or 3; every failure is said on standard error.
pub(crate) fn run(args: &StatusArgs, out: &mut dyn Write) -> ExitCode {
    let Some(pr) = args.pr else {
        return run_repo(args, out);
    };
    let remote = args.remote(pr);
    let read = args.assurance.resolve().and_then(|min| {
        run_async(async {
            let api = remote.api()?;
            status(&remote, &api, min).await
        })
    });
    let (status, damaged) = match read {
        Ok(read) => read,
        Err(e) => return unread(args, out, &e),
    };
    let text = if args.json {
        serde_json::to_string_pretty(&status).map(|t| t + "\n")
    } else {
        Ok(status.text())
    };
    if let Err(e) = write_out(text, out) {
        eprintln!("auditloop: {e}");
        return ExitCode::from(CANNOT_TELL);
    }
    if let Some(why) = damaged {
        eprintln!("auditloop: {}", damaged_words(&why));
        return ExitCode::from(CANNOT_TELL);
    }
    if status.passes {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
