//! Rebuilding the views from the records, first step: what the views of a PR are
//! computed from, read from GitHub (the records, the head's check runs, the PRs sharing
//! the head, the body). `plan` decides from it; `write` publishes.

use crate::app::context::memory::OurRun;
use crate::app::context::Ctx;
use crate::app::reads::lineage::Lineage;
use crate::app::reads::loading::{load, verified, Loaded};
use crate::app::reads::runs::our_run;
use crate::app::reads::runs::{observations, our_named_commit};
use crate::engine::gate::{may_pass, pull_gate, CheckObservation, GateResult, PullGate};
use crate::engine::record::Record;
use crate::github::rest::{self, CheckRunInfo, Pull};
use crate::github::GitHubError;
use crate::ids::CommitSha;

/// Whether the check run is created anew (new head, accepted report, re-requested) or the
/// current one updated (GitHub appends annotations on every update, so updates carry none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunMode {
    Create,
    Update,
}

impl RunMode {
    /// `Create` when `new` (a new head, an accepted report, a re-request), else `Update`.
    pub(crate) fn create_if(new: bool) -> Self {
        if new {
            Self::Create
        } else {
            Self::Update
        }
    }
}

pub(crate) fn record_of(state: &Loaded) -> Result<Option<&Record>, String> {
    match state {
        Err(e) => Err(e.why.clone()),
        Ok(s) => match &s.record {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some(r)),
            Some(Err(e)) => Err(e.clone()),
        },
    }
}

/// The gate for one PR at its head (`auditloop status` calls the same [`pull_gate`]).
pub(crate) fn gate_for(
    ctx: &Ctx,
    pull: &Pull,
    state: &Loaded,
    checks: &[CheckObservation],
) -> Option<GateResult> {
    let config = ctx.config.as_ref().ok()?;
    let decisions = ctx.delivery_cache.decisions();
    ctx.memory.gate_evaluated();
    Some(pull_gate(&PullGate {
        config,
        operator_min: ctx.operator.min_assurance,
        repo: &ctx.repo,
        head: &pull.head_sha,
        body: &pull.body,
        record: record_of(state),
        checks,
        trust: ctx.operator.trust.as_deref(),
        certified_report: state
            .as_ref()
            .ok()
            .and_then(|s| s.certified_report.as_deref()),
        decisions: decisions.as_ref(),
    }))
}

/// Condition 7 holds only while a cited `D-<n>` file exists: the decision records are
/// read (once a delivery) for a record whose latest run cites one, and for no other.
pub(crate) async fn read_decisions_if_cited(ctx: &Ctx, state: &Loaded) -> Result<(), GitHubError> {
    let cites = matches!(state, Ok(s) if matches!(&s.record, Some(Ok(r)) if crate::engine::gate::cites_decision(r)));
    if cites && ctx.delivery_cache.decisions().is_none() {
        let found = crate::app::reads::decision_records::read(ctx).await?;
        ctx.delivery_cache.saw_decisions(found);
    }
    Ok(())
}

/// The PR whose views are rebuilt, with the records they are rebuilt from.
pub(crate) struct Target<'a> {
    pub(crate) pull: &'a Pull,
    pub(crate) state: &'a Loaded,
    /// The records commit the views are computed from (the check run's `external_id`).
    pub(crate) records_commit: Option<&'a CommitSha>,
    /// The check runs on the PR's head, when the caller listed them already.
    pub(crate) runs: Option<&'a [CheckRunInfo]>,
    /// `state` was checked against the commit our run names by the write that made it.
    pub(crate) checked: bool,
}

/// What publishing reads before it decides what to show: the head's check runs, the open
/// PRs that share the head, the body read just now, and the records checked against the
/// commit our run names. Nothing of it is written.
pub(crate) struct Observed<'a> {
    pub(crate) pull: &'a Pull,
    /// The records, checked against `named` (damaged when the branch went back).
    pub(crate) state: Loaded,
    /// The records commit the views are computed from (the check run's `external_id`).
    pub(crate) records_commit: Option<CommitSha>,
    /// The lineage check found the branch rewound or edited.
    pub(crate) rewound: bool,
    pub(crate) runs: Vec<CheckRunInfo>,
    pub(crate) checks: Vec<CheckObservation>,
    /// Our run on the head, from the listing or from this process's memory.
    pub(crate) ours: Option<OurRun>,
    /// The records commit our newest run names.
    pub(crate) named: Option<CommitSha>,
    /// The summary our newest run shows (it may carry a dispatch's sent marker).
    pub(crate) published: Option<String>,
    /// The open PRs on the head, when they could change the conclusion.
    pub(crate) sharing: Option<Vec<Pull>>,
    /// The PR as read just before its body is patched.
    pub(crate) fresh: Option<Pull>,
    pub(crate) bot_slug: &'a str,
    pub(crate) check_name: String,
}

/// Whether a refresh rebuilds the PR body's managed sections (only ever when the PR has a
/// record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    Keep,
    Rebuild,
}

impl Body {
    pub(crate) fn rebuild_if(behind: bool) -> Self {
        if behind {
            Self::Rebuild
        } else {
            Self::Keep
        }
    }
}

/// Reads what the views of `target` are computed from; `None` when a newer view stands
/// (our run or the body shows newer records), so this one is not published.
///
/// The calls it makes are only those the answer needs: the checks on the head (unless the
/// caller listed them); the open PRs on the head only when they could change the
/// conclusion (that listing then also serves as the body read); the body, read just before
/// it is patched (docs/reference.md#the-pr-body).
pub(crate) async fn observe<'a>(
    ctx: &'a Ctx,
    target: Target<'a>,
    body: Body,
) -> Result<Option<Observed<'a>>, GitHubError> {
    let Target {
        pull,
        state,
        records_commit,
        runs: listed,
        checked: already_checked,
    } = target;
    let bot_slug = ctx.bot_slug().await?;
    let check_name = ctx.settings().check_name.clone();
    // Our run on the head as this process last made it, for when the listing does not show
    // it yet, so that an update finds it and a redelivered create finds the run it made.
    let known_run = ctx.memory.run_of(&ctx.repo, &pull.head_sha, &check_name);
    let reads = HeadReads {
        listed,
        sharing: sharing_matters(ctx, state),
        body: body == Body::Rebuild && record_of(state).ok().flatten().is_some(),
    };
    let (runs, sharing, fresh) = read_head(ctx, pull, reads).await?;
    let ours = our_run(&runs, &check_name, bot_slug).or(known_run);
    let named = our_named_commit(&runs, &check_name, bot_slug);
    let (checked, lineage) = if already_checked {
        (state.clone(), Lineage::Current)
    } else {
        verified(ctx, pull.number, state.clone(), named.as_ref()).await?
    };
    read_decisions_if_cited(ctx, &checked).await?;
    if newer_stands(
        ctx,
        pull,
        (&checked, &lineage),
        fresh.as_ref(),
        named.as_ref(),
    )
    .await?
    {
        return Ok(None);
    }
    let checks = observations(&runs, &check_name);
    let published = published_summary(&runs, &check_name, bot_slug);
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

/// Whether the open PRs on the head could change the conclusion: they can only make a
/// passing (or waiting) gate worse, never a failing one better, and only a record that
/// may pass ([`may_pass`]) has such a gate. Told from the record, before the gate is
/// evaluated (once, after everything the change decides).
fn sharing_matters(ctx: &Ctx, state: &Loaded) -> bool {
    let Ok(config) = &ctx.config else {
        return false;
    };
    match record_of(state) {
        Ok(record) => may_pass(record, config),
        Err(_) => false,
    }
}

/// What [`read_head`] reads besides the check runs.
struct HeadReads<'a> {
    /// The check runs, when the caller listed them already.
    listed: Option<&'a [CheckRunInfo]>,
    /// The open PRs on the head.
    sharing: bool,
    /// The PR's body, to patch it.
    body: bool,
}

/// The check runs on the head, the open PRs on it and the PR read just now, read at the
/// same time. The checks are listed every time, never taken from memory: the lineage
/// check needs the records commit our run shows on GitHub now, whichever replica made it,
/// and the forged-gate warning needs every run of our name. The listing of the PRs on the
/// head also serves as the body read.
async fn read_head(
    ctx: &Ctx,
    pull: &Pull,
    reads: HeadReads<'_>,
) -> Result<(Vec<CheckRunInfo>, Option<Vec<Pull>>, Option<Pull>), GitHubError> {
    let head = &pull.head_sha;
    let runs_read = async {
        match reads.listed {
            Some(runs) => Ok(runs.to_vec()),
            None => {
                ctx.delivery_cache
                    .head_runs(&ctx.api, &ctx.repo, head)
                    .await
            }
        }
    };
    let pulls = async {
        let early = ctx.delivery_cache.take_sharing(head);
        let sharing = match (reads.sharing, early) {
            (false, _) => None,
            (true, Some(listed)) => Some(listed),
            (true, None) => Some(rest::open_pulls_for_commit(&ctx.api, &ctx.repo, head).await?),
        };
        let listed = sharing
            .as_ref()
            .and_then(|s| s.iter().find(|p| p.number == pull.number).cloned());
        // A records commit just made read the body back: that is the read before the patch.
        let after_commit = ctx
            .delivery_cache
            .take_body_after_commit(pull.number, BODY_FRESH);
        let fresh = match (reads.body, listed, after_commit) {
            (false, _, _) => None,
            (true, Some(p), _) => Some(p),
            (true, None, Some(body)) => Some(Pull {
                body,
                ..pull.clone()
            }),
            (true, None, None) => Some(rest::get_pull(&ctx.api, &ctx.repo, pull.number).await?),
        };
        Ok::<_, GitHubError>((sharing, fresh))
    };
    let (runs, (sharing, fresh)) = futures::try_join!(runs_read, pulls)?;
    Ok((runs, sharing, fresh))
}

/// How long after its records commit was sent a body read back with it stands for the
/// read just before the patch (see `DeliveryCache::take_body_after_commit`): a few of GitHub's
/// round trips.
const BODY_FRESH: std::time::Duration = std::time::Duration::from_millis(1500);

/// Whether a view computed from newer records than `checked` stands, so this one is not
/// published: our run names a newer commit, or the body read just now shows one (another
/// delivery or replica finished first; that view stands, check run and all). `named` is
/// free: ours extends it.
async fn newer_stands(
    ctx: &Ctx,
    pull: &Pull,
    (checked, lineage): (&Loaded, &Lineage),
    fresh: Option<&Pull>,
    named: Option<&CommitSha>,
) -> Result<bool, GitHubError> {
    if *lineage == Lineage::Stale {
        tracing::info!(
            pr = pull.number.0,
            "a newer view stands; this one is not published"
        );
        return Ok(true);
    }
    if let (Some(fresh), Ok(s)) = (fresh, checked) {
        if overtaken(ctx, s, &fresh.body, named).await? {
            tracing::info!(
                pr = pull.number.0,
                "a newer body stands; this view is not published"
            );
            return Ok(true);
        }
    }
    Ok(false)
}

/// The summary our newest run on the head shows (it may carry a dispatch's sent marker).
fn published_summary(runs: &[CheckRunInfo], check_name: &str, bot_slug: &str) -> Option<String> {
    runs.iter()
        .find(|r| {
            r.name == check_name && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(bot_slug)
        })
        .and_then(|r| r.output.as_ref())
        .and_then(|o| o.summary.clone())
}

/// The records of the other open PRs on the head, whose gates the check run combines with
/// this PR's (it passes only when every one of them passes).
pub(crate) async fn others<'s>(
    ctx: &Ctx,
    own: Option<&GateResult>,
    seen: &'s Observed<'_>,
) -> Result<Vec<(&'s Pull, Loaded)>, GitHubError> {
    let pull = seen.pull;
    if own.is_none() {
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

/// Whether `body` shows a view computed from a records commit newer than `state`'s, one
/// the records branch still holds: then this view is not published over it.
///
/// No call is made when the body has no stamp, or its stamp names our commit, one of its
/// parents, or `known` (a commit the caller found ours to extend, such as the one our
/// check run names), or shows our record with no more history events than ours has (a
/// record's history only grows, so that view is not newer). Otherwise GitHub is asked (`lineage::newer_on_branch`), so a stamp a
/// body editor wrote counts only when it names a real, newer commit of the branch; the
/// delivery that wrote that commit publishes the views computed from it. Anything else is
/// overwritten: a stamp is no evidence of damage, since anyone who can edit the body can
/// write one (damage is judged from our check run's `external_id`, which only the App
/// writes).
pub(crate) async fn overtaken(
    ctx: &Ctx,
    state: &crate::app::reads::state::State,
    body: &str,
    known: Option<&CommitSha>,
) -> Result<bool, GitHubError> {
    let (Some(stamp), Some(ours)) = (crate::engine::views::body_stamp(body), &state.commit) else {
        return Ok(false);
    };
    let commit = &stamp.commit;
    if commit == ours || state.parents.contains(commit) || known == Some(commit) {
        return Ok(false);
    }
    if let Some(Ok(record)) = &state.record {
        if stamp.record == record.id && stamp.events <= record.history.len() {
            return Ok(false);
        }
    }
    crate::app::reads::lineage::newer_on_branch(ctx, ours, commit).await
}
