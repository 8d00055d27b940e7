//! `/audit …` comments: parse, check who may, decide on the latest records, commit, answer.

use crate::app::change::refresh;
use crate::app::claim::{self, Turn};
use crate::app::commit::authorize::authorize;
use crate::app::commit::decision;
use crate::app::commit::dispatch::WhenDue;
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::publish::reply::{self, Thanks};
use crate::app::reads::loading;
use crate::app::reads::observe::{self, Body, RunMode};
use crate::app::reads::runs;
use crate::commands::{help_table, Parsed, ParsedCommand};
use crate::delivery::{Handled, HandlerError};
use crate::engine::record::has_delivery;
use crate::engine::views::reply::{damaged_status, status_behind};
use crate::events::{CommentAction, IssueCommentEvent};
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{AuditId, Login, PrNumber};

use crate::app::change::carried_out::{commit, publish_carried_out};
/// A `/audit` comment on a PR: parsed, then a read-only command answered at once and one
/// that changes a record decided once (see [`decide_once`]).
pub(crate) async fn handle(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    parsed: Parsed,
) -> Result<Handled, HandlerError> {
    if e.action != CommentAction::Created || e.issue.pull_request.is_none() {
        return Ok(Handled::Ignored);
    }
    let number = PrNumber(e.issue.number);
    let parsed = match parsed {
        Ok(None) => return Ok(Handled::Ignored),
        Ok(Some(c)) => Ok(c),
        Err(err) => Err(Refused::new(err.what(), err.fix())),
    };
    let pull = ctx.delivery_cache.pull(&ctx.api, &ctx.repo, number).await?;
    let command = match parsed {
        Ok(c) => c,
        Err(why) => {
            reply::refuse(ctx, number, &pull.head_sha, &why).await?;
            return Ok(Handled::Done);
        }
    };
    let Ok(actor) = Login::new(e.comment.user.login.clone()) else {
        return Ok(Handled::Ignored);
    };
    if !command.changes_records() {
        let ran = Box::pin(run(ctx, e, &command, &actor, &pull)).await;
        return answer(ran, ctx, &pull, Answering::Directly).await;
    }
    Box::pin(decide_once(ctx, e, &command, &actor, &pull)).await
}

/// A command that changes a record, carried out once per delivery whichever replica or
/// redelivery handles it: the holder of its outcome claim decides; any other handling
/// finds what it did.
async fn decide_once(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
) -> Result<Handled, HandlerError> {
    let number = pull.number;
    let early = ctx.delivery_cache.take_early_claim();
    let named = match command {
        ParsedCommand::Adopt { audit_id } => Some(audit_id.clone()),
        _ => None,
    };
    // Writes that could not all go before the deadline are not begun: nothing is written,
    // and the delivery is queued, carried out when its turn comes.
    let branch = ctx
        .config
        .as_ref()
        .ok()
        .and_then(|c| ctx.delivery_cache.records_head(&c.records_branch))
        .map(|head| head.is_some());
    if early.is_none()
        && !ctx
            .api
            .book_writes(crate::app::early::claims::writes_to_book(branch))
    {
        return Err(HandlerError::Deferred {
            wait: std::time::Duration::ZERO,
        });
    }
    let effect = claim::outcome_effect(number);
    let turn = claim::decide_once(ctx, (&effect, &pull.head_sha), early, || {
        settled(ctx, number, named.as_ref())
    })
    .await?;
    match turn {
        Turn::Ours { name } => {
            let ran = Box::pin(run(ctx, e, command, actor, pull)).await;
            let ran = withdraw_filed(ctx, command, ran).await;
            let refusing = matches!(ran, Err(CommandFailure::Refused(_)));
            let answered = answer(ran, ctx, pull, Answering::AsHolder).await;
            // Done, or deferred to the queue, which carries it on in this process under
            // the same claim (ours: it points at our mark) or, were the process lost, after
            // a pause.
            if matches!(answered, Ok(_) | Err(HandlerError::Deferred { .. })) {
                return answered;
            }
            // A failure before the refusal was posted left nothing that must stay single,
            // so the claim is marked failed and the retry decides afresh in the next
            // generation. A refusal whose reply failed is looked for: posted after all, it
            // answers the delivery; shown absent, nobody saw it, and the claim is marked
            // failed too; when the look fails as well, the claim stays as it is and the
            // next handling takes it over after a pause.
            if refusing {
                match reply::replied_to_delivery(ctx, number).await {
                    Ok(true) => return Ok(Handled::Done),
                    Ok(false) => claim::failed(ctx, &name, &pull.head_sha).await,
                    Err(_) => {}
                }
            } else {
                claim::failed(ctx, &name, &pull.head_sha).await;
            }
            answered
        }
        Turn::Settled(done) => Box::pin(settled_answer(ctx, e, command, pull, done)).await,
    }
}

/// The answer to a delivery another handling decided: nothing more for a refusal; the
/// views and +1 made again for a command carried out.
async fn settled_answer(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    command: &ParsedCommand,
    pull: &Pull,
    done: Settled,
) -> Result<Handled, HandlerError> {
    match done {
        Settled::Refused => Ok(Handled::Done),
        Settled::Applied => {
            Box::pin(finish_applied(ctx, command, pull, Thanks::of(&e.comment))).await?;
            Ok(Handled::Done)
        }
    }
}

/// A `file` disposition refused in the end (its finding left the latest run after an
/// earlier attempt of this delivery opened its issue): the issue is closed, saying why, and
/// the refusal says so, so that no issue outlives the decision it served.
async fn withdraw_filed(
    ctx: &Ctx,
    command: &ParsedCommand,
    ran: Result<(), CommandFailure>,
) -> Result<(), CommandFailure> {
    let filing = matches!(
        command,
        ParsedCommand::Dispose {
            disposition: crate::engine::record::DispositionKind::File,
            ..
        }
    );
    let why = match ran {
        Err(CommandFailure::Refused(why)) if filing => why,
        other => return other,
    };
    match crate::app::commit::filing::withdraw(ctx, why.what.plain()).await? {
        Some(issue) => Err(Refused {
            what: crate::md!(
                "{}. The issue #{} an earlier attempt of this command opened was closed, saying why",
                why.what,
                issue.0
            ),
            fix: why.fix,
        }
        .into()),
        None => Err(why.into()),
    }
}

/// What another handling of this delivery did, when it is visible: its refusal (the only
/// reply a record-changing command posts) or its event in the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    Refused,
    Applied,
}

async fn settled(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Result<Option<Settled>, GitHubError> {
    // The holder may have written since this delivery read the branch.
    ctx.delivery_cache.forget_records();
    let (replied, loaded) = futures::try_join!(
        reply::replied_to_delivery(ctx, pr),
        loading::load(ctx, pr, named)
    )?;
    if replied {
        return Ok(Some(Settled::Refused));
    }
    let applied = loaded.as_ref().ok().is_some_and(|s| match &s.record {
        Some(Ok(record)) => has_delivery(record, &ctx.delivery),
        _ => false,
    });
    Ok(applied.then_some(Settled::Applied))
}

/// Another handling carried the command out but may not have lived to publish: the views
/// and the +1 are made again from the records (both are idempotent).
async fn finish_applied(
    ctx: &Ctx,
    command: &ParsedCommand,
    pull: &Pull,
    thanks: Thanks,
) -> Result<(), GitHubError> {
    // Damage, if the records show it now, is shown by the views.
    let state = loading::load(ctx, pull.number, None).await?;
    let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
    let mode = RunMode::create_if(matches!(command, ParsedCommand::Report { .. }));
    let target = observe::Target {
        pull,
        state: &state,
        records_commit: commit.as_ref(),
        runs: None,
        checked: false,
    };
    let dispatch = crate::app::commit::dispatch::triggered_by(command);
    publish_carried_out(ctx, target, mode, dispatch, thanks).await
}

/// Who answers a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answering {
    /// This handling holds the command's outcome claim: it alone answers the delivery.
    AsHolder,
    /// A command that changes no record: no claim is taken.
    Directly,
}

/// Turns how a command ended into the PR's answer: a refusal, or nothing more (a command
/// carried out gave its +1 with its views).
async fn answer(
    ran: Result<(), CommandFailure>,
    ctx: &Ctx,
    pull: &Pull,
    answering: Answering,
) -> Result<Handled, HandlerError> {
    let number = pull.number;
    match ran {
        Ok(()) => {}
        Err(CommandFailure::Refused(why)) if answering == Answering::AsHolder => {
            reply::refuse_as_holder(ctx, number, &why).await?;
        }
        Err(CommandFailure::Refused(why)) => {
            reply::refuse(ctx, number, &pull.head_sha, &why).await?;
        }
        Err(CommandFailure::GitHub(err)) => return Err(err.into()),
        Err(CommandFailure::Internal(why)) => {
            tracing::error!(repo = %ctx.repo, pr = number.0, why, "command failed inside the app; nothing was written");
            return Err(HandlerError::Internal(why));
        }
    }
    Ok(Handled::Done)
}

/// A refusal is the user's mistake, answered on the PR; the other failures are a 5xx.
async fn run(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
) -> Result<(), CommandFailure> {
    let number = pull.number;
    if let ParsedCommand::Help = command {
        let text = reply::with_marker(ctx, &format!("auditloop: help\n\n{}", help_table()));
        reply::answer_once(ctx, number, &pull.head_sha, e.comment.id, async {
            Ok(text)
        })
        .await?;
        return Ok(());
    }
    refuse_unless_writable(ctx, command, pull)?;
    match command {
        ParsedCommand::Status => {
            let text = status_reply(ctx, pull);
            Box::pin(reply::answer_once(
                ctx,
                number,
                &pull.head_sha,
                e.comment.id,
                text,
            ))
            .await?;
            return Ok(());
        }
        ParsedCommand::Gate => {
            // The +1 rides with the views (one write); a failure is a 5xx, retried.
            gate(ctx, pull, Thanks::of(&e.comment)).await?;
            return Ok(());
        }
        _ => {}
    }
    authorize(ctx, command, actor, pull).await?;
    let candidate = ctx.delivery_cache.candidate_with_pull(pull.number);
    let reads = report_reads(ctx, command, pull, candidate.as_ref()).await?;
    let decision = decision::for_command(ctx, command, actor, (pull, candidate, reads), e)?;
    let dispatch = crate::app::commit::dispatch::triggered_by(command);
    commit(ctx, pull, decision, Thanks::of(&e.comment), dispatch).await
}

/// What a report is judged on besides the records: who GitHub links to the pull request's
/// commits (most often brought by the first reads), and the required checks not yet
/// concluded `success` on the candidate (the head's runs, read with the first reads).
async fn report_reads(
    ctx: &Ctx,
    command: &ParsedCommand,
    pull: &Pull,
    candidate: Option<&crate::ids::Artifact>,
) -> Result<decision::ReportReads, GitHubError> {
    if !matches!(command, ParsedCommand::Report { .. }) {
        return Ok(decision::ReportReads::default());
    }
    let commits = ctx
        .delivery_cache
        .commit_identities(&ctx.api, &ctx.repo, pull.number);
    let awaited = async {
        let settings = ctx.settings();
        if settings.evidence.required_checks.is_empty() {
            return Ok(Vec::new());
        }
        let sha = candidate.map_or(&pull.head_sha, |c| c.sha());
        let runs = ctx
            .delivery_cache
            .head_runs(&ctx.api, &ctx.repo, sha)
            .await?;
        let checks = runs::observations(&runs, ctx.check_name());
        Ok(crate::engine::gate::evidence_awaited(settings, &checks))
    };
    let (commits, awaited) = futures::try_join!(commits, awaited)?;
    let versions = ctx.delivery_cache.ahead.versions();
    Ok(decision::ReportReads {
        commits,
        awaited,
        versions,
    })
}

/// Refuses a command that would write when the records may not be written: the
/// configuration is invalid or disabled, or the PR is closed.
fn refuse_unless_writable(
    ctx: &Ctx,
    command: &ParsedCommand,
    pull: &Pull,
) -> Result<(), CommandFailure> {
    if command.is_read_only() {
        return Ok(());
    }
    match &ctx.config {
        Err(err) => {
            return Err(Refused::new(
                crate::md!("the repository configuration is invalid: {}", err.to_md()),
                "fix `.github/auditloop.yml` on the default branch; `/audit status` and `/audit help` still work",
            ).into())
        }
        Ok(c) if !c.enabled() => {
            return Err(Refused::new(
                "work-unit audit is disabled for this repository (work_unit_audit: disabled)",
                "set `work_unit_audit: enabled` in `.github/auditloop.yml` on the default branch",
            ).into())
        }
        Ok(_) => {}
    }
    if !pull.open {
        return Err(Refused::new(
            "PR is closed",
            "reopen the pull request, or run the command on an open one",
        )
        .into());
    }
    Ok(())
}

/// `/audit gate`: the gate evaluated again on the records as they are, the views updated
/// and the command's +1 given with them.
async fn gate(ctx: &Ctx, pull: &Pull, thanks: Thanks) -> Result<(), GitHubError> {
    let state = loading::load(ctx, pull.number, None).await?;
    let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
    let target = observe::Target {
        pull,
        state: &state,
        records_commit: commit.as_ref(),
        runs: None,
        checked: false,
    };
    let after = refresh::RefreshExtras {
        dispatch: WhenDue::Hold,
        thanks: Some(thanks),
    };
    refresh::refresh_with(ctx, target, RunMode::Update, Body::Keep, after).await
}

/// `/audit status`: damaged records are named first, with how to repair them; then the
/// record and the gate conditions.
async fn status_reply(ctx: &Ctx, pull: &Pull) -> Result<String, GitHubError> {
    let (runs, loaded) = futures::try_join!(
        ctx.delivery_cache
            .head_runs(&ctx.api, &ctx.repo, &pull.head_sha),
        loading::load(ctx, pull.number, None),
    )?;
    let slug = ctx.bot_slug().await?;
    let check_name = ctx.check_name();
    let named = runs::our_named_commit(&runs, check_name, slug);
    let (state, _) = loading::verified(ctx, pull.number, loaded, named.as_ref()).await?;
    let damage = loading::damage_of(&state);
    let record = match &state {
        Ok(s) => s.record.as_ref().and_then(|r| r.as_ref().ok()),
        Err(_) => None,
    };
    let checks = runs::observations(&runs, check_name);
    let delivery = ctx.delivery.as_str_lossy();
    Ok(match (observe::gate_for(ctx, pull, &state, &checks), damage) {
        (Some(g), Some(damage)) => {
            let refused = loading::damaged(ctx, &damage);
            damaged_status(&damage.why, &refused.fix, &g, delivery)
        }
        (Some(g), None) => status_behind(record, &g, &ctx.view(), delivery, ctx.pr_ahead),
        (None, _) => reply::with_marker(ctx, "auditloop: status\n\nThe gate cannot be evaluated: the repository configuration is invalid or the head is unknown."),
    })
}
