//! Pull-request events: a new head gets a new check run (and, with `baseline_on_push`, a
//! rebound record); a base change rebinds; an edit inside the managed sections is undone.

use crate::app::commit::store::{self, Attempt, State, Unwritten};
use crate::app::context::Ctx;
use crate::app::handlers::prefetch;
use crate::app::handlers::refresh::{self, RunMode};
use crate::app::publish::views;
use crate::app::AuditApp;
use crate::delivery::Handled;
use crate::engine::record::Record;
use crate::engine::record::{has_delivery, BaselineCause};
use crate::engine::repo_config::{CarryCertification, RepoConfig};
use crate::engine::transition::{self as t, Applied, BaselineInput, EventContext};
use crate::engine::views::{sections, sections_tampered};
use crate::events::{PullRequestAction, PullRequestEvent};
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, CommitSha, Login, PrNumber};
use crate::records::Change;

/// A pull-request event: the record rebound when the event may do it, the sections put
/// back after an edit inside them, then the views refreshed.
pub async fn handle(
    app: &AuditApp,
    ctx: &Ctx,
    e: &PullRequestEvent,
) -> Result<Handled, GitHubError> {
    use PullRequestAction as A;
    let Some(effect) = effect(e) else {
        return Ok(Handled::Ignored);
    };
    // The head goes into REST paths: a payload whose head is not a SHA is not acted on.
    let Ok(head_sha) = CommitSha::new(e.pull_request.head.sha.clone()) else {
        tracing::warn!(
            pr = e.number.0,
            "pull request event whose head is not a commit SHA; ignored"
        );
        return Ok(Handled::Ignored);
    };
    let (pull, cause, mode) = current_pull(ctx, e, head_sha, effect.cause, effect.mode).await?;
    let mut state = store::load(ctx, e.number, None).await?;
    let mut commit = state.as_ref().ok().and_then(|s| s.commit.clone());
    // A push rebinds only with `baseline_on_push`.
    let on_push = ctx.config.as_ref().is_ok_and(|c| c.baseline_on_push);
    let rebinds = cause.filter(|c| *c != BaselineCause::Push || on_push);
    let has_record = has_record(&state);
    let enabled = ctx.config.as_ref().is_ok_and(RepoConfig::enabled);
    if let (Some(cause), true, true) = (rebinds, enabled, has_record) {
        rebind_to_head(app, ctx, e, &pull, cause, (&mut state, &mut commit)).await?;
    }
    let base_changed = effect.base_changed;
    if e.action == A::Edited && !base_changed {
        match restore_sections(ctx, &pull, &state).await? {
            Restored::Refresh => {}
            Restored::Answer(handled) => return Ok(handled),
        }
    }
    // A base change rebinds the record, so its sections change like a push's do.
    let update_body = (e.action != A::Edited || base_changed) && has_record;
    // A rebind (or its redelivery) may make the record ready for the auditor (docs/reference.md#when-the-app-dispatches).
    let dispatch = rebinds.is_some() && has_record;
    refresh::refresh_with(
        app,
        ctx,
        views::Target {
            pull: &pull,
            state: &state,
            records_commit: commit.as_ref(),
            runs: None,
            checked: false,
        },
        mode,
        update_body,
        refresh::After {
            dispatch,
            thanks: None,
        },
    )
    .await?;
    Ok(Handled::Done)
}

/// Whether the PR has a record, read without damage.
fn has_record(state: &store::Loaded) -> bool {
    matches!(
        state,
        Ok(State {
            record: Some(Ok(_)),
            ..
        })
    )
}

/// What an event's action asks of the record and of the check run.
struct Effect {
    /// An edit that moved the PR to another base branch.
    base_changed: bool,
    /// Why the record would be rebound, if the action rebinds.
    cause: Option<BaselineCause>,
    mode: RunMode,
}

/// The effect of `e`'s action; `None` for one auditloop does not act on.
fn effect(e: &PullRequestEvent) -> Option<Effect> {
    use PullRequestAction as A;
    let base_changed =
        e.action == A::Edited && e.changes.as_ref().is_some_and(|c| c.base.is_some());
    let cause = match e.action {
        A::Synchronize => Some(BaselineCause::Push),
        A::Reopened => Some(BaselineCause::Reopen),
        A::Edited if base_changed => Some(BaselineCause::BaseChange),
        _ => None,
    };
    let mode = match e.action {
        A::Opened | A::Reopened | A::Synchronize | A::ReadyForReview => RunMode::Create,
        A::Edited => RunMode::Update,
        A::Closed | A::Other => return None,
    };
    Some(Effect {
        base_changed,
        cause,
        mode,
    })
}

/// The pull request the event is judged on, with its cause and run mode. What may rebind
/// is judged on the pull request as GitHub has it now (read with the early reads): a
/// delivery can arrive late, after a newer push was handled, and the record follows the
/// PR's head, never an old one (docs/reference.md#baseline).
async fn current_pull(
    ctx: &Ctx,
    e: &PullRequestEvent,
    head_sha: CommitSha,
    cause: Option<BaselineCause>,
    mode: RunMode,
) -> Result<(Pull, Option<BaselineCause>, RunMode), GitHubError> {
    if !prefetch::may_rebind(e) {
        let pull = Pull {
            number: e.number,
            open: e.pull_request.state == "open",
            merged: e.pull_request.merged.unwrap_or(false),
            body: e.pull_request.body.clone().unwrap_or_default(),
            author: e.pull_request.user.login.clone(),
            head_sha,
            base_ref: e.pull_request.base.name.clone(),
            node_id: e
                .pull_request
                .node_id
                .clone()
                .and_then(|id| crate::ids::NodeId::new(id).ok()),
        };
        return Ok((pull, cause, mode));
    }
    let now = ctx.seen.pull(&ctx.api, &ctx.repo, e.number).await?;
    if now.head_sha == head_sha {
        return Ok((now, cause, mode));
    }
    tracing::info!(repo = %ctx.repo, pr = e.number.0, event_head = %head_sha.short(), head = %now.head_sha.short(), "the event's head is no longer the PR's; the record is left as it is");
    // The current head's own event makes its run; this one only brings it up to date.
    Ok((now, None, RunMode::Update))
}

/// Rebinds the record to `pull`'s head and leaves in `at` the state and records commit
/// the views are built from.
async fn rebind_to_head(
    app: &AuditApp,
    ctx: &Ctx,
    e: &PullRequestEvent,
    pull: &Pull,
    cause: BaselineCause,
    at: (&mut store::Loaded, &mut Option<CommitSha>),
) -> Result<(), GitHubError> {
    let (state, commit) = at;
    let (named, same_tree) = futures::try_join!(
        named_on_candidate(app, ctx, state),
        identical_tree(ctx, state, cause, &pull.head_sha),
    )?;
    let rebinding = Rebinding {
        cause,
        sender: &e.sender.login,
        must_contain: named.as_ref(),
        same_tree: same_tree.as_ref(),
    };
    match rebind(ctx, pull, rebinding).await? {
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

/// Whether an edited PR goes on to a refresh, or is answered as it stands.
enum Restored {
    Refresh,
    Answer(Handled),
}

/// After a body edit: the managed sections put back when someone else changed them.
/// Only such an edit needs the view put back; a change of closing keywords may change
/// condition 3, so the gate is re-evaluated all the same.
async fn restore_sections(
    ctx: &Ctx,
    pull: &Pull,
    state: &store::Loaded,
) -> Result<Restored, GitHubError> {
    let loaded = state.as_ref().ok().and_then(|s| {
        let record = s.record.as_ref()?.as_ref().ok()?;
        Some((s, record))
    });
    let Some((loaded, record)) = loaded else {
        return Ok(Restored::Answer(Handled::Ignored));
    };
    if sections_tampered(&pull.body, &sections(Some(record), &ctx.view()))
        && crate::app::publish::body::refresh_body(ctx, pull.number, loaded, record)
            .await?
            .is_none()
    {
        // Views computed from newer records stand; ours would only take them back.
        return Ok(Restored::Answer(Handled::Done));
    }
    Ok(Restored::Refresh)
}

/// The records commit our check run on the record's candidate (the head before this
/// event) names: a rebind never writes onto a branch that no longer contains it.
async fn named_on_candidate(
    app: &AuditApp,
    ctx: &Ctx,
    state: &store::Loaded,
) -> Result<Option<CommitSha>, GitHubError> {
    let Ok(State {
        record: Some(Ok(record)),
        ..
    }) = state
    else {
        return Ok(None);
    };
    let runs = ctx
        .seen
        .head_runs(&ctx.api, &ctx.repo, record.candidate_artifact.sha())
        .await?;
    let slug = app.bot_slug(ctx).await?;
    let check_name = ctx.check_name();
    Ok(views::our_named_commit(&runs, check_name, slug))
}

/// The candidate whose git tree the new head `head` has byte for byte, when the record
/// could keep its certification on it (see [`t::may_carry`]): one comparison.
async fn identical_tree(
    ctx: &Ctx,
    state: &store::Loaded,
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
    cause: BaselineCause,
    sender: &'a str,
    /// The records commit our check run names: nothing is written on a branch without it.
    must_contain: Option<&'a CommitSha>,
    /// The certified candidate whose tree the head has (see [`identical_tree`]).
    same_tree: Option<&'a Artifact>,
}

enum Rebound {
    /// The state after the rebind, or as it stands when the transition refused it (nothing
    /// written then).
    Done(Box<State>, Option<CommitSha>, Option<t::Refusal>),
    Unchanged,
    Damaged(crate::app::commit::lineage::Damage),
}

/// Rebinds the record to the new head; one whose tree is the certified candidate's keeps
/// the certification.
async fn rebind(ctx: &Ctx, pull: &Pull, rebinding: Rebinding<'_>) -> Result<Rebound, GitHubError> {
    let (cause, sender, same_tree) = (rebinding.cause, rebinding.sender, rebinding.same_tree);
    let Ok(actor) = Login::new(sender.to_owned()) else {
        return Ok(Rebound::Unchanged);
    };
    let sha = pull.head_sha.clone();
    let event = ctx.event(&actor, None);
    let view = ctx.view();
    let delivery = ctx.delivery.clone();
    let number = pull.number;
    let message = rebind_message(pull, cause, sender, same_tree);
    // A refusal changes nothing (no commit, like a rebind with nothing to do), and is
    // reported after the loop.
    let refused = std::sync::Mutex::new(None);
    let outcome = store::apply::<()>(
        ctx,
        number,
        None,
        rebinding.must_contain,
        &message,
        |state| {
            let record = match &state.record {
                Some(Ok(r)) => r,
                Some(Err(why)) => return Err(Unwritten::Damaged(why.clone().into())),
                None => return Ok(Change::default()),
            };
            if has_delivery(record, &delivery) {
                return Err(Unwritten::AlreadyApplied);
            }
            // A reopened PR whose head is still the candidate has nothing to rebind.
            if cause == BaselineCause::Reopen && record.candidate_artifact.sha() == &sha {
                return Ok(Change::default());
            }
            let mut refused = refused
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *refused = None;
            match rebound(record, (number, &sha, cause), &event, same_tree) {
                Ok(Some(applied)) => Ok(store::change_files(&applied, &view, Vec::new())),
                Ok(None) => Ok(Change::default()),
                Err(why) => {
                    *refused = Some(why);
                    Ok(Change::default())
                }
            }
        },
    )
    .await?;
    let refused = refused
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(match (outcome, refused) {
        (Attempt::Committed { state, commit }, refused) => Rebound::Done(state, commit, refused),
        (Attempt::Unwritten(Unwritten::Damaged(why)), _) => Rebound::Damaged(why),
        (Attempt::Unwritten(_), _) => Rebound::Unchanged,
    })
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
    same_tree: Option<&Artifact>,
) -> Result<Option<Applied>, t::Refusal> {
    let input = BaselineInput {
        cause,
        pull_request: number,
        head: Artifact::commit(head.clone()),
        covered_tasks: None,
        evidence: None,
    };
    match same_tree {
        Some(from) if from == &record.candidate_artifact => t::carry(record, input, event),
        _ => t::baseline(record, input, event),
    }
}
