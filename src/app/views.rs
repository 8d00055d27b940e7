//! Rebuilding the views from the records: the PR-body sections and the check run.

use serde_json::{json, Value};

use crate::app::context::Ctx;
use crate::app::memory::OurRun;
use crate::app::store::State;
use crate::app::AuditApp;
use crate::engine::closing::closing_issues;
use crate::engine::config::Assurance;
use crate::engine::gate::{
    combine, evaluate, CheckObservation, CheckStatus, Conclusion, GateInput, GateResult,
};
use crate::engine::record::Record;
use crate::engine::views::check_run::{check_run, disabled, invalid_config, records_unavailable};
use crate::engine::views::{
    annotation_batches, sections, splice, Annotation, BodyStatus, CheckRunView, SpliceOutcome,
};
use crate::github::rest::{self, CheckRunInfo, Pull};
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};

/// Whether the check run is created anew (new head, accepted report, re-requested) or the
/// current one updated (GitHub appends annotations on every update, so updates carry none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    Create,
    Update,
}

pub fn observations(runs: &[CheckRunInfo], own: &str) -> Vec<CheckObservation> {
    runs.iter()
        .filter(|r| r.name != own)
        .map(|r| CheckObservation {
            name: r.name.clone(),
            status: match r.status.as_str() {
                "queued" | "requested" | "waiting" | "pending" => CheckStatus::Queued,
                "in_progress" => CheckStatus::InProgress,
                _ => CheckStatus::Completed,
            },
            conclusion: r.conclusion.clone(),
        })
        .collect()
}

fn record_of(state: &Result<State, String>) -> Result<Option<&Record>, String> {
    match state {
        Err(e) => Err(e.clone()),
        Ok(s) => match &s.record {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some(r)),
            Some(Err(e)) => Err(e.clone()),
        },
    }
}

/// The gate for one PR at its head.
pub fn gate_for(
    ctx: &Ctx,
    operator_min: Assurance,
    pull: &Pull,
    state: &Result<State, String>,
    checks: &[CheckObservation],
) -> Option<GateResult> {
    let config = ctx.config.as_ref().ok()?;
    let head = CommitSha::new(pull.head_sha.clone()).ok()?;
    let closing = closing_issues(&pull.body, &ctx.repo);
    let records = record_of(state).map(|r| r.into_iter().collect::<Vec<_>>());
    Some(evaluate(&GateInput {
        config,
        operator_min,
        head: &head,
        records,
        closing_issues: &closing,
        checks,
    }))
}

/// Splices the sections into the PR's current body; patches only when it changed.
pub async fn refresh_body(
    ctx: &Ctx,
    number: u64,
    record: &Record,
) -> Result<BodyStatus, GitHubError> {
    let fresh = rest::get_pull(&ctx.api, &ctx.repo, number).await?;
    let (status, patch) = spliced(ctx, &fresh.body, record);
    if let Some(body) = patch {
        rest::set_pull_body(&ctx.api, &ctx.repo, number, &body).await?;
    }
    Ok(status)
}

/// What the body becomes with the record's sections, and the new body when it changed.
fn spliced(ctx: &Ctx, body: &str, record: &Record) -> (BodyStatus, Option<String>) {
    let view = ctx.view();
    let outcome = splice(
        body,
        &sections(Some(record), &view),
        &view.record_url(&record.id),
    );
    match outcome {
        SpliceOutcome::Unchanged { summarized } => (summary_status(summarized), None),
        SpliceOutcome::Updated { body, summarized } => (summary_status(summarized), Some(body)),
        SpliceOutcome::TooLong => (BodyStatus::TooLong, None),
    }
}

fn summary_status(summarized: bool) -> BodyStatus {
    if summarized {
        BodyStatus::Summarized
    } else {
        BodyStatus::Current
    }
}

/// The PR whose views are rebuilt, with the records they are rebuilt from.
pub struct Target<'a> {
    pub pull: &'a Pull,
    pub state: &'a Result<State, String>,
    /// The records commit the views are computed from (the check run's `external_id`).
    pub records_commit: Option<&'a CommitSha>,
}

/// Whether the gate reads other checks on the head (condition 8's evidence checks).
fn reads_checks(ctx: &Ctx) -> bool {
    ctx.config.as_ref().is_ok_and(|c| {
        !c.evidence.required_checks.is_empty()
            || c.evidence.archetype.is_some()
            || !c.evidence.gates.is_empty()
    })
}

/// Our newest `check_name` run among `runs`.
fn our_run(runs: &[CheckRunInfo], check_name: &str, bot_slug: &str) -> Option<OurRun> {
    runs.iter()
        .find(|r| {
            r.name == check_name && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(bot_slug)
        })
        .map(|r| OurRun {
            id: r.id,
            records: r.external_id.clone(),
        })
}

/// Re-evaluates the gate of `pull` and rebuilds its views. Other open PRs on the same head
/// are gated too: the check passes only when every one of them passes.
///
/// The calls it makes are only those the answer needs: the checks on the head when the
/// gate reads evidence checks, the branch is missing, or our run on the head is not known;
/// the open PRs on the head only when they could change the conclusion (that listing then
/// also serves as the body read); the body, read just before it is patched (CONTRACT §9);
/// then the body patch and the check run together.
pub async fn refresh(
    app: &AuditApp,
    ctx: &Ctx,
    target: Target<'_>,
    mode: RunMode,
    update_body: bool,
) -> Result<(), GitHubError> {
    let Target {
        pull,
        state,
        records_commit,
    } = target;
    let operator_min = app.operator_min;
    let bot_slug = app.bot_slug(ctx).await?;
    let check_name = ctx.settings().check_name.clone();
    let record = record_of(state).ok().flatten();
    let head = pull.head_sha.as_str();
    let branch_absent = matches!(state, Ok(s) if s.commit.is_none());
    // Our run on the head as this process last made it; when unknown (another head, a
    // restart) the listing says, so that an update finds it and a redelivered create
    // finds the run it made before.
    let known_run = ctx.memory.run_of(&ctx.repo, head, &check_name);
    let with_checks = reads_checks(ctx);
    let need_runs = with_checks || branch_absent || known_run.is_none();
    // Without evidence checks the PR's own gate is known now; the other PRs on its head
    // can only make a passing (or waiting) gate worse, never a failing one better.
    let early = (!with_checks).then(|| gate_for(ctx, operator_min, pull, state, &[]));
    let need_sharing = match &early {
        Some(gate) => gate
            .as_ref()
            .is_some_and(|g| g.conclusion != Conclusion::Failure),
        None => true,
    };
    let wants_body = update_body && record.is_some();
    let runs = async {
        match need_runs {
            true => rest::check_runs(&ctx.api, &ctx.repo, head).await.map(Some),
            false => Ok(None),
        }
    };
    let pulls = async {
        let sharing = match need_sharing {
            true => Some(rest::open_pulls_for_commit(&ctx.api, &ctx.repo, head).await?),
            false => None,
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
    let (runs, (sharing, fresh)) = futures::try_join!(runs, pulls)?;
    let runs = runs.unwrap_or_default();
    let ours = our_run(&runs, &check_name, bot_slug).or(known_run);
    let checks = observations(&runs, &check_name);

    let mut gate = match early {
        Some(gate) => gate,
        None => gate_for(ctx, operator_min, pull, state, &checks),
    };
    let others: Vec<&Pull> = sharing
        .iter()
        .flatten()
        .filter(|p| p.number != pull.number)
        .collect();
    if let (Some(own), false) = (&gate, others.is_empty()) {
        let mut results = vec![(PrNumber(pull.number), own.clone())];
        for other in others {
            let other_state = crate::app::store::load(ctx, PrNumber(other.number), None).await?;
            if let Some(g) = gate_for(ctx, operator_min, other, &other_state, &checks) {
                results.push((PrNumber(other.number), g));
            }
        }
        gate = Some(combine(&results));
    }
    let (body_status, new_body) = match (&fresh, record) {
        (Some(fresh), Some(r)) => spliced(ctx, &fresh.body, r),
        _ => (BodyStatus::Current, None),
    };

    // A branch that is gone while our check run names its last commit was lost, not never
    // made: condition 1 fails saying so, and the run keeps naming that commit, from which
    // the next write recreates the branch.
    let lost = match branch_absent {
        true => crate::app::store::named_records_commit(&runs, &check_name, Some(bot_slug)),
        false => None,
    };
    let records_commit = records_commit.or(lost.as_ref());
    let view = match (&ctx.config, &gate, record_of(state)) {
        (Err(e), _, _) => invalid_config(&e.to_string(), e.line.map(|l| l as u64)),
        (Ok(c), _, _) if !c.enabled() => disabled(),
        (Ok(_), _, _) if lost.is_some() => records_unavailable(&format!(
            "the records branch `{}` is missing; it was last at {}, where the next command recreates it",
            ctx.records_branch(),
            lost.as_ref().map(CommitSha::as_str).unwrap_or_default()
        )),
        (Ok(_), Some(g), Ok(record)) => check_run(g, record, &ctx.view(), body_status),
        (Ok(_), Some(_), Err(why)) => records_unavailable(&why),
        (Ok(_), None, _) => records_unavailable("the head commit is not a full SHA"),
    };
    let run = Publish {
        check_name: &check_name,
        head,
        ours,
        records_commit,
        mode,
    };
    let body = async {
        match &new_body {
            Some(b) => rest::set_pull_body(&ctx.api, &ctx.repo, pull.number, b).await,
            None => Ok(()),
        }
    };
    futures::try_join!(body, publish(ctx, run, &view))?;
    Ok(())
}

fn annotation_json(a: &Annotation) -> Value {
    json!({
        "path": a.path, "start_line": a.start_line, "end_line": a.end_line,
        "annotation_level": a.level.as_str(), "title": a.title, "message": a.message,
    })
}

/// Where a check-run view goes: `check_name` on `head`, created, or updating our run
/// `ours`.
pub struct Publish<'a> {
    pub check_name: &'a str,
    pub head: &'a str,
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
    let mut body = json!({
        "name": check_name,
        "head_sha": head,
        "output": { "title": view.title, "summary": view.summary, "text": view.text },
    });
    if let Some(commit) = records_commit {
        body["external_id"] = json!(commit.as_str());
    }
    if view.conclusion == Conclusion::InProgress {
        body["status"] = json!("in_progress");
    } else {
        body["status"] = json!("completed");
        body["conclusion"] = json!(view.conclusion.as_str());
        body["actions"] = json!([{ "label": "Re-run gate", "description": "Evaluate the audit gate again", "identifier": "rerun" }]);
    }
    // A run already made from this very records commit is this view: a create whose
    // answer was lost, then redelivered, must not leave a second run on the head.
    let same_records = |r: &OurRun| r.records.as_deref() == records_commit.map(CommitSha::as_str);
    let mode = match (mode, &ours) {
        (RunMode::Create, Some(r)) if same_records(r) => RunMode::Update,
        _ => mode,
    };
    let remember = |id: u64| {
        let run = OurRun {
            id,
            records: records_commit.map(|c| c.as_str().to_owned()),
        };
        ctx.memory.remember_run(&ctx.repo, head, check_name, run);
    };
    match (mode, ours.map(|r| r.id)) {
        (RunMode::Update, Some(id)) => {
            // The update route takes no head_sha: a run stays on its commit.
            if let Some(obj) = body.as_object_mut() {
                obj.remove("head_sha");
            }
            rest::update_check_run(&ctx.api, &ctx.repo, id, &body).await?;
            remember(id);
        }
        _ => {
            let mut batches = annotation_batches(&view.annotations);
            if let Some(first) = batches.next() {
                body["output"]["annotations"] =
                    Value::Array(first.iter().map(annotation_json).collect());
            }
            let id = rest::create_check_run(&ctx.api, &ctx.repo, &body).await?;
            remember(id);
            for batch in batches {
                let more = json!({ "output": { "title": view.title, "summary": view.summary,
                    "annotations": batch.iter().map(annotation_json).collect::<Vec<_>>() } });
                rest::update_check_run(&ctx.api, &ctx.repo, id, &more).await?;
            }
        }
    }
    Ok(())
}
