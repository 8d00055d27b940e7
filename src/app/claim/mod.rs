//! One effect outside the records branch (a reply, a filed issue, a warning, a command's
//! outcome) carried out by one handling, however many replicas and redeliveries handle the
//! same delivery. Replicas share nothing but GitHub, so the claim is made there: a ref
//! `refs/auditloop/claims/<delivery>/<effect>-<generation>`. GitHub creates a ref
//! atomically and answers 422 to a second create of the same name, so exactly one handling
//! makes each generation.
//!
//! A claim points at this process's *mark*: the newest records commit it made in the
//! repository, a commit no other process made (each carries its own nonce), and which
//! costs nothing more. So a create whose answer was lost, or a claim an earlier handling of
//! this process left, is known as ours by reading the ref back, never waited on as someone
//! else's. A process that has not written the repository's records yet points its claims
//! at the given anchor (the PR's head); those it cannot tell from another's, so they are
//! given one pause and taken over like a claim whose holder is not coming.
//!
//! The effect itself stays findable (the reply's delivery marker, the filed issue's marker,
//! the delivery in the records), and is looked for first: a redelivery after success does
//! nothing. A holder that fails with nothing done gives its claim back (a reply's claim is
//! deleted, so the retry takes it again) or, for a command's outcome, marks it failed
//! (`<claim>-failed`: generations only grow, so no later holder of a lower one acts
//! blind). A handling that finds the claim held looks for the holder's effect; a claim
//! marked failed is taken over in the next generation at once, any other is given one
//! [`PAUSE`] and looked at once more, then taken over: a holder that died delays the effect
//! by a pause instead of losing it, at any depth. Nothing waits past the delivery's
//! deadline: when the window runs out first, the delivery is answered 5xx and its
//! redelivery looks again. Only a holder slower than the pause between its claim and its
//! effect can let a second one through.

mod refs;

use std::future::Future;
use std::time::Duration;

use crate::app::context::delivery_cache::Taken;
use crate::app::context::Ctx;
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

pub(crate) use refs::{expired, PREFIX};
use refs::{failed_name, ref_name, segment};

/// How long a holder is given to show its effect before its claim is taken over: once per
/// handling, with a look for the effect before and after. A holder's claim-to-effect time
/// is a few calls, retries under GitHub's faults included.
pub(crate) const PAUSE: Duration = Duration::from_secs(3);
/// What must be left of the window after the pause to look once more and answer.
const LOOK: Duration = Duration::from_secs(1);

/// Makes the claim `name` (a full ref name) for this handling, pointing at this process's
/// mark, or at `anchor` (a commit of the repository) before it has one.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails, or its answer leaves the claim's fate unknown and
/// the ref cannot be read back.
pub(crate) async fn take(ctx: &Ctx, name: &str, anchor: &CommitSha) -> Result<Taken, GitHubError> {
    let mark = ctx.memory.mark(&ctx.repo);
    let target = mark.as_ref().unwrap_or(anchor);
    let made = rest::create_ref(&ctx.api, &ctx.repo, name, target).await;
    match made {
        Ok(true) => Ok(Taken::New),
        // It exists: ours if it points at our mark.
        Ok(false) => Ok(match owner(ctx, name, anchor).await? {
            Some(true) => Taken::Again,
            _ => Taken::Lost,
        }),
        // The create may have happened: what the ref points at tells.
        Err(e) if e.outcome_unknown() => match owner(ctx, name, anchor).await? {
            Some(true) => Ok(Taken::Again),
            Some(false) => Ok(Taken::Lost),
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Whether claim `name` is this process's (`None`: there is no such ref).
async fn owner(ctx: &Ctx, name: &str, anchor: &CommitSha) -> Result<Option<bool>, GitHubError> {
    let target = rest::ref_target(&ctx.api, &ctx.repo, name).await?;
    Ok(target.map(|t| ours(ctx, &t, anchor)))
}

/// Whether a claim pointing at `target` is this process's: at one of its marks, and not at
/// the anchor, where a process with no mark yet points its claims. The anchor may be a
/// records commit this process made (the dashboard's is): a claim there is anyone's.
fn ours(ctx: &Ctx, target: &str, anchor: &CommitSha) -> bool {
    target != anchor.as_str() && ctx.memory.is_mark(&ctx.repo, target)
}

/// What the claims of `effect` for this delivery say: the newest generation, whether it
/// is ours, and whether its holder marked it failed.
struct Held {
    generation: u32,
    ours: bool,
    failed: bool,
}

async fn held(
    ctx: &Ctx,
    (effect, anchor): (&str, &CommitSha),
) -> Result<Option<Held>, GitHubError> {
    let stem = ref_name(ctx.delivery.as_str_lossy(), effect, 0);
    let stem = stem.strip_suffix('0').unwrap_or(&stem);
    let listed = rest::matching_refs_at(&ctx.api, &ctx.repo, &stem["refs/".len()..]).await?;
    let mut claims = Vec::new();
    let mut failed = Vec::new();
    for (name, target) in &listed {
        let Some(rest) = name.strip_prefix(stem) else {
            continue;
        };
        match rest.strip_suffix("-failed") {
            Some(g) => failed.extend(g.parse::<u32>().ok()),
            None => {
                if let Ok(g) = rest.parse::<u32>() {
                    claims.push((g, ours(ctx, target, anchor)));
                }
            }
        }
    }
    Ok(claims
        .into_iter()
        .max_by_key(|(g, _)| *g)
        .map(|(generation, ours)| Held {
            generation,
            ours,
            failed: failed.contains(&generation),
        }))
}

/// Where a handling stands on a claim once [`contend`] returns.
enum Standing<T> {
    /// This handling holds the claim `name`; what an earlier holder did under it (of this
    /// process, or one taken over) was looked for already.
    Ours { name: String },
    /// Another handling did it; `T` says what.
    Done(T),
}

/// Takes the claim on `effect` for this delivery, or finds what its holder did
/// (`settled`), or takes it over from a holder that failed or is not coming. `first`: the
/// first generation's create, when it was made already.
async fn contend<T, S, SF>(
    ctx: &Ctx,
    (effect, anchor): (&str, &CommitSha),
    first: Option<Taken>,
    settled: S,
) -> Result<Standing<T>, GitHubError>
where
    S: Fn() -> SF,
    SF: Future<Output = Result<Option<T>, GitHubError>>,
{
    let delivery = ctx.delivery.as_str_lossy();
    let name = ref_name(delivery, effect, 1);
    let first = match first {
        Some(taken) => taken,
        None => take(ctx, &name, anchor).await?,
    };
    if first == Taken::New {
        return Ok(Standing::Ours { name });
    }
    if let Some(done) = settled().await? {
        return Ok(Standing::Done(done));
    }
    // Held: by whom, how many takeovers came before, and whether its holder failed.
    let held = held(ctx, (effect, anchor)).await?.unwrap_or(Held {
        generation: 1,
        ours: first == Taken::Again,
        failed: false,
    });
    if held.ours && !held.failed {
        let name = ref_name(delivery, effect, held.generation);
        return Ok(Standing::Ours { name });
    }
    let mut generation = held.generation;
    let mut failed = held.failed;
    loop {
        // A holder that may be at work is given one pause, and looked for once more.
        if !failed {
            if !ctx.api.allows(PAUSE + LOOK) {
                return Err(GitHubError::Contended {
                    effect: effect.to_owned(),
                });
            }
            tokio::time::sleep(PAUSE).await;
            if let Some(done) = settled().await? {
                return Ok(Standing::Done(done));
            }
        }
        generation += 1;
        tracing::warn!(
            effect,
            generation,
            failed,
            "a claim's holder showed nothing; taking it over"
        );
        let name = ref_name(delivery, effect, generation);
        if take(ctx, &name, anchor).await?.ours() {
            return Ok(Standing::Ours { name });
        }
        // Another handling took it over first: it is given the same pause.
        failed = false;
    }
}

/// Carries out `act` once across processes, unless `done` finds it carried out already.
/// `anchor`: a commit of the repository, for the claim of a process without a mark.
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails, or another handling holds the claim and the window
/// ran out before its effect showed.
pub(crate) async fn once<D, DF, A, AF>(
    ctx: &Ctx,
    effect: &str,
    anchor: &CommitSha,
    done: D,
    act: A,
) -> Result<(), GitHubError>
where
    D: Fn() -> DF,
    DF: Future<Output = Result<bool, GitHubError>>,
    A: FnOnce() -> AF,
    AF: Future<Output = Result<(), GitHubError>>,
{
    if done().await? {
        return Ok(());
    }
    let d = &done;
    let settled = move || async move { Ok::<_, GitHubError>(d().await?.then_some(())) };
    match contend(ctx, (effect, anchor), None, settled).await? {
        Standing::Ours { name } => act_or_release(ctx, &name, act).await,
        Standing::Done(()) => Ok(()),
    }
}

/// [`once`] without the first look, making the first generation's claim while `ready`
/// prepares what the effect needs (the two are independent): one round trip less on the
/// common path. `ready` also tells whether an earlier attempt may have got as far as the
/// effect (whose answer may have been lost, so its claim was given back): then the effect
/// is looked for before acting even on a claim made now.
///
/// # Errors
///
/// As [`once`].
pub(crate) async fn claimed_while<T, R, D, DF, A, AF>(
    ctx: &Ctx,
    (effect, anchor): (&str, &CommitSha),
    ready: R,
    done: D,
    act: A,
) -> Result<(), GitHubError>
where
    R: Future<Output = Result<(T, bool), GitHubError>>,
    D: Fn() -> DF,
    DF: Future<Output = Result<bool, GitHubError>>,
    A: FnOnce(T) -> AF,
    AF: Future<Output = Result<(), GitHubError>>,
{
    let name = first_generation(ctx, effect);
    let (taken, value) = futures::join!(take(ctx, &name, anchor), ready);
    after_first(ctx, (effect, anchor), taken?, value, done, act).await
}

/// [`claimed_while`] once the first generation's create is answered (`taken`), here or
/// with the early reads (see [`crate::app::early::prefetch`]), and `value` is ready.
///
/// # Errors
///
/// As [`once`].
pub(crate) async fn after_first<T, D, DF, A, AF>(
    ctx: &Ctx,
    (effect, anchor): (&str, &CommitSha),
    taken: Taken,
    value: Result<(T, bool), GitHubError>,
    done: D,
    act: A,
) -> Result<(), GitHubError>
where
    D: Fn() -> DF,
    DF: Future<Output = Result<bool, GitHubError>>,
    A: FnOnce(T) -> AF,
    AF: Future<Output = Result<(), GitHubError>>,
{
    let name = first_generation(ctx, effect);
    let (value, look_first) = match value {
        Ok(ready) => ready,
        Err(e) => {
            if taken == Taken::New {
                release(ctx, &name).await;
            }
            return Err(e);
        }
    };
    let look_first = look_first || taken == Taken::Again;
    if taken.ours() {
        if look_first && done().await? {
            return Ok(());
        }
        return act_or_release(ctx, &name, || act(value)).await;
    }
    let d = &done;
    let settled = move || async move { Ok::<_, GitHubError>(d().await?.then_some(())) };
    match contend(ctx, (effect, anchor), Some(taken), settled).await? {
        Standing::Ours { name } => act_or_release(ctx, &name, || act(value)).await,
        Standing::Done(()) => Ok(()),
    }
}

/// Acts under the claim `name`; a failure releases it, so the retry claims this generation
/// again instead of waiting for an effect that may never come.
async fn act_or_release<A, AF>(ctx: &Ctx, name: &str, act: A) -> Result<(), GitHubError>
where
    A: FnOnce() -> AF,
    AF: Future<Output = Result<(), GitHubError>>,
{
    let acted = act().await;
    if acted.is_err() {
        release(ctx, name).await;
    }
    acted
}

/// Where a delivery's one outcome stands once [`decide_once`] returns.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Turn<T> {
    /// This process holds the claim (the ref `name`): it alone decides the outcome now
    /// (what an earlier handling of this process decided under it was looked for).
    Ours { name: String },
    /// Another handling of the delivery decided already; `T` says what it did.
    Settled(T),
}

/// Takes the claim on the one outcome of this delivery (`effect`), so that a command is
/// refused or carried out by one handling only, across replicas and redeliveries: a
/// refusal leaves nothing in the records, so without it a second handling would decide
/// again on newer state. `early` is the first generation's create when it was made already
/// (see [`crate::app::early::prefetch`]). `settled` looks for what a holder did (the
/// refusal's marker, or the delivery in the records); a holder that shows nothing within
/// the pause is taken over in the next generation.
///
/// # Errors
///
/// As [`once`].
pub(crate) async fn decide_once<T, S, SF>(
    ctx: &Ctx,
    (effect, anchor): (&str, &CommitSha),
    early: Option<Taken>,
    settled: S,
) -> Result<Turn<T>, GitHubError>
where
    S: Fn() -> SF,
    SF: Future<Output = Result<Option<T>, GitHubError>>,
{
    Ok(
        match contend(ctx, (effect, anchor), early, settled).await? {
            Standing::Ours { name } => Turn::Ours { name },
            Standing::Done(done) => Turn::Settled(done),
        },
    )
}

/// Marks the outcome claim `name` failed: its holder decided nothing, or its refusal is
/// shown not posted, so the next handling takes the next generation over at once. Sent
/// within what is left of GitHub's window; when it fails too, the next handling takes the
/// claim over after a pause.
pub(crate) async fn failed(ctx: &Ctx, name: &str, anchor: &CommitSha) {
    let target = ctx.memory.mark(&ctx.repo).unwrap_or_else(|| anchor.clone());
    let api = ctx.api.for_cleanup();
    if let Err(e) = rest::create_ref(&api, &ctx.repo, &failed_name(name), &target).await {
        tracing::warn!(error = %e, "could not mark a failed claim; the next handling takes it over after a pause");
    }
}

/// Gives a claim back (after a GitHub failure before any effect that must stay single),
/// so that the retry claims the same generation instead of waiting on it. Sent even when
/// the delivery's work time is up, within what is left of GitHub's window.
pub(crate) async fn release(ctx: &Ctx, name: &str) {
    let api = ctx.api.for_cleanup();
    if let Err(e) = rest::delete_ref(&api, &ctx.repo, name).await {
        tracing::warn!(error = %e, "could not give a claim back; a retry takes it over after a pause");
    }
}

/// The name of the first generation's claim on `effect`, for a caller that makes it early.
pub(crate) fn first_generation(ctx: &Ctx, effect: &str) -> String {
    ref_name(ctx.delivery.as_str_lossy(), effect, 1)
}

/// The effect a command's outcome is claimed as: one per delivery and pull request.
pub(crate) fn outcome_effect(pr: PrNumber) -> String {
    format!("outcome-{}", pr.0)
}

/// A claim that is never retried: the first process to make it acts, for good (a warning
/// posted once per head, whatever the delivery).
///
/// # Errors
///
/// [`GitHubError`] when GitHub fails.
pub(crate) async fn first(ctx: &Ctx, key: &str, anchor: &CommitSha) -> Result<bool, GitHubError> {
    let name = format!("refs/auditloop/once/{}", segment(key));
    Ok(take(ctx, &name, anchor).await? == Taken::New)
}
