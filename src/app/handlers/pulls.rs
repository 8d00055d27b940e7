//! Pull-request events: a new head gets a new check run (and, with `baseline_on_push`, a
//! rebound record); a base change rebinds; an edit inside the managed sections is undone.

use crate::app::change::refresh;
use crate::app::commit::dispatch::WhenDue;
use crate::app::context::Ctx;
use crate::app::early::prefetch;
use crate::app::reads::loading;
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::state::State;
use crate::delivery::Handled;
use crate::engine::record::BaselineCause;
use crate::engine::repo_config::RepoConfig;
use crate::engine::views::{sections, sections_tampered};
use crate::events::{PullRequestAction, PullRequestEvent};
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{Artifact, CommitSha};

/// A pull-request event: the record rebound when the event may do it, the sections put
/// back after an edit inside them, then the views refreshed.
pub(crate) async fn handle(ctx: &Ctx, e: &PullRequestEvent) -> Result<Handled, GitHubError> {
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
    let mut state = loading::load(ctx, e.number, None).await?;
    let mut commit = state.as_ref().ok().and_then(|s| s.commit.clone());
    // A push rebinds only with `baseline_on_push`.
    let on_push = ctx.config.as_ref().is_ok_and(|c| c.baseline_on_push);
    let rebinds = cause.filter(|c| *c != BaselineCause::Push || on_push);
    let has_record = has_record(&state);
    let enabled = ctx.config.as_ref().is_ok_and(RepoConfig::enabled);
    let pushed = pushed_by_another(e, &state);
    if enabled && has_record && (rebinds.is_some() || pushed.is_some()) {
        let at = (&mut state, &mut commit);
        crate::app::commit::rebind::rebind_to_head(ctx, e, &pull, (rebinds, pushed), at).await?;
    }
    let base_changed = effect.base_changed;
    if e.action == A::Edited && !base_changed {
        match restore_sections(ctx, &pull, &state).await? {
            Restored::Refresh => {}
            Restored::Answer(handled) => return Ok(handled),
        }
    }
    // A base change rebinds the record, so its sections change like a push's do.
    let body = Body::rebuild_if((e.action != A::Edited || base_changed) && has_record);
    // A rebind (or its redelivery) may make the record ready for the auditor (docs/reference.md#when-the-app-dispatches).
    let dispatch = WhenDue::send_if(rebinds.is_some() && has_record);
    refresh::refresh_with(
        ctx,
        observe::Target {
            pull: &pull,
            state: &state,
            records_commit: commit.as_ref(),
            runs: None,
            checked: false,
        },
        mode,
        body,
        refresh::RefreshExtras {
            dispatch,
            thanks: None,
        },
    )
    .await?;
    Ok(Handled::Done)
}

/// The head the event's sender brought, when the event is a push (`opened`,
/// `synchronize`, or a `reopened` whose head is not the record's candidate) by someone other
/// than the pull request's author: the sender is an implementer from then on, whether or not
/// the record follows the push (docs/reference.md#independence-of-the-auditor). The author is
/// one already.
fn pushed_by_another(e: &PullRequestEvent, state: &loading::Loaded) -> Option<Artifact> {
    use PullRequestAction as A;
    let head = CommitSha::new(e.pull_request.head.sha.clone()).ok()?;
    let candidate = match state {
        Ok(State {
            record: Some(Ok(record)),
            ..
        }) => &record.candidate_artifact,
        _ => return None,
    };
    let brought = match e.action {
        A::Opened | A::Synchronize => true,
        A::Reopened => candidate.sha() != &head,
        _ => false,
    };
    let author = e
        .pull_request
        .user
        .login
        .eq_ignore_ascii_case(&e.sender.login);
    (brought && !author).then(|| Artifact::commit(head))
}

/// Whether the PR has a record, read without damage.
fn has_record(state: &loading::Loaded) -> bool {
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
            title: String::new(),
        };
        return Ok((pull, cause, mode));
    }
    let now = ctx
        .delivery_cache
        .pull(&ctx.api, &ctx.repo, e.number)
        .await?;
    if now.head_sha == head_sha {
        return Ok((now, cause, mode));
    }
    tracing::info!(repo = %ctx.repo, pr = e.number.0, event_head = %head_sha.short(), head = %now.head_sha.short(), "the event's head is no longer the PR's; the record is left as it is");
    // The current head's own event makes its run; this one only brings it up to date.
    Ok((now, None, RunMode::Update))
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
    state: &loading::Loaded,
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
