//! `/audit …` comments: parse, check who may, decide on the latest records, commit, answer.

use crate::app::context::Ctx;
use crate::app::exec::{self, Decision};
use crate::app::reply::{self, Refused};
use crate::app::store::{self, Applying, Stop};
use crate::app::views::{self, RunMode};
use crate::app::AuditApp;
use crate::commands::{help_table, parse_comment, ParsedCommand};
use crate::engine::policy::{
    maintainer_self_approval_refused, required_role, Permission, Role, RoleThresholds,
};
use crate::engine::views::reply::status;
use crate::events::{CommentAction, IssueCommentEvent};
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{Login, PrNumber};
use crate::server::{Handled, HandlerError};

pub async fn handle(
    app: &AuditApp,
    ctx: &Ctx,
    e: &IssueCommentEvent,
) -> Result<Handled, HandlerError> {
    if e.action != CommentAction::Created || e.issue.pull_request.is_none() {
        return Ok(Handled::Ignored);
    }
    let number = e.issue.number;
    let command = match parse_comment(e.comment.body.as_deref().unwrap_or_default()) {
        Ok(None) => return Ok(Handled::Ignored),
        Ok(Some(c)) => c,
        Err(err) => {
            reply::refuse(ctx, number, &Refused::new(err.what(), err.fix())).await?;
            return Ok(Handled::Done);
        }
    };
    let Ok(actor) = Login::new(e.comment.user.login.clone()) else {
        return Ok(Handled::Ignored);
    };
    match run(app, ctx, e, &command, &actor).await? {
        Ok(Answered::Done) => reply::carried_out(ctx, e.comment.id).await?,
        Ok(Answered::Reacted) => {}
        Err(why) => reply::refuse(ctx, number, &why).await?,
    }
    Ok(Handled::Done)
}

/// A command carried out: the +1 reaction is already given, or still to give.
enum Answered {
    Reacted,
    Done,
}

/// `Ok(Err(_))` is the user's mistake, answered on the PR; `Err(_)` is GitHub failing.
async fn run(
    app: &AuditApp,
    ctx: &Ctx,
    e: &IssueCommentEvent,
    command: &ParsedCommand,
    actor: &Login,
) -> Result<Result<Answered, Refused>, GitHubError> {
    let number = e.issue.number;
    if let ParsedCommand::Help = command {
        let text = reply::with_marker(ctx, &format!("auditloop: help\n\n{}", help_table()));
        reply::answer_once(ctx, number, e.comment.id, &text).await?;
        return Ok(Ok(Answered::Reacted));
    }
    if !command.is_read_only() {
        match &ctx.config {
            Err(err) => {
                return Ok(Err(Refused::new(
                    format!("the repository configuration is invalid: {err}"),
                    "fix .github/auditloop.yml on the default branch; `/audit status` and `/audit help` still work",
                )))
            }
            Ok(c) if !c.enabled() => {
                return Ok(Err(Refused::new(
                    "work-unit audit is disabled for this repository (work_unit_audit: disabled)",
                    "set work_unit_audit: enabled in .github/auditloop.yml on the default branch",
                )))
            }
            Ok(_) => {}
        }
    }
    let pull = ctx.seen.pull(&ctx.api, &ctx.repo, number).await?;
    if !pull.open && !command.is_read_only() {
        return Ok(Err(Refused::new(
            "PR is closed",
            "reopen the pull request, or run the command on an open one",
        )));
    }
    match command {
        ParsedCommand::Status => {
            let state = store::load(ctx, PrNumber(number), None).await?;
            let record = match &state {
                Ok(s) => s.record.as_ref().and_then(|r| r.as_ref().ok()),
                Err(_) => None,
            };
            let gate = views::gate_for(ctx, app.operator_min, &pull, &state, &[]);
            let text = match gate {
                Some(g) => status(record, &g, &ctx.view(), ctx.delivery.as_str_lossy()),
                None => reply::with_marker(ctx, "auditloop: status\n\nThe gate cannot be evaluated: the repository configuration is invalid or the head is unknown."),
            };
            reply::answer_once(ctx, number, e.comment.id, &text).await?;
            return Ok(Ok(Answered::Reacted));
        }
        ParsedCommand::Gate => {
            let state = store::load(ctx, PrNumber(number), None).await?;
            let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
            let target = views::Target {
                pull: &pull,
                state: &state,
                records_commit: commit.as_ref(),
            };
            views::refresh(app, ctx, target, RunMode::Update, false).await?;
            return Ok(Ok(Answered::Done));
        }
        _ => {}
    }
    if let Err(why) = authorize(ctx, command, actor, &pull).await? {
        return Ok(Err(why));
    }
    let decision = match exec::prepare(app, ctx, command, actor, &pull, e).await? {
        Ok(d) => d,
        Err(why) => return Ok(Err(why)),
    };
    commit(app, ctx, &pull, decision, e.comment.id).await
}

/// Checks the commenter's own permission through the API (never `author_association`).
async fn authorize(
    ctx: &Ctx,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
) -> Result<Result<(), Refused>, GitHubError> {
    let Ok(config) = &ctx.config else {
        return Ok(Ok(()));
    };
    let kind = command.name();
    let above_default =
        matches!(command, ParsedCommand::New { budget: Some(b), .. } if *b > config.audit_budget);
    let role = required_role(kind, above_default);
    let is_author = pull.author.eq_ignore_ascii_case(actor.as_str());
    if maintainer_self_approval_refused(kind, is_author, config.allow_self_approval)
        || (role == Role::Maintainer && is_author && !config.allow_self_approval)
    {
        return Ok(Err(Refused::new(
            format!(
                "the pull request's author may not use `/audit {kind}` on their own pull request"
            ),
            "ask another maintainer, or set allow_self_approval: true in .github/auditloop.yml",
        )));
    }
    if role == Role::Anyone {
        return Ok(Ok(()));
    }
    if let ParsedCommand::Report { payload, .. } = command {
        // A listed auditor may report; so may anyone whose report carries a receipt, which
        // is verified before anything is recorded.
        if config.permissions.is_listed_auditor(actor) || exec::carries_receipt(payload) {
            return Ok(Ok(()));
        }
    }
    let held = ctx
        .seen
        .permission(&ctx.api, &ctx.repo, actor.as_str())
        .await?;
    let thresholds = RoleThresholds {
        report: config.permissions.report,
        maintainer: config.permissions.maintainer,
    };
    if thresholds.allows(role, held) {
        return Ok(Ok(()));
    }
    let needed = match role {
        Role::Maintainer => thresholds.maintainer,
        _ => thresholds.report,
    };
    let held_word = if held == Permission::None {
        "no access".to_owned()
    } else {
        format!("`{}`", held.as_str())
    };
    Ok(Err(Refused::new(
        format!("`/audit {kind}` needs `{}` permission on {}; {actor} has {held_word}", needed.as_str(), ctx.repo),
        "ask someone with that permission to run it, or have an admin adjust `permissions` in .github/auditloop.yml",
    )))
}

async fn commit(
    app: &AuditApp,
    ctx: &Ctx,
    pull: &Pull,
    decision: Decision,
    comment: u64,
) -> Result<Result<Answered, Refused>, GitHubError> {
    let pr = PrNumber(pull.number);
    let outcome = store::apply(
        ctx,
        pr,
        decision.named.as_ref(),
        &decision.message,
        |state| (decision.decide)(state),
    )
    .await?;
    let (state, commit) = match outcome {
        Applying::Done { state, commit } => (*state, commit),
        Applying::Stopped(Stop::Refused(why)) => return Ok(Err(why)),
        Applying::Stopped(Stop::Damaged(why)) => {
            return Ok(Err(Refused::new(
                format!("the records branch is damaged: {why}"),
                "restore the records branch from its last good commit; the audit-gate check fails until then",
            )))
        }
        Applying::Stopped(Stop::AlreadyApplied) => {
            let state = store::load(ctx, pr, None).await?;
            let commit = state.as_ref().ok().and_then(|s| s.commit.clone());
            match state {
                Ok(s) => (s, commit),
                Err(why) => return Ok(Err(Refused::new(format!("the records branch is damaged: {why}"), "restore it"))),
            }
        }
    };
    let mode = if decision.new_run {
        RunMode::Create
    } else {
        RunMode::Update
    };
    // The views and the reaction are independent once the change is committed.
    let state = Ok(state);
    futures::try_join!(
        views::refresh(
            app,
            ctx,
            views::Target {
                pull,
                state: &state,
                records_commit: commit.as_ref()
            },
            mode,
            true
        ),
        reply::carried_out(ctx, comment),
    )?;
    Ok(Ok(Answered::Reacted))
}
