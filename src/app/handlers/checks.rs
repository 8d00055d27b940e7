//! Check events: a re-requested check or the "Re-run gate" button re-evaluates the gate; a
//! required evidence check completing re-evaluates the PRs on its head; a merge group's
//! head gets the conclusion of the last queued PR's gate, and waits for the required checks
//! on the group commit itself.

use crate::app::change::refresh;
use crate::app::commit::dispatch::WhenDue;
use crate::app::context::Ctx;
use crate::app::publish::write;
use crate::app::reads::loading;
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::runs;
use crate::delivery::Handled;
use crate::engine::gate::{integrated_checks, CheckObservation, Conclusion};
use crate::engine::views::check_run::{
    check_run, disabled, integrated_candidate, invalid_config, CheckRunView,
};
use crate::events::{
    CheckRunAction, CheckRunEvent, CheckSuiteAction, CheckSuiteEvent, MergeGroupAction,
    MergeGroupEvent, WebhookEvent,
};
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

async fn regate(
    ctx: &Ctx,
    head: &str,
    mode: RunMode,
    dispatch: WhenDue,
) -> Result<Handled, GitHubError> {
    // The head goes into REST paths: anything but a SHA is not acted on.
    let Ok(head) = CommitSha::new(head.to_owned()) else {
        return Ok(Handled::Ignored);
    };
    let numbers = pulls_on(ctx, &head).await?;
    if numbers.is_empty() {
        return Ok(Handled::Ignored);
    }
    for number in numbers {
        let full = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
        if full.head_sha != head || !full.open {
            // A remembered head that moved since: that PR's own events gate its new head.
            continue;
        }
        let state = loading::load(ctx, full.number, None).await?;
        let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
        refresh::refresh_with(
            ctx,
            observe::Target {
                pull: &full,
                state: &state,
                records_commit: commit.as_ref(),
                runs: None,
                checked: false,
            },
            mode,
            Body::Keep,
            refresh::RefreshExtras {
                dispatch,
                thanks: None,
            },
        )
        .await?;
    }
    Ok(Handled::Done)
}

/// The open pull requests whose head is `head`. GitHub leaves pull requests from forks out
/// of both a check run's `pull_requests` and a commit's pull-request listing, so the PRs
/// this process last saw on that head come first (each is read again by the caller), then
/// that listing, then the repository's open PRs filtered by head.
async fn pulls_on(ctx: &Ctx, head: &CommitSha) -> Result<Vec<PrNumber>, GitHubError> {
    let remembered = ctx.memory.pulls_with_head(&ctx.repo, head);
    if !remembered.is_empty() {
        return Ok(remembered);
    }
    let same_repository = rest::open_pulls_for_commit(&ctx.api, &ctx.repo, head).await?;
    if !same_repository.is_empty() {
        return Ok(same_repository.into_iter().map(|p| p.number).collect());
    }
    let open = rest::open_pulls(&ctx.api, &ctx.repo, OPEN_PULL_PAGES).await?;
    Ok(open
        .into_iter()
        .filter(|p| &p.head_sha == head)
        .map(|p| p.number)
        .collect())
}

/// Pages of open pull requests (100 each) searched for a fork's head.
const OPEN_PULL_PAGES: usize = 10;

/// Whether the event asks another App to run its check again: a re-run or a button on a
/// run (or suite) named like ours but owned by another App is that App's to answer, and is
/// ignored before any call. A payload that names no App is taken as ours.
pub(crate) fn asks_another_app(event: &WebhookEvent, app_id: u64) -> bool {
    let owner = match event {
        WebhookEvent::CheckRun(e)
            if matches!(
                e.action,
                CheckRunAction::Rerequested | CheckRunAction::RequestedAction
            ) =>
        {
            e.check_run.app.as_ref()
        }
        WebhookEvent::CheckSuite(e) if e.action == CheckSuiteAction::Rerequested => {
            e.check_suite.app.as_ref()
        }
        _ => None,
    };
    owner.is_some_and(|a| a.id != app_id)
}

fn own_check(ctx: &Ctx) -> String {
    ctx.settings().check_name.clone()
}

pub(crate) async fn check_run_event(ctx: &Ctx, e: &CheckRunEvent) -> Result<Handled, GitHubError> {
    let run = &e.check_run;
    match e.action {
        CheckRunAction::Rerequested if run.name == own_check(ctx) => {
            regate(ctx, &run.head_sha, RunMode::Create, WhenDue::Hold).await
        }
        CheckRunAction::RequestedAction
            if run.name == own_check(ctx)
                && e.requested_action
                    .as_ref()
                    .is_some_and(|a| a.identifier == "rerun") =>
        {
            regate(ctx, &run.head_sha, RunMode::Update, WhenDue::Hold).await
        }
        CheckRunAction::Completed => {
            let Ok(config) = &ctx.config else {
                return Ok(Handled::Ignored);
            };
            let evidence = config
                .evidence
                .required_checks
                .iter()
                .any(|n| n == &run.name)
                || config
                    .evidence
                    .gates
                    .values()
                    .flatten()
                    .any(|n| n == &run.name);
            if !evidence || run.name == config.check_name {
                return Ok(Handled::Ignored);
            }
            // A required check on a merge group's commit: that group's run is evaluated again.
            if let Some(number) = run.merge_group_pull() {
                let Ok(group) = CommitSha::new(run.head_sha.clone()) else {
                    return Ok(Handled::Ignored);
                };
                return merge_group_gate(ctx, number, &group, RunMode::Update).await;
            }
            // The evidence check that completes the required set makes the record ready.
            regate(ctx, &run.head_sha, RunMode::Update, WhenDue::Send).await
        }
        _ => Ok(Handled::Ignored),
    }
}

pub(crate) async fn check_suite_event(
    ctx: &Ctx,
    e: &CheckSuiteEvent,
) -> Result<Handled, GitHubError> {
    match e.action {
        CheckSuiteAction::Rerequested => {
            regate(ctx, &e.check_suite.head_sha, RunMode::Create, WhenDue::Hold).await
        }
        CheckSuiteAction::Other => Ok(Handled::Ignored),
    }
}

/// The merge-group head gets PR N's gate, evaluated for PR N's own head, so the queue
/// never waits on the audit; with required checks, they must also succeed on the group
/// commit, the integrated candidate.
pub(crate) async fn merge_group_event(
    ctx: &Ctx,
    e: &MergeGroupEvent,
) -> Result<Handled, GitHubError> {
    if e.action != MergeGroupAction::ChecksRequested {
        return Ok(Handled::Ignored);
    }
    let Some(number) = e.merge_group.queued_pull() else {
        return Ok(Handled::Ignored);
    };
    let Ok(head) = CommitSha::new(e.merge_group.head_sha.clone()) else {
        return Ok(Handled::Ignored);
    };
    merge_group_gate(ctx, number, &head, RunMode::Create).await
}

/// Publishes the check run on the merge-group commit `group`, which last queued PR
/// `number`: created on `checks_requested`, updated when a required check concludes there.
async fn merge_group_gate(
    ctx: &Ctx,
    number: PrNumber,
    group: &CommitSha,
    mode: RunMode,
) -> Result<Handled, GitHubError> {
    let pull = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
    let state = loading::load(ctx, number, None).await?;
    let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
    let checks = rest::check_runs(&ctx.api, &ctx.repo, &pull.head_sha).await?;
    let slug = ctx.bot_slug().await?;
    // A rewound branch fails the merge group as it fails the PR.
    let named = runs::our_named_commit(&checks, &own_check(ctx), slug);
    let (state, _) = loading::verified(ctx, number, state, named.as_ref()).await?;
    observe::read_decisions_if_cited(ctx, &state).await?;
    let observed = runs::observations(&checks, &own_check(ctx));
    let Some(mut view) = merge_group_view(ctx, &pull, &state, &observed) else {
        return Ok(Handled::Ignored);
    };
    let check_name = own_check(ctx);
    // The group commit's own runs: the required checks there, and our run to update.
    let required = ctx
        .config
        .as_ref()
        .ok()
        .filter(|c| !c.evidence.required_checks.is_empty());
    let mut ours = None;
    if let Some(config) = required {
        let on_group = rest::check_runs(&ctx.api, &ctx.repo, group).await?;
        ours = runs::our_run(&on_group, &check_name, slug)
            .or_else(|| ctx.memory.run_of(&ctx.repo, group, &check_name));
        if view.conclusion == Conclusion::Success {
            let result = integrated_checks(config, &runs::observations(&on_group, &check_name));
            view = integrated_candidate(view, group, &result);
        }
    }
    view.title = format!("{number}: {}", view.title);
    let mode = if ours.is_some() {
        mode
    } else {
        RunMode::Create
    };
    let run = write::Publish {
        check_name: &check_name,
        head: group,
        head_pull: number,
        ours,
        records_commit: commit.as_ref(),
        mode,
    };
    write::publish(ctx, run, &view).await?;
    Ok(Handled::Done)
}

/// The check run of a merge group's head: PR `number`'s gate, with no annotations and
/// never in progress for the PR's own sake (the queue must not wait on the audit); `None`
/// when the gate cannot be evaluated.
fn merge_group_view(
    ctx: &Ctx,
    pull: &rest::Pull,
    state: &loading::Loaded,
    observed: &[CheckObservation],
) -> Option<CheckRunView> {
    let mut view = match (&ctx.config, observe::gate_for(ctx, pull, state, observed)) {
        (Err(e), _) => invalid_config(&e.to_md(), e.line.map(|l| l as u64)),
        (Ok(c), _) if !c.enabled() => disabled(),
        (Ok(_), Some(g)) => {
            let record = state
                .as_ref()
                .ok()
                .and_then(|s| s.record.as_ref())
                .and_then(|r| r.as_ref().ok());
            check_run(
                &g,
                record,
                &ctx.view(),
                crate::engine::views::BodyStatus::Current,
            )
        }
        (Ok(_), None) => return None,
    };
    if let Err(why) = state {
        view = crate::engine::views::check_run::records_unavailable(
            &crate::engine::md::Md::text_max(&why.why, 2_000),
        );
    }
    view.annotations.clear();
    if view.conclusion == Conclusion::InProgress {
        view.conclusion = Conclusion::Failure;
    }
    Some(view)
}
