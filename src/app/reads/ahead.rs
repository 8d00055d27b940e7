//! What a command's decision and views read ahead, beside its first reads
//! (docs/reference.md#review-threads): the PR's review threads, the diff's lines a thread
//! may go on, and the versions of the files a report's new findings cite (whether one is
//! late). Each is asked only for a command that uses it: a report reads all three, `waive`
//! and `resolve` the threads they may resolve.

use crate::app::context::Ctx;
use crate::commands::{ParsedCommand, ReportPayload};
use crate::engine::layout::{record_path, IndexMap};
use crate::engine::ledger::late;
use crate::engine::ledger::LedgerKey;
use crate::engine::record::shards::shards_of;
use crate::engine::record::{load_record, Record};
use crate::engine::repo_config::ReviewThreads;
use crate::engine::report::evidence_ref::parse_evidence_ref;
use crate::engine::report::{parse_report, Report};
use crate::engine::views::threads::Diff;
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{Artifact, PrNumber};

/// What to ask ahead for one command.
#[derive(Debug, Default)]
pub(crate) struct Wants {
    pub(crate) threads: bool,
    /// The files whose patch the threads need.
    pub(crate) files: Vec<String>,
    pub(crate) versions: Vec<(Artifact, String)>,
    /// The index shards of the keys the command adds (layout version 2): read with the
    /// first reads, so that the commit need not read them first.
    pub(crate) shards: Vec<String>,
}

/// The repository's review-thread setting as this process last read it.
fn setting(ctx: &Ctx) -> ReviewThreads {
    ctx.config
        .as_ref()
        .map_or(ReviewThreads::default(), |c| c.review_threads)
}

/// What `command` reads ahead on PR `pr`.
pub(crate) fn wants(ctx: &Ctx, command: &ParsedCommand, pr: PrNumber) -> Wants {
    let setting = setting(ctx);
    match command {
        ParsedCommand::Report {
            payload: ReportPayload::Json(text),
            ..
        } => {
            let Ok(intake) = parse_report(text) else {
                return Wants::default();
            };
            let mut wants = report_wants(ctx, &intake.report, setting, pr);
            let invocation = [intake.report.invocation.reference.as_str()];
            wants.shards = shards_of(IndexMap::Invocations, invocation);
            let receipt = intake.receipt.iter().map(|r| r.receipt_id.as_str());
            wants.shards.extend(shards_of(IndexMap::Receipts, receipt));
            wants
        }
        ParsedCommand::Waive { .. } | ParsedCommand::Resolve { .. } => Wants {
            threads: setting != ReviewThreads::Off,
            ..Wants::default()
        },
        _ => Wants::default(),
    }
}

fn report_wants(ctx: &Ctx, report: &Report, setting: ReviewThreads, pr: PrNumber) -> Wants {
    let files = report
        .findings
        .iter()
        .filter(|f| setting.covers(f.blocking))
        .filter_map(|f| f.evidence_refs.first().and_then(|r| parse_evidence_ref(r)))
        .map(|(path, _, _)| path)
        .collect();
    let versions = known_record(ctx, pr).map_or_else(Vec::new, |record| {
        let findings = report.findings.iter().map(|f| {
            (
                LedgerKey::of_parts(f.key.as_ref(), &f.id),
                f.evidence_refs.as_slice(),
            )
        });
        late::wanted(&record, &report.candidate_artifact, findings)
    });
    Wants {
        threads: setting != ReviewThreads::Off,
        files,
        versions,
        shards: Vec::new(),
    }
}

/// The PR's record as this process last knew it: its candidates tell which versions a
/// report's findings are judged on. A guess: the decision asks for what it lacks.
fn known_record(ctx: &Ctx, pr: PrNumber) -> Option<Record> {
    let cache = &ctx.memory.records;
    let branch = ctx.records_branch();
    let id = cache.known_pull(&ctx.repo, branch, pr)?;
    let text = cache.known_file(&ctx.repo, branch, &record_path(&id))?;
    load_record(&text).ok()
}

/// Reads the patches of `wants.files`, beside the first reads.
pub(crate) async fn read_diff(ctx: &Ctx, pr: PrNumber, wants: &Wants) -> Result<(), GitHubError> {
    if wants.files.is_empty() {
        return Ok(());
    }
    let files = rest::pull_files(&ctx.api, &ctx.repo, pr, Some(&wants.files)).await?;
    let mut diff = Diff::default();
    for f in &files {
        if let Some(patch) = &f.patch {
            diff.add_patch(&f.filename, patch);
        }
    }
    ctx.delivery_cache.ahead.saw_diff(diff);
    Ok(())
}
