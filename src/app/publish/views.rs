//! Rebuilding the views from the records: the PR-body sections and the check run.

use crate::app::commit::lineage::{repair, Lineage};
use crate::app::commit::load::{damage_of, load, verified, Loaded};
use crate::app::context::Ctx;
use crate::app::memory::OurRun;
use crate::app::publish::runs::our_run;
pub use crate::app::publish::runs::{forged, forged_words, observations, our_named_commit};
use crate::app::AuditApp;
use crate::engine::gate::{combine, pull_gate, CheckObservation, Conclusion, GateResult, PullGate};
use crate::engine::record::Record;
use crate::engine::repo_config::Assurance;
use crate::engine::transition::sent_marker;
use crate::engine::views::check_run::{
    cap, check_run_with, disabled, invalid_config, records_unavailable, SUMMARY_LIMIT,
};
use crate::engine::views::md::Md;
use crate::engine::views::{annotation_batches, Annotation, BodyStatus, CheckRunView};
use crate::github::rest::{
    self, CheckRunAction, CheckRunAnnotation, CheckRunBody, CheckRunInfo, CheckRunOutput, Pull,
};
use crate::github::GitHubError;
use crate::ids::{CheckRunId, CommitSha};
use crate::md;

/// Whether the check run is created anew (new head, accepted report, re-requested) or the
/// current one updated (GitHub appends annotations on every update, so updates carry none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    Create,
    Update,
}

pub fn record_of(state: &Loaded) -> Result<Option<&Record>, String> {
    match state {
        Err(e) => Err(e.why.clone()),
        Ok(s) => match &s.record {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some(r)),
            Some(Err(e)) => Err(e.clone()),
        },
    }
}

/// The pattern library the check run marks recurring findings from
/// (docs/reference.md#the-pattern-library).
fn patterns_of<'s>(ctx: &Ctx, state: &'s Loaded) -> Option<&'s crate::engine::patterns::Library> {
    let library = state.as_ref().ok()?.patterns.as_ref()?.as_ref().ok()?;
    ctx.settings().patterns.then_some(library)
}

/// The gate for one PR at its head (`auditloop status` calls the same [`pull_gate`]).
pub fn gate_for(
    ctx: &Ctx,
    operator_min: Assurance,
    pull: &Pull,
    state: &Loaded,
    checks: &[CheckObservation],
) -> Option<GateResult> {
    let config = ctx.config.as_ref().ok()?;
    Some(pull_gate(&PullGate {
        config,
        operator_min,
        repo: &ctx.repo,
        head: &pull.head_sha,
        body: &pull.body,
        record: record_of(state),
        checks,
    }))
}

/// The PR whose views are rebuilt, with the records they are rebuilt from.
pub struct Target<'a> {
    pub pull: &'a Pull,
    pub state: &'a Loaded,
    /// The records commit the views are computed from (the check run's `external_id`).
    pub records_commit: Option<&'a CommitSha>,
    /// The check runs on the PR's head, when the caller listed them already.
    pub runs: Option<&'a [CheckRunInfo]>,
    /// `state` was checked against the commit our run names by the write that made it.
    pub checked: bool,
}

/// Whether the gate reads other checks on the head (condition 8's evidence checks).
fn reads_checks(ctx: &Ctx) -> bool {
    ctx.config.as_ref().is_ok_and(|c| {
        !c.evidence.required_checks.is_empty()
            || c.evidence.archetype.is_some()
            || !c.evidence.gates.is_empty()
    })
}

/// What publishing reads before it decides what to show: the head's check runs, the open
/// PRs that share the head, the body read just now, and the records checked against the
/// commit our run names. Nothing of it is written.
pub struct Observed<'a> {
    pub pull: &'a Pull,
    /// The records, checked against `named` (damaged when the branch went back).
    pub state: Loaded,
    /// The records commit the views are computed from (the check run's `external_id`).
    pub records_commit: Option<CommitSha>,
    /// The lineage check found the branch rewound or edited.
    pub rewound: bool,
    pub runs: Vec<CheckRunInfo>,
    pub checks: Vec<CheckObservation>,
    /// Our run on the head, from the listing or from this process's memory.
    pub ours: Option<OurRun>,
    /// The records commit our newest run names.
    pub named: Option<CommitSha>,
    /// The summary our newest run shows (it may carry a dispatch's sent marker).
    pub published: Option<String>,
    /// The open PRs on the head, when they could change the conclusion.
    pub sharing: Option<Vec<Pull>>,
    /// The PR as read just before its body is patched.
    pub fresh: Option<Pull>,
    pub bot_slug: &'a str,
    pub check_name: String,
}

/// Reads what the views of `target` are computed from; `None` when a newer view stands
/// (our run or the body shows newer records), so this one is not published.
///
/// The calls it makes are only those the answer needs: the checks on the head (unless the
/// caller listed them); the open PRs on the head only when they could change the
/// conclusion (that listing then also serves as the body read); the body, read just before
/// it is patched (docs/reference.md#the-pr-body).
pub async fn observe<'a>(
    app: &'a AuditApp,
    ctx: &Ctx,
    target: Target<'a>,
    update_body: bool,
) -> Result<Option<Observed<'a>>, GitHubError> {
    let Target {
        pull,
        state,
        records_commit,
        runs: listed,
        checked: already_checked,
    } = target;
    let bot_slug = app.bot_slug(ctx).await?;
    let check_name = ctx.settings().check_name.clone();
    let head = &pull.head_sha;
    // Our run on the head as this process last made it, for when the listing does not show
    // it yet, so that an update finds it and a redelivered create finds the run it made.
    let known_run = ctx.memory.run_of(&ctx.repo, head, &check_name);
    // Without evidence checks the PR's own gate is known now; the other PRs on its head
    // can only make a passing (or waiting) gate worse, never a failing one better.
    let early = (!reads_checks(ctx)).then(|| gate_for(ctx, app.operator_min, pull, state, &[]));
    let need_sharing = match &early {
        Some(gate) => gate
            .as_ref()
            .is_some_and(|g| g.conclusion != Conclusion::Failure),
        None => true,
    };
    let wants_body = update_body && record_of(state).ok().flatten().is_some();
    // The checks on the head are listed every time, never taken from memory: the lineage
    // check needs the records commit our run shows on GitHub now, whichever replica made
    // it, and the forged-gate warning needs every run of our name.
    let runs_read = async {
        match listed {
            Some(runs) => Ok(runs.to_vec()),
            None => ctx.seen.head_runs(&ctx.api, &ctx.repo, head).await,
        }
    };
    let pulls = async {
        let sharing = if need_sharing {
            Some(rest::open_pulls_for_commit(&ctx.api, &ctx.repo, head).await?)
        } else {
            None
        };
        let listed = sharing
            .as_ref()
            .and_then(|s| s.iter().find(|p| p.number == pull.number).cloned());
        let fresh = match (wants_body, listed) {
            (false, _) => None,
            (true, Some(p)) => Some(p),
            (true, None) => Some(rest::get_pull(&ctx.api, &ctx.repo, pull.number).await?),
        };
        Ok::<_, GitHubError>((sharing, fresh))
    };
    let (runs, (sharing, fresh)) = futures::try_join!(runs_read, pulls)?;
    let ours = our_run(&runs, &check_name, bot_slug).or(known_run);
    let named = our_named_commit(&runs, &check_name, bot_slug);
    let (checked, lineage) = if already_checked {
        (state.clone(), Lineage::Current)
    } else {
        verified(ctx, pull.number, state.clone(), named.as_ref()).await?
    };
    if lineage == Lineage::Stale {
        tracing::info!(
            pr = pull.number.0,
            "a newer view stands; this one is not published"
        );
        return Ok(None);
    }
    // The body read just now may show a view computed from a newer records commit than
    // ours (another delivery or replica finished first): that view stands, check run and
    // all, as when our run shows a newer commit. `named` is free: ours extends it.
    if let (Some(fresh), Ok(s)) = (&fresh, &checked) {
        if crate::app::publish::body::overtaken(ctx, s, &fresh.body, named.as_ref()).await? {
            tracing::info!(
                pr = pull.number.0,
                "a newer body stands; this view is not published"
            );
            return Ok(None);
        }
    }
    let checks = observations(&runs, &check_name);
    let published = runs
        .iter()
        .find(|r| {
            r.name == check_name && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(bot_slug)
        })
        .and_then(|r| r.output.as_ref())
        .and_then(|o| o.summary.clone());
    Ok(Some(Observed {
        pull,
        state: checked,
        records_commit: records_commit.cloned(),
        rewound: matches!(lineage, Lineage::Damaged { .. }),
        runs,
        checks,
        ours,
        named,
        published,
        sharing,
        fresh,
        bot_slug,
        check_name,
    }))
}

/// The records of the other open PRs on the head, whose gates the check run combines with
/// this PR's (it passes only when every one of them passes).
pub async fn others<'s>(
    ctx: &Ctx,
    operator_min: Assurance,
    seen: &'s Observed<'_>,
) -> Result<Vec<(&'s Pull, Loaded)>, GitHubError> {
    let pull = seen.pull;
    if gate_for(ctx, operator_min, pull, &seen.state, &seen.checks).is_none() {
        return Ok(Vec::new());
    }
    let mut loaded = Vec::new();
    for other in seen
        .sharing
        .iter()
        .flatten()
        .filter(|p| p.number != pull.number)
    {
        loaded.push((other, load(ctx, other.number, None).await?));
    }
    Ok(loaded)
}

/// What to publish, decided from what was observed: the check run's view and the records
/// commit it names, the new PR body, and the warning about forged gates.
pub struct Plan {
    pub view: CheckRunView,
    pub records_commit: Option<CommitSha>,
    pub new_body: Option<String>,
    pub forged_warning: Option<String>,
    pub mode: RunMode,
}

/// Decides what the views show. Pure: `seen` and `others` hold everything it reads;
/// `sent_now` says this delivery sent the record's awaited dispatch just before.
pub fn plan(
    ctx: &Ctx,
    operator_min: Assurance,
    seen: &Observed<'_>,
    others: &[(&Pull, Loaded)],
    mode: RunMode,
    sent_now: bool,
) -> Plan {
    let (pull, state, checks) = (seen.pull, &seen.state, &seen.checks[..]);
    let mut gate = gate_for(ctx, operator_min, pull, state, checks);
    if let (Some(own), false) = (&gate, others.is_empty()) {
        let mut results = vec![(pull.number, own.clone())];
        for (other, other_state) in others {
            if let Some(g) = gate_for(ctx, operator_min, other, other_state, checks) {
                results.push((other.number, g));
            }
        }
        gate = Some(combine(&results));
    }
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
    let forgers = forged(&seen.runs, &seen.check_name, seen.bot_slug);
    let forged_warning = (!forgers.is_empty()).then(|| {
        let words = forged_words(&seen.check_name, &forgers);
        // GitHub refuses a summary over 65,535 characters: the warning comes first and the
        // view's own summary gives way.
        view.summary =
            crate::engine::views::escape::truncate(&format!("{words}\n\n{}", view.summary), 65_535);
        words
    });
    // The dispatch goes out before the check run that says so; the marker tells a
    // redelivery it went out (see `app::commit::dispatch`).
    let awaited = record_of(state)
        .ok()
        .flatten()
        .and_then(|r| r.awaited_dispatch().map(|(_, d)| sent_marker(r, d)));
    if let Some(marker) = awaited {
        if sent_now
            || seen
                .published
                .as_deref()
                .is_some_and(|p| p.contains(&marker))
        {
            let room = SUMMARY_LIMIT - marker.chars().count() - 2;
            view.summary = format!("{}\n{marker}\n", cap(&view.summary, room, None));
        }
    }
    Plan {
        view,
        records_commit,
        new_body,
        forged_warning,
        mode,
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
        (Err(e), _, _) => invalid_config(&e.to_string(), e.line.map(|l| l as u64)),
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

/// Publishes `plan`: the forged-gate warning (once per head), then the PR body and the
/// check run together.
pub async fn publish_plan(ctx: &Ctx, seen: Observed<'_>, plan: Plan) -> Result<(), GitHubError> {
    let pull = seen.pull;
    if let Some(words) = &plan.forged_warning {
        crate::app::publish::reply::warn_once(
            ctx,
            pull,
            &format!("forged-{}", pull.head_sha),
            words,
        )
        .await?;
    }
    let run = Publish {
        check_name: &seen.check_name,
        head: &pull.head_sha,
        ours: seen.ours,
        records_commit: plan.records_commit.as_ref(),
        mode: plan.mode,
    };
    let body = async {
        match &plan.new_body {
            Some(b) => rest::set_pull_body(&ctx.api, &ctx.repo, pull.number, b).await,
            None => Ok(()),
        }
    };
    futures::try_join!(body, publish(ctx, run, &plan.view))?;
    Ok(())
}

fn annotation_body(a: &Annotation) -> CheckRunAnnotation<'_> {
    CheckRunAnnotation {
        path: &a.path,
        start_line: a.start_line,
        end_line: a.end_line,
        annotation_level: a.level.as_str(),
        title: &a.title,
        message: &a.message,
    }
}

const RERUN: &[CheckRunAction<'static>] = &[CheckRunAction {
    label: "Re-run gate",
    description: "Evaluate the audit gate again",
    identifier: "rerun",
}];

/// Where a check-run view goes: `check_name` on `head`, created, or updating our run
/// `ours`.
pub struct Publish<'a> {
    pub check_name: &'a str,
    pub head: &'a CommitSha,
    pub ours: Option<OurRun>,
    pub records_commit: Option<&'a CommitSha>,
    pub mode: RunMode,
}

/// Creates or updates the check run named `check_name` on `head`, and remembers its id.
pub async fn publish(ctx: &Ctx, run: Publish<'_>, view: &CheckRunView) -> Result<(), GitHubError> {
    let Publish {
        check_name,
        head,
        ours,
        records_commit,
        mode,
    } = run;
    let finished = view.conclusion != Conclusion::InProgress;
    let mut body = CheckRunBody {
        name: Some(check_name),
        head_sha: Some(head),
        external_id: records_commit.map(CommitSha::as_str),
        status: Some(if finished { "completed" } else { "in_progress" }),
        conclusion: finished.then(|| view.conclusion.as_str()),
        actions: if finished { RERUN } else { &[] },
        output: CheckRunOutput {
            title: &view.title,
            summary: &view.summary,
            text: Some(&view.text),
            annotations: None,
        },
    };
    // A run already made from this very records commit is this view: a create whose
    // answer was lost, then redelivered, must not leave a second run on the head.
    let same_records = |r: &OurRun| r.records.as_ref() == records_commit;
    let mode = match (mode, &ours) {
        (RunMode::Create, Some(r)) if same_records(r) => RunMode::Update,
        _ => mode,
    };
    let remember = |id: CheckRunId| {
        let run = OurRun {
            id,
            records: records_commit.cloned(),
        };
        ctx.memory.remember_run(&ctx.repo, head, check_name, run);
    };
    if let (RunMode::Update, Some(id)) = (mode, ours.map(|r| r.id)) {
        // The update route takes no head_sha: a run stays on its commit.
        body.head_sha = None;
        rest::update_check_run(&ctx.api, &ctx.repo, id, &body).await?;
        remember(id);
    } else {
        let mut batches = annotation_batches(&view.annotations);
        if let Some(first) = batches.next() {
            body.output.annotations = Some(first.iter().map(annotation_body).collect());
        }
        let id = rest::create_check_run(&ctx.api, &ctx.repo, &body).await?;
        remember(id);
        for batch in batches {
            let more = CheckRunBody {
                output: CheckRunOutput {
                    title: &view.title,
                    summary: &view.summary,
                    text: None,
                    annotations: Some(batch.iter().map(annotation_body).collect()),
                },
                ..CheckRunBody::default()
            };
            rest::update_check_run(&ctx.api, &ctx.repo, id, &more).await?;
        }
    }
    Ok(())
}
