//! The reads an event needs whatever it turns out to be, started together with the
//! configuration read instead of one after the other: the pull request, the commenter's
//! permission, the records branch and the check runs on the head (a comment does not name
//! the head: the one the pull request had when this process last read it is listed). Each
//! lands in the delivery's `Seen`, where the handlers find it; a read made on a guess that
//! proves wrong is simply not used.

use crate::app::claim;
use crate::app::commit::{decision, store};
use crate::app::context::Ctx;
use crate::commands::{Parsed, ParsedCommand};
use crate::engine::policy::{role_for, Role};
use crate::events::{Event, IssueCommentEvent, PullRequestAction, PullRequestEvent};
use crate::github::{rest, GitHubError};
use crate::ids::{CommitSha, Login, PrNumber};

/// `parsed`: a comment's command, read once by the caller for the handler too.
pub async fn reads(ctx: &Ctx, event: &Event, parsed: Option<&Parsed>) -> Result<(), GitHubError> {
    match event {
        Event::PullRequest(e) => {
            // The new head for its check run; before a push, the old one too, whose run
            // names the records commit a rebind must extend.
            let heads: Vec<CommitSha> = std::iter::once(&e.pull_request.head.sha)
                .chain(e.before.as_ref())
                .filter_map(|h| CommitSha::new(h.clone()).ok())
                .collect();
            let runs = futures::future::try_join_all(
                heads
                    .iter()
                    .map(|h| ctx.seen.list_runs_early(&ctx.api, &ctx.repo, h)),
            );
            // A rebind goes to the head the PR has now, never to the payload's, which a
            // late delivery may carry long after a newer push.
            let pull = async {
                if may_rebind(e) {
                    ctx.seen.pull(&ctx.api, &ctx.repo, e.number).await.map(Some)
                } else {
                    Ok(None)
                }
            };
            let ((), _, now) = futures::try_join!(
                async { store::load(ctx, e.number, None).await.map(drop) },
                runs,
                pull,
            )?;
            let payload_head = heads
                .first()
                .filter(|h| h.as_str() == e.pull_request.head.sha);
            if let Some(head) = now.as_ref().map(|p| &p.head_sha).or(payload_head) {
                ctx.memory.remember_head(&ctx.repo, e.number, head);
            }
            Ok(())
        }
        Event::IssueComment(e) => Box::pin(comment_reads(ctx, e, parsed)).await,
        _ => Ok(()),
    }
}

async fn comment_reads(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    parsed: Option<&Parsed>,
) -> Result<(), GitHubError> {
    let number = PrNumber(e.issue.number);
    // Every answer is anchored at the PR's head (the claim that keeps a reply single), so a
    // refusal or `help` needs the pull request and nothing else.
    let command = match parsed {
        None | Some(Ok(None)) => return Ok(()),
        Some(Ok(Some(ParsedCommand::Help)) | Err(_)) => {
            return ctx.seen.pull(&ctx.api, &ctx.repo, number).await.map(drop)
        }
        Some(Ok(Some(command))) => command,
    };
    let named = match &command {
        ParsedCommand::Adopt { audit_id } => Some(audit_id.clone()),
        _ => None,
    };
    let login = Login::new(e.comment.user.login.clone()).ok();
    let asks_permission = login
        .as_ref()
        .is_some_and(|l| needs_permission(ctx, command, l));
    let permission = async {
        match (&login, asks_permission) {
            (Some(l), true) => ctx
                .seen
                .permission(&ctx.api, &ctx.repo, l.as_str())
                .await
                .map(drop),
            _ => Ok(()),
        }
    };
    let guess = ctx.memory.head_of(&ctx.repo, number);
    let runs = async {
        match &guess {
            Some(head) => ctx.seen.list_runs_early(&ctx.api, &ctx.repo, head).await,
            None => Ok(()),
        }
    };
    // The claim on the command's one outcome is made with the reads when a commit to
    // anchor it is known (any commit of the repository will do); a create that fails here
    // is simply made again later, at the head just read.
    let outcome = async {
        if let (Some(head), true) = (&guess, command.changes_records()) {
            let name = claim::first_generation(ctx, &claim::outcome_effect(number));
            if let Ok(won) = rest::create_ref(&ctx.api, &ctx.repo, &name, head).await {
                ctx.seen.claimed_early(won);
            }
        }
        Ok(())
    };
    let (pull, ..) = futures::try_join!(
        ctx.seen.pull(&ctx.api, &ctx.repo, number),
        async { store::load(ctx, number, named.as_ref()).await.map(drop) },
        permission,
        runs,
        outcome,
    )?;
    ctx.memory.remember_head(&ctx.repo, number, &pull.head_sha);
    Ok(())
}

/// Whether the event may rebind the record (docs/reference.md#baseline): a push, a reopen, a base change.
pub fn may_rebind(e: &PullRequestEvent) -> bool {
    match e.action {
        PullRequestAction::Synchronize | PullRequestAction::Reopened => true,
        PullRequestAction::Edited => e.changes.as_ref().is_some_and(|c| c.base.is_some()),
        _ => false,
    }
}

/// Whether `authorize` will ask for the commenter's permission, judged on the last known
/// configuration (a wrong guess costs one call or a later read, never a wrong answer).
fn needs_permission(ctx: &Ctx, command: &ParsedCommand, login: &Login) -> bool {
    let Ok(config) = &ctx.config else {
        return false;
    };
    if role_for(command.name(), command.asked_budget(), config.audit_budget) == Role::Anyone {
        return false;
    }
    match command {
        ParsedCommand::Report { payload, .. } => {
            !config.permissions.is_listed_auditor(login) && !decision::carries_receipt(payload)
        }
        _ => true,
    }
}
