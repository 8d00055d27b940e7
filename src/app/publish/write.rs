//! Rebuilding the views from the records, last step: a plan published (the forged-gate
//! warning, the PR body, the check run), and check runs created or updated.

use crate::app::context::Ctx;
use crate::app::memory::OurRun;
use crate::app::publish::plan::Plan;
use crate::app::publish::reply::{self, Thanks};
use crate::app::publish::views::{Observed, RunMode};
use crate::engine::gate::Conclusion;
use crate::engine::views::{annotation_batches, Annotation, CheckRunView};
use crate::github::rest::Pull;
use crate::github::rest::{self, CheckRunAction, CheckRunAnnotation, CheckRunBody, CheckRunOutput};
use crate::github::{body_and_reaction, GitHubError};
use crate::ids::{CheckRunId, CommitSha, NodeId};

/// Publishes `plan`: the forged-gate warning (once per head), then the PR body (with
/// `thanks`, the command's +1) and the check run together.
pub async fn publish_plan(
    ctx: &Ctx,
    seen: Observed<'_>,
    plan: Plan,
    thanks: Option<Thanks>,
) -> Result<(), GitHubError> {
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
    // The PR's id from the read just before the patch, or from the first reads.
    let node = seen.fresh.as_ref().and_then(|p| p.node_id.as_ref());
    // Boxed: both writes' futures are held beside the check run's.
    let body = Box::pin(body_and_thanks(
        ctx,
        pull,
        node.or(pull.node_id.as_ref()),
        &plan,
        thanks,
    ));
    futures::try_join!(body, publish(ctx, run, &plan.view))?;
    Ok(())
}

/// The body's update and the +1: one GraphQL call when both go and both ids are known,
/// otherwise each through REST.
async fn body_and_thanks(
    ctx: &Ctx,
    pull: &Pull,
    node: Option<&NodeId>,
    plan: &Plan,
    thanks: Option<Thanks>,
) -> Result<(), GitHubError> {
    let comment_node = thanks.as_ref().and_then(|t| t.node.as_ref());
    match (&plan.new_body, node, comment_node) {
        (Some(body), Some(pr), Some(comment)) => {
            body_and_reaction::set_body_and_react(&ctx.api, pr, body, comment).await
        }
        (body, _, _) => {
            let patch = async {
                match body {
                    Some(b) => rest::set_pull_body(&ctx.api, &ctx.repo, pull.number, b).await,
                    None => Ok(()),
                }
            };
            let react = async {
                match &thanks {
                    Some(t) => reply::carried_out(ctx, t.comment).await,
                    None => Ok(()),
                }
            };
            futures::try_join!(patch, react).map(drop)
        }
    }
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
        create(ctx, body, view, remember).await?;
    }
    Ok(())
}

/// Creates the check run with the first batch of annotations, remembers it, then adds
/// the other batches (GitHub takes a limited number per request).
async fn create(
    ctx: &Ctx,
    mut body: CheckRunBody<'_>,
    view: &CheckRunView,
    remember: impl FnOnce(CheckRunId),
) -> Result<(), GitHubError> {
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
    Ok(())
}
