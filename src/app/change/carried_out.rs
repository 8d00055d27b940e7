//! A command carried out: its decision committed on the records branch, then its views and
//! its +1 published from what was committed.

use std::sync::Mutex;

use crate::app::change::refresh;
use crate::app::commit::commit_loop::{self, Attempt, Unwritten};
use crate::app::commit::decision::{self, CommandDecision, Facts, Need};
use crate::app::commit::dispatch::WhenDue;
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::publish::reply::Thanks;
use crate::app::reads::loading;
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::runs;
use crate::app::reads::state::State;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

/// The views and the +1 of a command carried out: the +1 goes with the body's update.
pub(crate) async fn publish_carried_out(
    ctx: &Ctx,
    target: observe::Target<'_>,
    mode: RunMode,
    dispatch: WhenDue,
    thanks: Thanks,
) -> Result<(), GitHubError> {
    let after = refresh::RefreshExtras {
        dispatch,
        thanks: Some(thanks),
    };
    refresh::refresh_with(ctx, target, mode, Body::Rebuild, after).await
}

/// Commits the command's decision, then publishes the views and the +1 from what was
/// committed.
pub(crate) async fn commit(
    ctx: &Ctx,
    pull: &Pull,
    decision: CommandDecision,
    thanks: Thanks,
    dispatch: WhenDue,
) -> Result<(), CommandFailure> {
    let pr = pull.number;
    // Our run on the head names the newest records commit GitHub has seen: nothing is
    // written on a branch that no longer contains it. The listing serves the views too.
    let runs = ctx
        .delivery_cache
        .head_runs(&ctx.api, &ctx.repo, &pull.head_sha)
        .await?;
    let slug = ctx.bot_slug().await?;
    let check_name = ctx.check_name();
    let named = runs::our_named_commit(&runs, check_name, slug);
    // What the decision asked GitHub for, answered inside the commit loop.
    let facts = Mutex::new(Facts::default());
    // A change that may pass the gate has its views combine the open PRs on the head:
    // they are listed beside the commit, not after it (a report's first reads listed them).
    let sharing = async {
        if decision.may_pass && !ctx.delivery_cache.has_sharing(&pull.head_sha) {
            let pulls = rest::open_pulls_for_commit(&ctx.api, &ctx.repo, &pull.head_sha).await?;
            ctx.delivery_cache.saw_sharing(pull.head_sha.clone(), pulls);
        }
        Ok::<_, GitHubError>(())
    };
    let applying = commit_loop::apply_fetching(
        ctx,
        pr,
        decision.named.as_ref(),
        named.as_ref(),
        &decision.message,
        |state| {
            (decision.decide)(
                state,
                &facts
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            )
        },
        |need| decision::fetch(ctx, &facts, need),
    );
    let (outcome, ()) = futures::try_join!(applying, sharing)?;
    let (state, commit, checked) = committed(ctx, pr, outcome).await?;
    let mode = RunMode::create_if(decision.new_run);
    let state = Ok(state);
    let again = moved_on(pull, facts);
    let (pull, runs) = match &again {
        Some(now) => (now, None),
        None => (pull, Some(runs.as_slice())),
    };
    let target = observe::Target {
        pull,
        state: &state,
        records_commit: commit.as_ref(),
        runs,
        checked,
    };
    publish_carried_out(ctx, target, mode, dispatch, thanks).await?;
    Ok(())
}

/// The PR as the decision read it again, when it had moved on from `pull`: the views are
/// then shown on the head it has.
fn moved_on(pull: &Pull, facts: Mutex<Facts>) -> Option<Pull> {
    facts
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .pull_read_again()
        .filter(|now| now.head_sha != pull.head_sha)
        .cloned()
}

/// The state the views of a command are built from, with its records commit and whether
/// its lineage was checked; a decision that did not write is the command's failure, or,
/// when this delivery's change is already in, the records as they are.
async fn committed(
    ctx: &Ctx,
    pr: PrNumber,
    outcome: Attempt<Refused, Need>,
) -> Result<(State, Option<CommitSha>, bool), CommandFailure> {
    Ok(match outcome {
        Attempt::Committed { state, commit } => (*state, commit, true),
        Attempt::Unwritten(Unwritten::Refused(why)) => return Err(why.into()),
        Attempt::Unwritten(Unwritten::Damaged(why)) => {
            return Err(loading::damaged(ctx, &why).into())
        }
        Attempt::Unwritten(Unwritten::Needs(need)) => {
            return Err(CommandFailure::Internal(format!(
                "the decision still needed {need:?} after {} answers",
                commit_loop::MAX_NEEDS
            )))
        }
        Attempt::Unwritten(Unwritten::AlreadyApplied) => {
            let state = loading::load(ctx, pr, None).await?;
            let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
            match state {
                Ok(s) => (s, commit, false),
                Err(why) => return Err(loading::damaged(ctx, &why).into()),
            }
        }
    })
}
