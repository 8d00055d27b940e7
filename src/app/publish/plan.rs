//! What the views show, decided from what was observed: pure, so that every read happens
//! before it (`observe::observe`) and every write after it (`write::publish_plan`).

use crate::app::context::Ctx;
use crate::app::reads::lineage::repair;
use crate::app::reads::loading::{damage_of, Loaded};
use crate::app::reads::observe::{gate_for, record_of, Observed, RunMode};
use crate::app::reads::runs::{forged, forged_words};
use crate::engine::gate::{combine, GateResult};
use crate::engine::md::Md;
use crate::engine::transition::sent_marker;
use crate::engine::views::check_run::{
    cap, check_run_with, disabled, invalid_config, records_unavailable, SUMMARY_LIMIT,
};
use crate::engine::views::threads::{self, ThreadPlan};
use crate::engine::views::{BodyStatus, CheckRunView};
use crate::github::rest::Pull;
use crate::ids::CommitSha;
use crate::md;

/// What to publish, decided from what was observed: the check run's view and the records
/// commit it names, the new PR body, and the warning about forged gates.
pub(crate) struct Plan {
    pub(crate) view: CheckRunView,
    pub(crate) records_commit: Option<CommitSha>,
    pub(crate) new_body: Option<String>,
    pub(crate) forged_warning: Option<String>,
    pub(crate) mode: RunMode,
    /// The findings' review threads to post, resolve and unresolve, and the commit a
    /// posted review is on.
    pub(crate) threads: ThreadPlan,
    pub(crate) review_commit: Option<CommitSha>,
}

/// Whether this delivery sent the record's awaited dispatch just before its views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DispatchNow {
    Sent,
    NotSent,
}

/// Decides what the views show. Pure: `seen` and `others` hold everything it reads, and
/// `own` is the PR's gate as the caller evaluated it on `seen` (`None`: the configuration
/// is invalid); `sent` says whether this delivery sent the record's awaited dispatch just before.
pub(crate) fn plan(
    ctx: &Ctx,
    own: Option<GateResult>,
    seen: &Observed<'_>,
    others: &[(&Pull, Loaded)],
    mode: RunMode,
    sent: DispatchNow,
) -> Plan {
    let state = &seen.state;
    let gate = combined_gate(ctx, own, seen, others);
    let (body_status, new_body) = match (&seen.fresh, record_of(state).ok().flatten()) {
        (Some(fresh), Some(r)) => {
            let commit = state.as_ref().ok().and_then(|s| s.commit.as_ref());
            crate::app::publish::body::spliced(ctx, &fresh.body, r, commit)
        }
        _ => (BodyStatus::Current, None),
    };
    // A branch that is gone while our check run names its last commit was lost, not never
    // made: condition 1 fails saying so, and the run keeps naming that commit, from which
    // the next write recreates the branch.
    let lost = match state {
        Ok(s) if s.commit.is_none() => seen.named.clone(),
        _ => None,
    };
    // A rewound branch keeps being named by the newest commit GitHub saw, so the rewind
    // stays visible until it is repaired.
    let records_commit = if seen.rewound {
        seen.named.clone()
    } else {
        seen.records_commit.clone().or(lost.clone())
    };
    let mut view = view_of(ctx, gate.as_ref(), state, body_status, lost.as_ref());
    let forged_warning = warn_forged(&mut view, seen);
    mark_sent(&mut view, seen, sent);
    let (threads, review_commit) = thread_plan(ctx, seen).unwrap_or_default();
    Plan {
        view,
        records_commit,
        new_body,
        forged_warning,
        mode,
        threads,
        review_commit,
    }
}

/// The threads' changes (docs/reference.md#review-threads), when the delivery read the
/// PR's threads: it posts and unresolves only when it recorded the latest run, on the
/// head that run audited.
fn thread_plan(ctx: &Ctx, seen: &Observed<'_>) -> Option<(ThreadPlan, Option<CommitSha>)> {
    let threads = ctx.delivery_cache.ahead.threads()?;
    let record = record_of(&seen.state).ok().flatten()?;
    let head = &seen.pull.head_sha;
    let posting = ctx.delivery_cache.ahead.threads_whole()
        && record.run_events().last().is_some_and(|(event, run)| {
            event.delivery == ctx.delivery && run.candidate_artifact.sha() == head
        });
    let diff = ctx.delivery_cache.ahead.diff();
    let setting = ctx.settings().review_threads;
    let plan = threads::plan(
        record,
        (setting, posting),
        &threads,
        diff.as_ref(),
        &ctx.view(),
    );
    Some((plan, posting.then(|| head.clone())))
}

/// The PR's gate, combined with the gates of the other open PRs on its head: it passes
/// only when every one of them passes.
fn combined_gate(
    ctx: &Ctx,
    own: Option<GateResult>,
    seen: &Observed<'_>,
    others: &[(&Pull, Loaded)],
) -> Option<GateResult> {
    let (pull, checks) = (seen.pull, &seen.checks[..]);
    let own = own?;
    if others.is_empty() {
        return Some(own);
    }
    let mut results = vec![(pull.number, own)];
    for (other, other_state) in others {
        if let Some(g) = gate_for(ctx, other, other_state, checks) {
            results.push((other.number, g));
        }
    }
    Some(combine(&results))
}

/// The warning about runs of our name made by another App, put first in `view`'s summary;
/// `None` when there are none.
fn warn_forged(view: &mut CheckRunView, seen: &Observed<'_>) -> Option<String> {
    let forgers = forged(&seen.runs, &seen.check_name, seen.bot_slug);
    (!forgers.is_empty()).then(|| {
        let words = forged_words(&seen.check_name, &forgers);
        // GitHub refuses a summary over 65,535 characters: the warning comes first and the
        // view's own summary gives way.
        view.summary =
            crate::engine::md::escape::truncate(&format!("{words}\n\n{}", view.summary), 65_535);
        words
    })
}

/// Ends `view`'s summary with the sent marker of the record's awaited dispatch once it
/// went out (now, or as the published run already says). The dispatch goes out before the
/// check run that says so; the marker tells a redelivery it went out (see
/// `app::commit::dispatch`).
fn mark_sent(view: &mut CheckRunView, seen: &Observed<'_>, sent: DispatchNow) {
    let awaited = record_of(&seen.state)
        .ok()
        .flatten()
        .and_then(|r| r.awaited_dispatch().map(|(_, d)| sent_marker(r, d)));
    if let Some(marker) = awaited {
        if sent == DispatchNow::Sent
            || seen
                .published
                .as_deref()
                .is_some_and(|p| p.contains(&marker))
        {
            let room = SUMMARY_LIMIT - marker.chars().count() - 2;
            view.summary = format!("{}\n{marker}\n", cap(&view.summary, room, None));
        }
    }
}

/// The check run's view of `state` under `gate`, or the view that says why there is none.
fn view_of(
    ctx: &Ctx,
    gate: Option<&GateResult>,
    state: &Loaded,
    body_status: BodyStatus,
    lost: Option<&CommitSha>,
) -> CheckRunView {
    let repair = |why: &str| {
        let damage = damage_of(state);
        md!(
            "{}. {}",
            Md::text_max(why, 2_000),
            repair(
                &ctx.view(),
                damage.as_ref().and_then(|d| d.last_good.as_ref())
            )
        )
    };
    match (&ctx.config, gate, record_of(state)) {
        (Err(e), _, _) => invalid_config(&e.to_md(), e.line.map(|l| l as u64)),
        (Ok(c), _, _) if !c.enabled() => disabled(),
        (Ok(_), _, _) if lost.is_some() => records_unavailable(&md!(
            "the records branch {} is missing; it was last at {}, where the next command recreates it",
            Md::code(ctx.records_branch()),
            Md::code(lost.map(CommitSha::short).unwrap_or_default())
        )),
        (Ok(_), Some(g), Ok(record)) => {
            check_run_with(g, record, &ctx.view(), body_status, patterns_of(ctx, state))
        }
        (Ok(_), Some(_), Err(why)) => records_unavailable(&repair(&why)),
        (Ok(_), None, _) => records_unavailable(&Md::lit("the head commit is not a full SHA")),
    }
}

/// The pattern library the check run marks recurring findings from
/// (docs/reference.md#the-pattern-library).
fn patterns_of<'s>(ctx: &Ctx, state: &'s Loaded) -> Option<&'s crate::engine::patterns::Library> {
    let library = state.as_ref().ok()?.patterns.as_ref()?.as_ref().ok()?;
    ctx.settings().patterns.then_some(library)
}
