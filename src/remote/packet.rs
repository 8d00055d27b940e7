//! `auditloop packet --repo OWNER/REPO --pr N`: the audit packet of the PR's record, read
//! from the records branch with a token, printed as JSON (docs/reference.md#the-audit-packet), with what
//! changed since the last audited candidate (one compare call) and the repository's most
//! seen patterns (docs/reference.md#the-pattern-library), and what the auditor judges
//! against: the covered issues, the required checks on the candidate and the decision
//! records (one GraphQL query), and the finding ledger's settled keys and the files
//! unchanged since the last audit (the pull request's files, one listing). The
//! `audit_packet` tool (`mcp`) answers with the same [`packet_json`].

use std::io::Write;
use std::process::ExitCode;

use super::connection::{load_on, run_async, RemoteArgs, Rules};
use super::failure::explained;
use crate::engine::packet::{packet, PacketSource};
use crate::engine::packet_context;
use crate::engine::packet_delta::{changed_since, last_audited, packet_patterns, Delta, DeltaFile};
use crate::engine::packet_ledger::packet_ledger;
use crate::engine::record::Record;
use crate::github::packet_reads::{packet_reads, Ask};
use crate::github::rest::{self, COMPARE_FILES_LIMIT};
use crate::github::Api;
use crate::ids::PrNumber;

#[derive(clap::Args, Debug)]
pub(crate) struct PacketArgs {
    #[command(flatten)]
    pub(crate) remote: RemoteArgs,
}

/// The compare from the last audited candidate to the current one, when they differ.
async fn delta(remote: &RemoteArgs, api: &Api, record: &Record) -> anyhow::Result<Option<Delta>> {
    let Some(last) = last_audited(record).filter(|a| **a != record.candidate_artifact) else {
        return Ok(None);
    };
    let Some(comparison) = rest::compare(
        api,
        &remote.repo,
        last.sha(),
        record.candidate_artifact.sha(),
    )
    .await?
    else {
        return Ok(Some(Delta::Unknown));
    };
    Ok(Some(Delta::Compared {
        status: comparison.status,
        files: comparison
            .files
            .into_iter()
            .map(|f| DeltaFile {
                path: f.filename,
                status: f.status,
                previous_path: f.previous_filename,
            })
            .collect(),
        limit: COMPARE_FILES_LIMIT,
    }))
}

/// The packet of the PR's record.
///
/// # Errors
///
/// When a GitHub read fails or the PR has no record that loads.
pub(crate) async fn packet_json(
    remote: &RemoteArgs,
    api: &Api,
) -> anyhow::Result<serde_json::Value> {
    let rules = remote.rules(api).await?;
    let branch = remote
        .records_branch
        .clone()
        .unwrap_or_else(|| rules.config.records_branch.clone());
    let loaded = load_on(remote, api, true, branch).await?;
    let commit = loaded
        .snapshot
        .commit
        .as_ref()
        .map(|c| c.as_str().to_owned());
    let source = PacketSource {
        records_branch: &loaded.branch,
        records_commit: commit.as_deref(),
    };
    let mut value = packet(&loaded.record, &loaded.reports, &source);
    let delta = delta(remote, api, &loaded.record).await?;
    value["changed_since"] = changed_since(&loaded.record, delta.as_ref());
    let files = rest::pull_files(api, &remote.repo, PrNumber(remote.pr), None).await?;
    let files: Vec<String> = files.into_iter().map(|f| f.filename).collect();
    value["ledger"] = packet_ledger(&loaded.record, Some(&files), delta.as_ref());
    value["patterns"] = packet_patterns(loaded.patterns.as_ref());
    context(remote, api, &rules, &loaded.record, &mut value).await?;
    Ok(value)
}

/// `tasks`, `checks` and `decisions`: the covered issues, the required checks on the
/// candidate and the decision records, in one query.
async fn context(
    remote: &RemoteArgs,
    api: &Api,
    rules: &Rules,
    record: &Record,
    value: &mut serde_json::Value,
) -> anyhow::Result<()> {
    let config = &rules.config;
    let numbers: Vec<u64> = record
        .covered_tasks
        .iter()
        .filter_map(packet_context::issue_number)
        .collect();
    let required = &config.evidence.required_checks;
    let ask = Ask {
        repo: &remote.repo,
        decisions: format!("{}:{}", rules.default_branch, config.decisions_path),
        candidate: (!required.is_empty()).then(|| record.candidate_artifact.sha()),
        issues: &numbers,
    };
    let read = packet_reads(api, &ask).await?;
    let issues = read.issues.unwrap_or_default();
    value["tasks"] = packet_context::tasks(&record.covered_tasks, &|n| {
        issues
            .iter()
            .find(|(asked, _)| *asked == n)
            .and_then(|(_, i)| i.clone())
    });
    value["checks"] = packet_context::checks(required, read.runs.as_deref());
    value["decisions"] = packet_context::decisions(
        &config.decisions_path,
        read.decisions.as_deref().unwrap_or_default(),
    );
    Ok(())
}

/// # Errors
///
/// When the token is missing, a GitHub read fails, or the output cannot be written.
pub(crate) fn run(args: &PacketArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let remote = &args.remote;
    let text = run_async(async {
        let api = remote.api()?;
        let value = packet_json(remote, &api).await?;
        Ok(serde_json::to_string_pretty(&value)?)
    })
    .map_err(|e| explained(e, &remote.repo, Some(remote.pr)))?;
    writeln!(out, "{text}")?;
    Ok(ExitCode::SUCCESS)
}
