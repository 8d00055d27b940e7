//! Rebuilding the views from the records, last step: a plan published (the forged-gate
//! warning, the PR body, the check run), and check runs created or updated.

use crate::app::context::memory::OurRun;
use crate::app::context::Ctx;
use crate::app::publish::plan::Plan;
use crate::app::publish::reply::{self, Thanks};
use crate::app::reads::observe::{Observed, RunMode};
use crate::engine::gate::Conclusion;
use crate::engine::views::{annotation_batches, Annotation, CheckRunView};
use crate::github::rest::Pull;
use crate::github::rest::{self, CheckRunAction, CheckRunAnnotation, CheckRunBody, CheckRunOutput};
use crate::github::views_mutation::{self, RunWrite, Threads, Views};
use crate::github::GitHubError;
use crate::ids::{CheckRunId, CommitSha, NodeId, PrNumber};
use serde_json::{json, Map, Value};

/// Publishes `plan`: the forged-gate warning (once per head), then the PR body (with
/// `thanks`, the command's +1) and the check run together.
pub(crate) async fn publish_plan(
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
        head_pull: pull.number,
        ours: seen.ours,
        records_commit: plan.records_commit.as_ref(),
        mode: plan.mode,
    };
    // The PR's id from the read just before the patch, or from the first reads.
    let node = seen.fresh.as_ref().and_then(|p| p.node_id.as_ref());
    let node = node.or(pull.node_id.as_ref());
    // The body, the +1 and the check run as one write when GitHub's ids for them are known.
    if let Some(repository) = ctx.delivery_cache.repository() {
        return Box::pin(in_one_write(ctx, (run, &repository), node, &plan, thanks)).await;
    }
    // Boxed: both writes' futures are held beside the check run's.
    let body = Box::pin(body_and_thanks(ctx, pull, node, &plan, thanks));
    futures::try_join!(body, publish(ctx, run, &plan.view))?;
    Ok(())
}

/// The PR body, the +1 and the check run in the views' one mutation. A part whose id is
/// not known goes through REST beside it (a run this process knows only by its number).
async fn in_one_write(
    ctx: &Ctx,
    (run, repository): (Publish<'_>, &NodeId),
    pull_node: Option<&NodeId>,
    plan: &Plan,
    thanks: Option<Thanks>,
) -> Result<(), GitHubError> {
    let view = &plan.view;
    let body = match (&plan.new_body, pull_node) {
        (Some(b), Some(n)) => Some((n, b.as_str())),
        _ => None,
    };
    let reaction = thanks.as_ref().and_then(|t| t.node.as_ref());
    let mut batches = annotation_batches(&view.annotations);
    let write = run_write(ctx, repository, (&run, view), batches.next());
    let by_rest = write.is_none();
    let views = Views {
        body,
        reaction,
        run: write,
        threads: threads_input(plan, pull_node),
    };
    // What the mutation cannot carry: the body or +1 without a GraphQL id, a run known by
    // its number only.
    let rest_body = async {
        match (&plan.new_body, body) {
            (Some(b), None) => rest::set_pull_body(&ctx.api, &ctx.repo, run.head_pull, b).await,
            _ => Ok(()),
        }
    };
    let rest_thanks = async {
        match (&thanks, reaction) {
            (Some(t), None) => reply::carried_out(ctx, t.comment).await,
            _ => Ok(()),
        }
    };
    let rest_run = async {
        if by_rest {
            publish(ctx, run.clone_for_rest(), view).await
        } else {
            Ok(())
        }
    };
    let one = async {
        if views.is_empty() {
            return Ok(None);
        }
        views_mutation::publish(&ctx.api, &views).await
    };
    let (written, (), (), ()) = futures::try_join!(one, rest_body, rest_thanks, rest_run)?;
    if let Some((id, node)) = written {
        remember(ctx, &run, id, Some(node));
        more_annotations(ctx, id, view, batches).await?;
    }
    Ok(())
}

/// Annotations past the first batch, one update each: GitHub appends each update's.
async fn more_annotations<'a>(
    ctx: &Ctx,
    id: CheckRunId,
    view: &CheckRunView,
    batches: impl Iterator<Item = &'a [Annotation]>,
) -> Result<(), GitHubError> {
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

/// The check run's part of the mutation: a create (with the first batch of annotations),
/// an update of our run by its GraphQL id, or `None` when our run is known by its number
/// only (it is updated through REST).
fn run_write(
    ctx: &Ctx,
    repository: &NodeId,
    (run, view): (&Publish<'_>, &CheckRunView),
    first: Option<&[Annotation]>,
) -> Option<RunWrite> {
    match (run_mode(run), run.ours.as_ref()) {
        (RunMode::Update, Some(ours)) => ours
            .node
            .as_ref()
            .map(|node| RunWrite::Update(update_input(repository, node, run, view, ctx))),
        _ => Some(RunWrite::Create(create_input(
            repository, run, view, first, ctx,
        ))),
    }
}

/// The mode a run is written in: a create from records a run of ours already shows is the
/// update of that run (a create whose answer was lost, then redelivered).
fn run_mode(run: &Publish<'_>) -> RunMode {
    match (run.mode, &run.ours) {
        (RunMode::Create, Some(r)) if r.records.as_ref() == run.records_commit => RunMode::Update,
        (mode, _) => mode,
    }
}

fn remember(ctx: &Ctx, run: &Publish<'_>, id: CheckRunId, node: Option<NodeId>) {
    let ours = OurRun {
        id,
        node,
        records: run.records_commit.cloned(),
    };
    ctx.memory
        .remember_run(&ctx.repo, run.head, run.check_name, ours);
}

/// What a check run's GraphQL input says of `view`, both for a create and an update.
fn run_fields(run: &Publish<'_>, view: &CheckRunView, ctx: &Ctx) -> Map<String, Value> {
    let finished = view.conclusion != Conclusion::InProgress;
    let mut f = Map::new();
    f.insert("name".into(), json!(run.check_name));
    if let Some(c) = run.records_commit {
        f.insert("externalId".into(), json!(c.as_str()));
    }
    if finished {
        f.insert("status".into(), json!("COMPLETED"));
        f.insert(
            "conclusion".into(),
            json!(view.conclusion.as_str().to_ascii_uppercase()),
        );
        f.insert("completedAt".into(), json!(ctx.now.to_rfc3339()));
        let actions: Vec<Value> = RERUN
            .iter()
            .map(|a| json!({"label": a.label, "description": a.description, "identifier": a.identifier}))
            .collect();
        f.insert("actions".into(), Value::Array(actions));
    } else {
        f.insert("status".into(), json!("IN_PROGRESS"));
    }
    f
}

fn output(view: &CheckRunView, annotations: Option<&[Annotation]>) -> Value {
    let mut out = json!({"title": view.title, "summary": view.summary, "text": view.text});
    if let Some(batch) = annotations {
        let list: Vec<Value> = batch
            .iter()
            .map(|a| {
                json!({
                    "path": a.path,
                    "location": {"startLine": a.start_line, "endLine": a.end_line},
                    "annotationLevel": a.level.as_str().to_ascii_uppercase(),
                    "title": a.title,
                    "message": a.message,
                })
            })
            .collect();
        out["annotations"] = Value::Array(list);
    }
    out
}

fn create_input(
    repository: &NodeId,
    run: &Publish<'_>,
    view: &CheckRunView,
    first: Option<&[Annotation]>,
    ctx: &Ctx,
) -> Value {
    let mut f = run_fields(run, view, ctx);
    f.insert("repositoryId".into(), json!(repository.as_str()));
    f.insert("headSha".into(), json!(run.head.as_str()));
    f.insert("output".into(), output(view, first));
    Value::Object(f)
}

fn update_input(
    repository: &NodeId,
    node: &NodeId,
    run: &Publish<'_>,
    view: &CheckRunView,
    ctx: &Ctx,
) -> Value {
    let mut f = run_fields(run, view, ctx);
    f.insert("repositoryId".into(), json!(repository.as_str()));
    f.insert("checkRunId".into(), json!(node.as_str()));
    // An update carries no annotations: GitHub appends them on every update.
    f.insert("output".into(), output(view, None));
    Value::Object(f)
}

/// The body's update and the +1 through REST, or as one GraphQL call when both go and
/// both ids are known (a publish without the repository's id).
async fn body_and_thanks(
    ctx: &Ctx,
    pull: &Pull,
    node: Option<&NodeId>,
    plan: &Plan,
    thanks: Option<Thanks>,
) -> Result<(), GitHubError> {
    let comment_node = thanks.as_ref().and_then(|t| t.node.as_ref());
    let threads = threads_input(plan, node);
    match (&plan.new_body, node, comment_node) {
        (Some(body), Some(pr), Some(comment)) => {
            let views = Views {
                body: Some((pr, body)),
                reaction: Some(comment),
                run: None,
                threads,
            };
            views_mutation::publish(&ctx.api, &views).await.map(drop)
        }
        (body, _, _) => {
            // Only GraphQL carries review threads: one mutation of their own here.
            let threads = async {
                if threads.is_empty() {
                    return Ok(());
                }
                let views = Views {
                    threads,
                    ..Views::default()
                };
                views_mutation::publish(&ctx.api, &views).await.map(drop)
            };
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
            futures::try_join!(patch, react, threads).map(drop)
        }
    }
}

/// The plan's threads as the views mutation sends them: a `COMMENT` review on the commit
/// the run audited (never approving or requesting changes), and the resolutions.
fn threads_input(plan: &Plan, pull: Option<&NodeId>) -> Threads {
    let drafts: Vec<Value> = plan
        .threads
        .post
        .iter()
        .map(|t| {
            let mut draft =
                json!({"path": t.path, "line": t.line, "side": "RIGHT", "body": t.body});
            if let Some(start) = t.start_line {
                draft["startLine"] = json!(start);
                draft["startSide"] = json!("RIGHT");
            }
            draft
        })
        .collect();
    let review = match (drafts.is_empty(), pull, &plan.review_commit) {
        (false, Some(pr), Some(commit)) => Some(json!({
            "pullRequestId": pr.as_str(),
            "commitOID": commit.as_str(),
            "event": "COMMENT",
            "threads": drafts,
        })),
        _ => None,
    };
    Threads {
        review,
        resolve: plan.threads.resolve.clone(),
        unresolve: plan.threads.unresolve.clone(),
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

/// Where a check-run view goes: `check_name` on `head` (of PR `head_pull`), created, or
/// updating our run `ours`.
pub(crate) struct Publish<'a> {
    pub(crate) check_name: &'a str,
    pub(crate) head: &'a CommitSha,
    pub(crate) head_pull: PrNumber,
    pub(crate) ours: Option<OurRun>,
    pub(crate) records_commit: Option<&'a CommitSha>,
    pub(crate) mode: RunMode,
}

impl Publish<'_> {
    fn clone_for_rest(&self) -> Publish<'_> {
        Publish {
            check_name: self.check_name,
            head: self.head,
            head_pull: self.head_pull,
            ours: self.ours.clone(),
            records_commit: self.records_commit,
            mode: self.mode,
        }
    }
}

/// Creates or updates the check run named `check_name` on `head`, and remembers its id.
pub(crate) async fn publish(
    ctx: &Ctx,
    run: Publish<'_>,
    view: &CheckRunView,
) -> Result<(), GitHubError> {
    let Publish {
        check_name,
        head,
        head_pull: _,
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
    let known_node = ours.as_ref().map(|r| (r.id, r.node.clone()));
    let remember = |id: CheckRunId| {
        let run = OurRun {
            id,
            node: known_node
                .as_ref()
                .filter(|(known, _)| *known == id)
                .and_then(|(_, node)| node.clone()),
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
    more_annotations(ctx, id, view, batches).await
}
