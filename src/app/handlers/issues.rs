//! `issues.reopened`: a covered task reopened after its record was certified leaves the
//! certification stale ("any reopened covered task invalidates certification"). The
//! record gets a `task_reopened` event, and its PR's gate fails condition 3, naming the
//! task, until a baseline (docs/reference.md#gate-conditions).

use std::convert::Infallible;

use crate::app::change::refresh;
use crate::app::commit::commit_loop::{self, Attempt, Unwritten};
use crate::app::context::Ctx;
use crate::app::reads::loading;
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::runs;
use crate::app::reads::state::{self, change_files};
use crate::delivery::Handled;
use crate::engine::record::has_delivery;
use crate::engine::transition as t;
use crate::events::{IssuesAction, IssuesEvent};
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{Login, PrNumber, TaskId};
use crate::records::Change;

pub(crate) async fn handle(ctx: &Ctx, e: &IssuesEvent) -> Result<Handled, GitHubError> {
    if e.action != IssuesAction::Reopened || e.issue.pull_request.is_some() {
        return Ok(Handled::Ignored);
    }
    let (Ok(task), Ok(actor)) = (
        TaskId::new(format!("#{}", e.issue.number)),
        Login::new(e.sender.login.clone()),
    ) else {
        return Ok(Handled::Ignored);
    };
    match open_pull_covering(ctx, &task).await? {
        Some((pr, pull)) => stale(ctx, (pr, &pull), task, &actor).await,
        None => Ok(Handled::Ignored),
    }
}

/// The open PR whose record covers `task`: the index names the record, and the record
/// its PR.
async fn open_pull_covering(
    ctx: &Ctx,
    task: &TaskId,
) -> Result<Option<(PrNumber, Pull)>, GitHubError> {
    let reuse = crate::records::Reuse {
        cache: Some(&ctx.memory.records),
        ..Default::default()
    };
    let wanted = state::covering(task.clone());
    let branch = ctx.records_branch();
    let read = crate::records::read_with(&ctx.api, &ctx.repo, branch, &wanted, reuse).await?;
    let Some(pr) = state::covering_pull(&read, task) else {
        return Ok(None);
    };
    let pull = ctx.delivery_cache.pull(&ctx.api, &ctx.repo, pr).await?;
    Ok(pull.open.then_some((pr, pull)))
}

/// Records the reopened task on PR `pr`'s record, when that record is certified and
/// covers it, and refreshes the PR's views.
async fn stale(
    ctx: &Ctx,
    (pr, pull): (PrNumber, &Pull),
    task: TaskId,
    actor: &Login,
) -> Result<Handled, GitHubError> {
    // Nothing is written on a branch that no longer holds what our run on the head names.
    let on_head = ctx
        .delivery_cache
        .head_runs(&ctx.api, &ctx.repo, &pull.head_sha)
        .await?;
    let named = runs::our_named_commit(&on_head, ctx.check_name(), ctx.bot_slug().await?);
    let event = ctx.event(actor, None);
    let view = ctx.view();
    let message = format!("Covered task {task} reopened after the certification of {pr}");
    let outcome = commit_loop::apply_fetching::<Infallible, Infallible, _, _>(
        ctx,
        pr,
        None,
        named.as_ref(),
        &message,
        |state| {
            let record = match &state.record {
                Some(Ok(r)) if has_delivery(r, &ctx.delivery) => {
                    return Err(Unwritten::AlreadyApplied)
                }
                Some(Ok(r)) => r,
                Some(Err(why)) => return Err(Unwritten::Damaged(why.clone().into())),
                None => return Ok(Change::default()),
            };
            Ok(match t::task_reopened(record, task.clone(), &event) {
                Ok(Some(applied)) => change_files(&applied, state, &view, Vec::new()),
                _ => Change::default(),
            })
        },
        |never| async move { match never {} },
    )
    .await?;
    let (state, commit) = match outcome {
        Attempt::Committed { state, commit } => (Ok(*state), commit),
        Attempt::Unwritten(Unwritten::Damaged(why)) => (Err(why), named),
        Attempt::Unwritten(_) => {
            let state = loading::load(ctx, pr, None).await?;
            let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
            (state, commit)
        }
    };
    let target = observe::Target {
        pull,
        state: &state,
        records_commit: commit.as_ref(),
        runs: Some(on_head.as_slice()),
        checked: false,
    };
    refresh::refresh(ctx, target, RunMode::Update, Body::Rebuild).await?;
    Ok(Handled::Done)
}
