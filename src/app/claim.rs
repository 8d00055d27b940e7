//! One effect outside the records branch (a reply, a filed issue, a warning) carried out by
//! one process, however many replicas handle the same delivery at once. Replicas share
//! nothing but GitHub, so the claim is made there: a ref
//! `refs/auditloop/claims/<delivery>/<effect>-<generation>` created at a commit the
//! repository holds. GitHub creates a ref atomically and answers 422 to a second create of
//! the same name, so exactly one process wins each generation.
//!
//! The effect itself stays findable by its marker (the reply's delivery marker, the filed
//! issue's marker), which is searched first: a redelivery after success does nothing. A
//! process that loses the claim waits for the winner's effect to appear; if it never does
//! (the winner died between its claim and its effect), the next generation is claimed, so
//! a killed process delays the effect instead of losing it. Only a winner that stalls
//! longer than the wait between claim and effect can let a second one through.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use crate::app::context::Ctx;
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

/// Generations tried before giving up (the effect is then left to a later redelivery).
const GENERATIONS: u32 = 3;
/// How long a loser waits for the winner's effect to appear, in rounds of [`ROUND`].
const WAIT_ROUNDS: u32 = 6;
const ROUND: Duration = Duration::from_millis(400);

/// A ref name segment from any text: letters, digits and `-`, the rest as `_`.
fn segment(text: &str) -> String {
    text.chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where every claim ref lives.
pub const PREFIX: &str = "refs/auditloop/claims/";

pub fn ref_name(delivery: &str, effect: &str, generation: u32) -> String {
    format!(
        "{PREFIX}{}/{}-{generation}",
        segment(delivery),
        segment(effect)
    )
}

/// How long a claim is kept after its delivery was sent. GitHub lets a failed delivery be
/// redelivered for 3 days (7 on GitHub Enterprise Server); after that no process handles
/// the delivery again, so its claims guard nothing (the effect's marker still stops a
/// repeat). A day more covers clocks that disagree.
pub const KEEP: TimeDelta = TimeDelta::days(8);

/// When the delivery of claim ref `name` was sent, if its id tells: GitHub's delivery
/// GUIDs are time-based UUIDs (version 1, as in GitHub's documented example), whose
/// timestamp survives [`segment`]. An id that is not time-based tells nothing.
pub fn delivered_at(name: &str) -> Option<DateTime<Utc>> {
    let delivery = name.strip_prefix(PREFIX)?.split('/').next()?;
    let (secs, nanos) = uuid::Uuid::try_parse(delivery)
        .ok()?
        .get_timestamp()?
        .to_unix();
    DateTime::from_timestamp(i64::try_from(secs).ok()?, nanos)
}

/// Whether claim ref `name` can be deleted at `now`: its delivery was sent more than
/// [`KEEP`] ago. A claim whose age cannot be told is kept.
pub fn expired(name: &str, now: DateTime<Utc>) -> bool {
    delivered_at(name).is_some_and(|at| now - at > KEEP)
}

/// Carries out `act` once across processes, unless `done` finds it carried out already.
/// `anchor` is a commit of the repository for the claim ref to point at.
pub async fn once<D, DF, A, AF>(
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
    claimed(ctx, effect, anchor, done, act).await
}

/// [`once`] without the first look for the effect, for a caller that knows it is not
/// there yet; `done` is still asked while waiting on another process's claim.
pub async fn claimed<D, DF, A, AF>(
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
    from_generation(ctx, effect, anchor, 1, done, act).await
}

/// Tries generations `first..=GENERATIONS`: the first claimed acts; a generation held by
/// another process is waited on for its effect.
async fn from_generation<D, DF, A, AF>(
    ctx: &Ctx,
    effect: &str,
    anchor: &CommitSha,
    first: u32,
    done: D,
    act: A,
) -> Result<(), GitHubError>
where
    D: Fn() -> DF,
    DF: Future<Output = Result<bool, GitHubError>>,
    A: FnOnce() -> AF,
    AF: Future<Output = Result<(), GitHubError>>,
{
    let delivery = ctx.delivery.as_str_lossy();
    for generation in first..=GENERATIONS {
        let name = ref_name(delivery, effect, generation);
        if rest::create_ref(&ctx.api, &ctx.repo, &name, anchor).await? {
            return act_or_release(ctx, &name, act).await;
        }
        if wait_for(&done).await? {
            return Ok(());
        }
        tracing::warn!(
            effect,
            generation,
            "claim held but its effect never appeared; claiming again"
        );
    }
    tracing::warn!(
        effect,
        "every claim generation is taken; leaving the effect to a redelivery"
    );
    Ok(())
}

/// [`claimed`], making the first generation's claim while `ready` prepares what the
/// effect needs (the two are independent): one round trip less on the common path. `ready`
/// also tells whether an earlier attempt may have got as far as the effect (whose answer
/// may have been lost, so its claim was given back): then the effect is looked for before
/// acting even on a won claim. When another process holds the claim, its effect is looked
/// for at once, then waited on.
pub async fn claimed_while<T, R, D, DF, A, AF>(
    ctx: &Ctx,
    effect: &str,
    anchor: &CommitSha,
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
    let name = ref_name(ctx.delivery.as_str_lossy(), effect, 1);
    let (won, value) = futures::join!(rest::create_ref(&ctx.api, &ctx.repo, &name, anchor), ready);
    after_first(ctx, effect, anchor, won?, value, done, act).await
}

/// [`claimed_while`] once the first generation's create is answered (`won`), here or with
/// the early reads (see [`crate::app::handlers::prefetch`]), and `value` is ready.
pub async fn after_first<T, D, DF, A, AF>(
    ctx: &Ctx,
    effect: &str,
    anchor: &CommitSha,
    won: bool,
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
    let name = ref_name(ctx.delivery.as_str_lossy(), effect, 1);
    let (value, look_first) = match value {
        Ok(ready) => ready,
        Err(e) => {
            if won {
                let _ = rest::delete_ref(&ctx.api, &ctx.repo, &name).await;
            }
            return Err(e);
        }
    };
    if won {
        if look_first && done().await? {
            return Ok(());
        }
        return act_or_release(ctx, &name, || act(value)).await;
    }
    if done().await? || wait_for(&done).await? {
        return Ok(());
    }
    from_generation(ctx, effect, anchor, 2, done, || act(value)).await
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
        let _ = rest::delete_ref(&ctx.api, &ctx.repo, name).await;
    }
    acted
}

/// Whether `done` turns true within the wait a claim's holder is given.
async fn wait_for<D, DF>(done: &D) -> Result<bool, GitHubError>
where
    D: Fn() -> DF,
    DF: Future<Output = Result<bool, GitHubError>>,
{
    for _ in 0..WAIT_ROUNDS {
        tokio::time::sleep(ROUND).await;
        if done().await? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Where a delivery's one outcome stands once [`decide_once`] returns.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn<T> {
    /// This process holds the claim (the ref `name`): it alone decides the outcome now.
    Ours { name: String },
    /// Another handling of the delivery decided already; `T` says what it did.
    Settled(T),
    /// Every generation is held and none left its effect: a later redelivery tries again.
    GaveUp,
}

/// The outcome claim's wait: a command's decision, commit and views take longer than a
/// reply, so the holder is given twice a reply's time before the claim is taken over.
const OUTCOME_WAIT_ROUNDS: u32 = 2 * WAIT_ROUNDS;

/// Takes the claim on the one outcome of this delivery (`effect`), so that a command is
/// refused or carried out by one handling only, across replicas and redeliveries: a
/// refusal leaves nothing in the records, so without it a second handling would decide
/// again on newer state. `early` is the first generation's create when it was made already
/// (see [`crate::app::handlers::prefetch`]). `settled` looks for what a holder did (the refusal's
/// marker, or the delivery in the records); while another process holds the claim it is
/// waited on, and a claim whose holder left no effect is taken over in the next generation.
pub async fn decide_once<T, S, SF>(
    ctx: &Ctx,
    effect: &str,
    anchor: &CommitSha,
    early: Option<bool>,
    settled: S,
) -> Result<Turn<T>, GitHubError>
where
    S: Fn() -> SF,
    SF: Future<Output = Result<Option<T>, GitHubError>>,
{
    let delivery = ctx.delivery.as_str_lossy();
    for generation in 1..=GENERATIONS {
        let name = ref_name(delivery, effect, generation);
        let won = match (generation, early) {
            (1, Some(won)) => won,
            _ => rest::create_ref(&ctx.api, &ctx.repo, &name, anchor).await?,
        };
        if won {
            return Ok(Turn::Ours { name });
        }
        if let Some(done) = settled().await? {
            return Ok(Turn::Settled(done));
        }
        for _ in 0..OUTCOME_WAIT_ROUNDS {
            tokio::time::sleep(ROUND).await;
            if let Some(done) = settled().await? {
                return Ok(Turn::Settled(done));
            }
        }
        tracing::warn!(
            effect,
            generation,
            "outcome claim held but nothing was decided; claiming again"
        );
    }
    tracing::warn!(
        effect,
        "every outcome claim generation is taken; leaving the command to a redelivery"
    );
    Ok(Turn::GaveUp)
}

/// Gives a claim back (after a GitHub failure before any effect that must stay single),
/// so that the retry claims the same generation instead of waiting on it.
pub async fn release(ctx: &Ctx, name: &str) {
    if let Err(e) = rest::delete_ref(&ctx.api, &ctx.repo, name).await {
        tracing::warn!(error = %e, "could not give a claim back; a retry waits for it");
    }
}

/// The name of the first generation's claim on `effect`, for a caller that makes it early.
pub fn first_generation(ctx: &Ctx, effect: &str) -> String {
    ref_name(ctx.delivery.as_str_lossy(), effect, 1)
}

/// The effect a command's outcome is claimed as: one per delivery and pull request.
pub fn outcome_effect(pr: PrNumber) -> String {
    format!("outcome-{}", pr.0)
}

/// A claim that is never retried: the first process to make it acts, for good (a warning
/// posted once per head, whatever the delivery).
pub async fn first(ctx: &Ctx, key: &str, anchor: &CommitSha) -> Result<bool, GitHubError> {
    let name = format!("refs/auditloop/once/{}", segment(key));
    rest::create_ref(&ctx.api, &ctx.repo, &name, anchor).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_names_are_valid_refs_whatever_the_delivery_id() {
        assert_eq!(
            ref_name("72d3162e-cc78-11e3-81ab-4c9367dc0958", "reply-42", 1),
            "refs/auditloop/claims/72d3162e-cc78-11e3-81ab-4c9367dc0958/reply-42-1"
        );
        let odd = ref_name("../x y@{z}.lock", "file:AUD-1/A-01", 2);
        assert_eq!(
            odd,
            "refs/auditloop/claims/___x_y__z__lock/file_AUD-1_A-01-2"
        );
        assert!(crate::engine::repo_config::branch_name_rule(&odd["refs/".len()..]).is_ok());
    }

    #[test]
    fn a_claim_expires_only_when_its_delivery_id_tells_it_is_old() {
        // GitHub's documented delivery id: a version-1 UUID from 2014-04-25 (UTC).
        let old = ref_name("72d3162e-cc78-11e3-81ab-4c9367dc0958", "reply-42", 1);
        let at = delivered_at(&old).map(|t| t.date_naive().to_string());
        assert_eq!(at.as_deref(), Some("2014-04-25"));
        let sent = delivered_at(&old).unwrap_or_default();
        assert!(!expired(&old, sent + KEEP));
        assert!(expired(&old, sent + KEEP + TimeDelta::seconds(1)));
        // Random (version 4) and made-up ids, and refs that are not claims, are kept.
        let now = Utc::now();
        for name in [
            ref_name("d9428888-122b-41e2-b8a2-0f3f5b6a6c5e", "reply-42", 1),
            ref_name("redelivered-1", "reply-42", 1),
            ref_name("", "reply-42", 1),
            "refs/auditloop/once/forged-abc".to_owned(),
            "refs/heads/72d3162e-cc78-11e3-81ab-4c9367dc0958".to_owned(),
        ] {
            assert!(!expired(&name, now), "{name}");
        }
        // A delivery sent in the future (a clock ahead) is not old.
        assert!(!expired(&old, sent - TimeDelta::days(30)));
    }
}
