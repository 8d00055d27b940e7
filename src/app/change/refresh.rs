//! After a change, the views follow it in one direction: observe (reads), commit what the
//! observation makes due (a `dispatch` event), plan (pure), publish (views and replies).

use crate::app::commit::dispatch::{self, WhenDue};
use crate::app::context::Ctx;
use crate::app::publish::plan::{self, DispatchNow};
use crate::app::publish::reply::{self, Thanks};
use crate::app::publish::write;
use crate::app::reads::observe::{self, gate_for, Body, RunMode, Target};
use crate::github::GitHubError;

/// Re-evaluates the gate of `target`'s PR and rebuilds its views. Other open PRs on the
/// same head are gated too: the check passes only when every one of them passes. A view
/// computed from an older records commit than the one our run shows is not published; a
/// branch that no longer contains that commit fails condition 1.
pub(crate) async fn refresh(
    ctx: &Ctx,
    target: Target<'_>,
    mode: RunMode,
    body: Body,
) -> Result<(), GitHubError> {
    refresh_with(ctx, target, mode, body, RefreshExtras::default()).await
}

/// What a refresh does besides the views.
#[derive(Debug, Default)]
pub(crate) struct RefreshExtras {
    /// Commit and send a dispatch the records made due (see [`refresh_with`]).
    pub(crate) dispatch: WhenDue,
    /// A command's +1, given with the body's update when both go.
    pub(crate) thanks: Option<Thanks>,
}

/// As [`refresh`]; with `after.dispatch`, a record this made ready for a fresh auditor run
/// gets its `dispatch` event committed before the gate is evaluated and anything is
/// published, and the request is sent before the check run that shows it
/// (docs/reference.md#when-the-app-dispatches).
/// `after.thanks` is given whether or not the views are published.
pub(crate) async fn refresh_with(
    ctx: &Ctx,
    target: Target<'_>,
    mode: RunMode,
    body: Body,
    after: RefreshExtras,
) -> Result<(), GitHubError> {
    let RefreshExtras { dispatch, thanks } = after;
    // Boxed: what was observed is held across the awaits below, and futures stay small.
    let Some(mut seen) = Box::pin(observe::observe(ctx, target, body))
        .await?
        .map(Box::new)
    else {
        return match thanks {
            Some(t) => reply::carried_out(ctx, t.comment).await,
            None => Ok(()),
        };
    };
    // Everything this change decides is decided first: a dispatch the records made due is
    // committed before the gate is evaluated, once, on the records the views show.
    let mut asked = None;
    if let (WhenDue::Send, Ok(state)) = (dispatch, &seen.state) {
        let published = seen.published.as_deref();
        asked = dispatch::decide(
            ctx,
            seen.bot_slug,
            seen.pull,
            state,
            &seen.checks,
            published,
        )
        .await?;
    }
    if let Some((state, commit)) = asked.as_mut().and_then(|a| a.recorded.take()) {
        seen.state = Ok(state);
        seen.records_commit = commit.or(seen.records_commit);
    }
    let gate = gate_for(ctx, seen.pull, &seen.state, &seen.checks);
    let others = observe::others(ctx, gate.as_ref(), &seen).await?;
    let sent = if asked.is_some() {
        DispatchNow::Sent
    } else {
        DispatchNow::NotSent
    };
    let plan = plan::plan(ctx, gate, &seen, &others, mode, sent);
    drop(others);
    if let Some(asked) = asked {
        asked.send(ctx).await?;
    }
    write::publish_plan(ctx, *seen, plan, thanks).await
}
