//! A pull-request event's rebind of the record to the PR's head (docs/reference.md#baseline):
//! never onto a branch without the records commit our run names, keeping a certification
//! whose tree the head has, and never back to a head the PR has left.

use std::convert::Infallible;
use std::sync::Mutex;

use crate::app::commit::commit_loop::{self, Attempt, Unwritten};
use crate::app::context::Ctx;
use crate::app::reads::loading;
use crate::app::reads::runs;
use crate::app::reads::state::{self, State};
use crate::engine::closing::closing_issues;
use crate::engine::record::Record;
use crate::engine::record::{has_delivery, BaselineCause};
use crate::engine::repo_config::CarryCertification;
use crate::engine::transition::{self as t, Applied, BaselineInput, EventContext};
use crate::events::PullRequestEvent;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, CommitSha, Login, PrNumber, TaskId};
use crate::records::Change;

/// Rebinds the record to `pull`'s head (`cause`: why, when the event rebinds), and notes
/// the event's sender as an implementer when it pushed (`pushed`: the head it brought),
/// in one records commit; leaves in `at` the state and records commit the views are built
/// from.
pub(crate) async fn rebind_to_head(
    ctx: &Ctx,
    e: &PullRequestEvent,
    pull: &Pull,
    (cause, pushed): (Option<BaselineCause>, Option<Artifact>),
    at: (&mut loading::Loaded, &mut Option<CommitSha>),
) -> Result<(), GitHubError> {
    let (state, commit) = at;
    let (named, same_tree) = futures::try_join!(named_on_candidate(ctx, state), async {
        match cause {
            Some(cause) => identical_tree(ctx, state, cause, &pull.head_sha).await,
            None => Ok(None),
        }
    },)?;
    let rebinding = Rebinding {
        cause,
        sender: &e.sender.login,
        pushed,
        must_contain: named.as_ref(),
        same_tree: same_tree.as_ref(),
    };
    // The PR's head was read with the first reads, or after them; if someone else rebinds
    // the record after that (a newer push's delivery, or an older one that read the PR
    // earlier), the head is read again, so the record never goes back to a head the PR has
    // left. Not knowing the candidate it had then, the first look reads the PR again.
    let read_with_pull = ctx
        .delivery_cache
        .candidate_with_pull(pull.number)
        .map(|candidate| (candidate, pull.head_sha.clone()));
    let outcome = rebind(ctx, pull, &rebinding, read_with_pull).await?;
    match outcome {
        Rebound::Done(s, c, refused) => {
            // Not a command anyone typed, so nothing is answered on the PR: the
            // refusal is logged, and the gate judges the record on its old candidate.
            if let Some(why) = refused {
                tracing::warn!(repo = %ctx.repo, pr = pull.number.0, ?cause, rule = why.rule(), %why, "the record was not rebound to the new head");
            }
            *state = Ok(*s);
            *commit = c;
        }
        Rebound::Unchanged => {}
        // The new head's run keeps naming the newest commit, so the rewind stays
        // visible there; the log says which delivery met it.
        Rebound::Damaged(damage) => {
            tracing::warn!(repo = %ctx.repo, pr = pull.number.0, ?cause, why = damage.why, "records damaged; the record was not rebound");
            *state = Err(damage);
            *commit = named;
        }
    }
    Ok(())
}

/// The records commit our check run on the record's candidate (the head before this
/// event) names: a rebind never writes onto a branch that no longer contains it.
async fn named_on_candidate(
    ctx: &Ctx,
    state: &loading::Loaded,
) -> Result<Option<CommitSha>, GitHubError> {
    let Ok(State {
        record: Some(Ok(record)),
        ..
    }) = state
    else {
        return Ok(None);
    };
    let runs = ctx
        .delivery_cache
        .head_runs(&ctx.api, &ctx.repo, record.candidate_artifact.sha())
        .await?;
    let slug = ctx.bot_slug().await?;
    let check_name = ctx.check_name();
    Ok(runs::our_named_commit(&runs, check_name, slug))
}

/// The candidate whose git tree the new head `head` has byte for byte, when the record
/// could keep its certification on it (see [`t::may_carry`]): one comparison.
async fn identical_tree(
    ctx: &Ctx,
    state: &loading::Loaded,
    cause: BaselineCause,
    head: &CommitSha,
) -> Result<Option<Artifact>, GitHubError> {
    let Ok(State {
        record: Some(Ok(record)),
        ..
    }) = state
    else {
        return Ok(None);
    };
    let carries = ctx
        .config
        .as_ref()
        .is_ok_and(|c| c.carry_certification == CarryCertification::IdenticalTree);
    if !carries || !t::may_carry(record, cause) || record.candidate_artifact.sha() == head {
        return Ok(None);
    }
    let certified = record.candidate_artifact.sha();
    let same = rest::same_tree(&ctx.api, &ctx.repo, certified, head).await?;
    Ok((same == Some(true)).then(|| record.candidate_artifact.clone()))
}

/// What a rebind is asked to do, besides moving to the PR's head.
struct Rebinding<'a> {
    /// Why it moves to the head; `None`: it does not (only a push is noted).
    cause: Option<BaselineCause>,
    sender: &'a str,
    /// The head the sender pushed, when the event is a push by someone who is not the
    /// pull request's author: the sender becomes an implementer, rebound or not.
    pushed: Option<Artifact>,
    /// The records commit our check run names: nothing is written on a branch without it.
    must_contain: Option<&'a CommitSha>,
    /// The certified candidate whose tree the head has (see [`identical_tree`]).
    same_tree: Option<&'a Artifact>,
}

enum Rebound {
    /// The state after the rebind, or as it stands when the transition refused it (nothing
    /// written then).
    Done(Box<State>, Option<CommitSha>, Option<t::Refusal>),
    /// Nothing to rebind, or the PR moved on (its own event rebinds it), or someone else
    /// kept rebinding the record after each read of the PR.
    Unchanged,
    Damaged(crate::app::reads::lineage::Damage),
}

/// The PR read again after a look found its record on this candidate: the record is
/// rebound only from the candidate it had when the PR was read.
struct ReadAgain(Artifact);

/// Rebinds the record to the new head; one whose tree is the certified candidate's keeps
/// the certification.
/// `read`: the candidate the record had when the PR was read, and the head the PR had
/// then. A look that finds the record on another candidate, or any look when it is not
/// known, asks the commit loop to read the PR again ([`ReadAgain`]) and decides again on
/// the same look; nothing is written until the PR was read after it.
async fn rebind(
    ctx: &Ctx,
    pull: &Pull,
    rebinding: &Rebinding<'_>,
    read: Option<(Artifact, CommitSha)>,
) -> Result<Rebound, GitHubError> {
    let (cause, sender, same_tree) = (rebinding.cause, rebinding.sender, rebinding.same_tree);
    let Ok(actor) = Login::new(sender.to_owned()) else {
        return Ok(Rebound::Unchanged);
    };
    let view = ctx.view();
    let delivery = ctx.delivery.clone();
    let number = pull.number;
    let message = match cause {
        Some(cause) => rebind_message(pull, cause, sender, same_tree),
        None => format!("Note {sender}'s push to {number}"),
    };
    let look = Look {
        cause,
        head: pull.head_sha.clone(),
        number,
        event: ctx.event(&actor, None),
        same_tree,
        // What the PR body closes now: a certification carries only if it covers them.
        closes: closing_issues(&pull.body, &ctx.repo),
        pushed: rebinding.pushed.clone(),
        read: Mutex::new(read),
        moved_on: Mutex::new(false),
        // A refusal changes nothing (no commit, like a rebind with nothing to do), and is
        // reported after the loop.
        refused: Mutex::new(None),
    };
    let outcome = commit_loop::apply_fetching::<Infallible, ReadAgain, _, _>(
        ctx,
        number,
        None,
        rebinding.must_contain,
        &message,
        |state| {
            let Some(record) = current(state, &delivery)? else {
                return Ok(Change::default());
            };
            Ok(look
                .decide(record)?
                .map_or_else(Change::default, |applied| {
                    state::change_files(&applied, state, &view, Vec::new())
                }))
        },
        |need| read_again(ctx, number, &look.read, need),
    )
    .await?;
    let Look {
        moved_on, refused, ..
    } = look;
    if into_inner(moved_on) {
        tracing::info!(repo = %ctx.repo, pr = number.0, "the PR moved on while rebinding; its own event rebinds it");
    }
    Ok(match (outcome, into_inner(refused)) {
        (Attempt::Committed { state, commit }, refused) => Rebound::Done(state, commit, refused),
        (Attempt::Unwritten(Unwritten::Damaged(why)), _) => Rebound::Damaged(why),
        (Attempt::Unwritten(_), _) => Rebound::Unchanged,
    })
}

/// One look at the record the commit loop read, deciding the rebind and the push's note.
struct Look<'a> {
    cause: Option<BaselineCause>,
    head: CommitSha,
    number: PrNumber,
    event: EventContext,
    same_tree: Option<&'a Artifact>,
    closes: Vec<TaskId>,
    pushed: Option<Artifact>,
    /// The candidate the record had when the PR was last read, and its head then.
    read: Mutex<Option<(Artifact, CommitSha)>>,
    moved_on: Mutex<bool>,
    refused: Mutex<Option<t::Refusal>>,
}

impl Look<'_> {
    /// What to apply to `record`: the rebind, or else (a push by someone new) the note of
    /// the push, in one commit; `None` when nothing changes.
    fn decide(&self, record: &Record) -> Result<Option<Applied>, Unwritten<Infallible, ReadAgain>> {
        // Whatever becomes of the rebind, a push by someone new is kept.
        let noted = || {
            let head = self.pushed.clone()?;
            t::note_push(record, head, &self.event).ok().flatten()
        };
        let Some(cause) = self.cause else {
            return Ok(noted());
        };
        let candidate = &record.candidate_artifact;
        let still = still_at(&self.read, candidate, &self.head).map_err(Unwritten::Needs)?;
        *lock(&self.moved_on) = !still;
        // A PR that moved on is rebound by its own event; a reopened PR whose head is
        // still the candidate has nothing to rebind.
        if !still || (cause == BaselineCause::Reopen && candidate.sha() == &self.head) {
            return Ok(noted());
        }
        let mut refused = lock(&self.refused);
        *refused = None;
        let on = (self.number, &self.head, cause);
        // A rebind by a push or a reopen names its sender (`candidate_pushed_by`), which
        // keeps it an implementer: nothing more to note then.
        match rebound(record, on, &self.event, (self.same_tree, &self.closes)) {
            Ok(Some(applied)) => Ok(Some(applied)),
            Ok(None) => Ok(noted()),
            Err(why) => {
                *refused = Some(why);
                Ok(noted())
            }
        }
    }
}

/// Whether the PR, read after a look found its record on `candidate`, still has `head`;
/// when it was not read after such a look, the read to ask for.
fn still_at(
    read: &Mutex<Option<(Artifact, CommitSha)>>,
    candidate: &Artifact,
    head: &CommitSha,
) -> Result<bool, ReadAgain> {
    match &*lock(read) {
        Some((seen, now)) if seen == candidate => Ok(now == head),
        _ => Err(ReadAgain(candidate.clone())),
    }
}

/// Reads PR `number` again, after the look that asked: not the delivery's cached read.
async fn read_again(
    ctx: &Ctx,
    number: PrNumber,
    read: &Mutex<Option<(Artifact, CommitSha)>>,
    ReadAgain(seen): ReadAgain,
) -> Result<(), GitHubError> {
    let now = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
    *lock(read) = Some((seen, now.head_sha));
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The PR's record, unless it is damaged or already holds `delivery`; `None`: no record.
fn current<'s>(
    state: &'s state::State,
    delivery: &crate::ids::DeliveryId,
) -> Result<Option<&'s crate::engine::record::Record>, Unwritten<Infallible, ReadAgain>> {
    match &state.record {
        Some(Ok(r)) if has_delivery(r, delivery) => Err(Unwritten::AlreadyApplied),
        Some(Ok(r)) => Ok(Some(r)),
        Some(Err(why)) => Err(Unwritten::Damaged(why.clone().into())),
        None => Ok(None),
    }
}

/// The commit message of a rebind of `pull`'s record to its head.
fn rebind_message(
    pull: &Pull,
    cause: BaselineCause,
    sender: &str,
    same_tree: Option<&Artifact>,
) -> String {
    let number = pull.number;
    match same_tree {
        Some(from) => format!(
            "Carry the certification of {number} from {} to {} (identical tree, {cause:?}) after {sender}'s change",
            from.short(),
            pull.head_sha.short()
        ),
        None => format!(
            "Rebind the record of {number} to {} ({cause:?}) after {sender}'s change",
            pull.head_sha.short()
        ),
    }
}

/// The engine's rebind of `record` to `head` of PR `number`: a carry of its
/// certification when the head's tree is its candidate's. The trees were compared against
/// this very candidate; a record another writer moved since is rebound as usual.
fn rebound(
    record: &Record,
    (number, head, cause): (PrNumber, &CommitSha, BaselineCause),
    event: &EventContext,
    (same_tree, closes): (Option<&Artifact>, &[TaskId]),
) -> Result<Option<Applied>, t::Refusal> {
    let input = BaselineInput {
        cause,
        pull_request: number,
        head: Artifact::commit(head.clone()),
        covered_tasks: None,
        evidence: None,
    };
    match same_tree {
        Some(from) if from == &record.candidate_artifact => t::carry(record, input, closes, event),
        _ => t::baseline(record, input, event),
    }
}
