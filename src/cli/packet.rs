//! `auditloop packet --repo OWNER/REPO --pr N`: the audit packet of the PR's record, read
//! from the records branch with a token, printed as JSON (CONTRACT §2, §11). The
//! `audit_packet` tool (`mcp`) answers with the same [`packet_json`].

use std::io::Write;
use std::process::ExitCode;

use super::remote::{load, run_async, RemoteArgs};
use crate::engine::packet::{packet, PacketSource};
use crate::github::Api;

#[derive(clap::Args, Debug)]
pub struct PacketArgs {
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// The packet of the PR's record.
///
/// # Errors
///
/// When a GitHub read fails or the PR has no record that loads.
pub async fn packet_json(remote: &RemoteArgs, api: &Api) -> anyhow::Result<serde_json::Value> {
    let loaded = load(remote, api, true).await?;
    let commit = loaded
        .snapshot
        .commit
        .as_ref()
        .map(|c| c.as_str().to_owned());
    let source = PacketSource {
        records_branch: &loaded.branch,
        records_commit: commit.as_deref(),
    };
    Ok(packet(&loaded.record, &loaded.reports, &source))
}

/// # Errors
///
/// When the token is missing, a GitHub read fails, or the output cannot be written.
pub fn run(args: &PacketArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let text = run_async(async {
        let api = args.remote.api()?;
        let value = packet_json(&args.remote, &api).await?;
        Ok(serde_json::to_string_pretty(&value)?)
    })?;
    writeln!(out, "{text}")?;
    Ok(ExitCode::SUCCESS)
}
