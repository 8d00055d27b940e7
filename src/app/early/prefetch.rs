//! The reads an event needs whatever it turns out to be, started together with the
//! configuration read instead of one after the other: the pull request, the commenter's
//! permission, the records branch and the check runs on the head. A comment's command
//! reads the configuration, the records ref, the pull request and its head's runs in one
//! GraphQL query (`github/first_reads.rs`); its permission and outcome claim go beside it.
//! Each read lands in the delivery's `DeliveryCache`, where the handlers find it; a read made on a
//! guess that proves wrong is simply not used.

use crate::app::commit::authorize;
use crate::app::context::Ctx;
use crate::app::reads::ahead::{self, Wants};
use crate::app::reads::loading;
use crate::commands::{Parsed, ParsedCommand};
use crate::engine::layout::INDEX_PATH;
use crate::engine::patterns::PATTERNS_PATH;
use crate::engine::repo_config::CONFIG_PATH;
use crate::events::{IssueCommentEvent, PullRequestAction, PullRequestEvent, WebhookEvent};
use crate::github::first_reads::{first_reads, ConfigBlob, Extra, RecordFiles};
use crate::github::GitHubError;
use crate::ids::{CommitSha, Login, PrNumber};

/// Whether [`reads`] reads the configuration too (then the caller does not).
pub(crate) fn reads_config(event: &WebhookEvent, parsed: Option<&Parsed>) -> bool {
    match event {
        WebhookEvent::PullRequest(_) => true,
        WebhookEvent::IssueComment(_) => !matches!(parsed, None | Some(Ok(None))),
        _ => false,
    }
}

/// `parsed`: a comment's command, read once by the caller for the handler too. The
/// configuration file, when [`reads_config`] and the query brought it.
pub(crate) async fn reads(
    ctx: &Ctx,
    event: &WebhookEvent,
    parsed: Option<&Parsed>,
) -> Result<Option<ConfigBlob>, GitHubError> {
    match event {
        WebhookEvent::PullRequest(e) => {
            // The query lists the runs on the head the PR has now (a rebind goes there,
            // never to the payload's, which a late delivery may carry long after a newer
            // push); before a push, the old head's too, whose run names the records commit
            // a rebind must extend. Any other head's runs are listed when asked for.
            let before = e
                .before
                .as_ref()
                .and_then(|h| CommitSha::new(h.clone()).ok());
            let old = async {
                match &before {
                    Some(head) => {
                        ctx.delivery_cache
                            .list_runs_early(&ctx.api, &ctx.repo, head)
                            .await
                    }
                    None => Ok(()),
                }
            };
            let body = e.pull_request.body.as_deref();
            let ahead = Ahead::Records {
                body,
                commits: false,
                wants: None,
            };
            let (config, ()) = futures::try_join!(first(ctx, e.number, ahead), old)?;
            // Without the query's pull request, one is read only for a rebind.
            let now = async {
                if may_rebind(e) || ctx.delivery_cache.known_pull(e.number).is_some() {
                    ctx.delivery_cache
                        .pull(&ctx.api, &ctx.repo, e.number)
                        .await
                        .map(Some)
                } else {
                    Ok(None)
                }
            };
            let (now, ()) = futures::try_join!(now, load_with_pull(ctx, e.number, None))?;
            let payload = CommitSha::new(e.pull_request.head.sha.clone()).ok();
            if let Some(head) = now.map(|p| p.head_sha).or(payload) {
                ctx.memory.remember_head(&ctx.repo, e.number, &head);
            }
            Ok(config)
        }
        WebhookEvent::IssueComment(e) => Box::pin(comment_reads(ctx, e, parsed)).await,
        _ => Ok(None),
    }
}

/// Loads the PR's record at the records commit the first reads found, and keeps its
/// candidate as the one the record had when the PR was read (the PR comes with those reads
/// or after them). Records the first reads did not find are read now, maybe after the PR:
/// then nothing is kept, and a rebind reads the PR again after its first look.
async fn load_with_pull(
    ctx: &Ctx,
    number: PrNumber,
    named: Option<&crate::ids::AuditId>,
) -> Result<(), GitHubError> {
    let first = ctx
        .delivery_cache
        .records_head(ctx.records_branch())
        .flatten();
    let state = loading::load(ctx, number, named).await?;
    if let Ok(crate::app::reads::state::State {
        commit: Some(commit),
        record: Some(Ok(record)),
        ..
    }) = &state
    {
        if first.as_ref() == Some(commit) {
            ctx.delivery_cache
                .saw_candidate_with_pull(number, record.candidate_artifact.clone());
        }
    }
    Ok(())
}

/// Whether the first reads ask ahead for the records files a command reads.
#[derive(Clone, Copy)]
enum Ahead<'a> {
    /// The answer reads no records (`help`, a parse error's refusal).
    Nothing,
    /// `body`: the PR's body as the payload carries it, whose stamp may name the PR's
    /// record (a guess at what to read ahead, never what decides: the index does).
    /// `commits`: a report, whose independence rule reads who wrote the commits.
    /// `wants`: the threads and file versions its decision and views read ahead.
    Records {
        body: Option<&'a str>,
        commits: bool,
        wants: Option<&'a Wants>,
    },
}

/// The first reads, kept in `DeliveryCache`: the pull request, its head's runs and where the
/// records branch is; the configuration is the caller's.
async fn first(
    ctx: &Ctx,
    number: PrNumber,
    ahead: Ahead<'_>,
) -> Result<Option<ConfigBlob>, GitHubError> {
    let branch = ctx.records_branch();
    // Where another replica likely wrote last, its commit's listing and files come too.
    let (expected, with_commits, wants) = match ahead {
        Ahead::Nothing => (None, false, None),
        Ahead::Records {
            body,
            commits,
            wants,
        } => (loading::first_files(ctx, number, body), commits, wants),
    };
    let extra = Extra {
        with_commits,
        with_threads: wants.is_some_and(|w| w.threads),
        with_sharing: with_commits,
        versions: wants.map_or(&[], |w| w.versions.as_slice()),
    };
    // The shards of the keys a command adds come too, unless this process knows them.
    let shards = wants.map_or(&[][..], |w| w.shards.as_slice());
    let unknown = !ctx.memory.records.knows(&ctx.repo, branch, shards);
    let expected = match expected {
        None if unknown => Some((None, false, Vec::new())),
        expected => expected,
    };
    let more: Option<Vec<String>> = expected.as_ref().map(|(_, _, more)| {
        let mut all = more.clone();
        all.extend(shards.iter().filter(|s| !more.contains(s)).cloned());
        all
    });
    let files = expected.as_ref().map(|(record, listing, _)| RecordFiles {
        listing: *listing,
        index: INDEX_PATH,
        record: record.as_deref(),
        patterns: PATTERNS_PATH,
        more: more.as_deref().unwrap_or_default(),
    });
    let ask = |api, files| {
        first_reads(
            api,
            &ctx.repo,
            number,
            &ctx.default_branch,
            branch,
            CONFIG_PATH,
            (files, extra),
        )
    };
    let read = match files {
        // The larger answer may be what fails (GitHub gives up on a query it cannot answer
        // in time), so it is asked once, for a bounded time; then the light query, and the
        // records through REST.
        Some(_) => match ask(&ctx.api.once_within(LISTING_WAIT), files).await {
            Err(e) if may_be_size(&e) => {
                tracing::warn!(error = %e, "first reads with the records files failed; asking without them");
                ask(&ctx.api, None).await?
            }
            read => read?,
        },
        None => ask(&ctx.api, None).await?,
    };
    keep(ctx, number, read).await
}

/// Keeps what the first reads brought in the delivery's cache (and the records head in
/// the process's memory); the configuration is the caller's.
async fn keep(
    ctx: &Ctx,
    number: PrNumber,
    read: crate::github::first_reads::FirstReads,
) -> Result<Option<ConfigBlob>, GitHubError> {
    let branch = ctx.records_branch();
    if let Some(records) = read.records {
        let head = records.as_ref().map(|r| &r.commit);
        ctx.memory.records.saw_head(&ctx.repo, branch, head);
        ctx.delivery_cache.saw_records(branch, head);
        if let Some(head) = records {
            ctx.delivery_cache.saw_records_head(head);
        }
    }
    if let Some((head, runs)) = read.runs {
        ctx.delivery_cache.saw_runs(head, runs);
    }
    if let Some(id) = read.repository {
        ctx.delivery_cache.saw_repository(id);
    }
    if let Some(pull) = read.pull {
        ctx.delivery_cache.saw_pull(pull);
    }
    if let Some(page) = read.commits {
        ctx.delivery_cache.saw_commits(number, page);
    }
    if let Some((head, pulls)) = read.sharing {
        ctx.delivery_cache.saw_sharing(head, pulls);
    }
    if let Some(threads) = read.threads {
        let slug = ctx.bot_slug().await?;
        ctx.delivery_cache.ahead.saw_threads(
            &threads.nodes,
            threads.page_info.has_previous_page,
            slug,
        );
    }
    if let Some(versions) = read.versions {
        ctx.delivery_cache.ahead.saw_versions(versions);
    }
    Ok(read.config)
}

/// How long the first reads with the records files may take before the light query is
/// asked instead: GitHub's answer of a large listing can take seconds, and the rest of the
/// delivery must still fit in its window.
const LISTING_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether `e` is a failure a smaller answer might not meet: no answer, a gateway's 5xx,
/// or one that could not be read.
fn may_be_size(e: &GitHubError) -> bool {
    match e {
        GitHubError::Transport { .. } | GitHubError::Decode { .. } => true,
        GitHubError::Status { status, .. } => *status >= 500,
        _ => false,
    }
}

async fn comment_reads(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    parsed: Option<&Parsed>,
) -> Result<Option<ConfigBlob>, GitHubError> {
    let number = PrNumber(e.issue.number);
    // A refusal or `help` needs the pull request and nothing else.
    let command = match parsed {
        None | Some(Ok(None)) => return Ok(None),
        Some(Ok(Some(ParsedCommand::Help))) => {
            return Box::pin(crate::app::early::claims::with_early_reply(
                ctx,
                e,
                pull_reads(ctx, number),
            ))
            .await;
        }
        Some(Err(_)) => return pull_reads(ctx, number).await,
        Some(Ok(Some(command))) => command,
    };
    let named = match &command {
        ParsedCommand::Adopt { audit_id } => Some(audit_id.clone()),
        _ => None,
    };
    let permission = permission(ctx, e, command);
    let outcome = async {
        crate::app::early::claims::outcome_claim(ctx, number, command).await;
        Ok(())
    };
    // The records are loaded at the ref the query saw: from the cache when this process
    // made that commit, else from what the query listed and brought (or object by object).
    let wants = ahead::wants(ctx, command, number);
    let reads = async {
        let body = e.issue.body.as_deref();
        let commits = matches!(command, ParsedCommand::Report { .. });
        let records = Ahead::Records {
            body,
            commits,
            wants: Some(&wants),
        };
        let (config, ()) = futures::try_join!(
            first(ctx, number, records),
            ahead::read_diff(ctx, number, &wants)
        )?;
        let (pull, ()) = futures::try_join!(
            ctx.delivery_cache.pull(&ctx.api, &ctx.repo, number),
            load_with_pull(ctx, number, named.as_ref())
        )?;
        Ok::<_, GitHubError>((config, pull))
    };
    let all = async {
        let ((config, pull), ..) = futures::try_join!(reads, permission, outcome)?;
        ctx.memory.remember_head(&ctx.repo, number, &pull.head_sha);
        Ok(config)
    };
    match command {
        ParsedCommand::Status => {
            Box::pin(crate::app::early::claims::with_early_reply(
                ctx,
                e,
                Box::pin(all),
            ))
            .await
        }
        _ => Box::pin(all).await,
    }
}

/// The first reads, and the pull request through REST if they did not bring it.
async fn pull_reads(ctx: &Ctx, number: PrNumber) -> Result<Option<ConfigBlob>, GitHubError> {
    let config = first(ctx, number, Ahead::Nothing).await?;
    ctx.delivery_cache.pull(&ctx.api, &ctx.repo, number).await?;
    Ok(config)
}

/// The commenter's permission, when the command will ask for it.
async fn permission(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    command: &ParsedCommand,
) -> Result<(), GitHubError> {
    match Login::new(e.comment.user.login.clone()) {
        Ok(login) if needs_permission(ctx, command, &login) => ctx
            .delivery_cache
            .permission(&ctx.api, &ctx.repo, login.as_str())
            .await
            .map(drop),
        _ => Ok(()),
    }
}

/// Whether the event may rebind the record (docs/reference.md#baseline): a push, a reopen, a base change.
pub(crate) fn may_rebind(e: &PullRequestEvent) -> bool {
    match e.action {
        PullRequestAction::Synchronize | PullRequestAction::Reopened => true,
        PullRequestAction::Edited => e.changes.as_ref().is_some_and(|c| c.base.is_some()),
        _ => false,
    }
}

/// Whether `authorize` will ask for the commenter's permission, judged on the last known
/// configuration (a wrong guess costs one call or a later read, never a wrong answer).
fn needs_permission(ctx: &Ctx, command: &ParsedCommand, login: &Login) -> bool {
    ctx.config
        .as_ref()
        .is_ok_and(|config| authorize::asks_permission(config, command, login))
}
