//! Who may run a command: the commenter's own permission read through the API (never
//! `author_association`), listed auditors, receipts, and the self-approval rule.

use crate::app::commit::decision;
use crate::app::context::failure::CommandFailure;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::commands::ParsedCommand;
use crate::engine::md::Md;
use crate::engine::policy::{
    maintainer_self_approval_refused, role_for, CommandName, Permission, Role, RoleThresholds,
};
use crate::engine::repo_config::RepoConfig;
use crate::github::rest::Pull;
use crate::ids::Login;

/// Checks that `actor` may run `command` on `pull`; the permission is read only when
/// nothing cheaper settles it.
pub(crate) async fn authorize(
    ctx: &Ctx,
    command: &ParsedCommand,
    actor: &Login,
    pull: &Pull,
) -> Result<(), CommandFailure> {
    let Ok(config) = &ctx.config else {
        return Ok(());
    };
    let kind = command.name();
    let role = role_for(kind, command.asked_budget(), config.audit_budget);
    let is_author = pull.author.eq_ignore_ascii_case(actor.as_str());
    if maintainer_self_approval_refused(kind, is_author, config.allow_self_approval)
        || (role == Role::Maintainer && is_author && !config.allow_self_approval)
    {
        return Err(Refused::new(
            crate::md!(
                "the pull request's author may not use {} on their own pull request",
                Md::code(&format!("/audit {kind}"))
            ),
            "ask another maintainer, or set `allow_self_approval: true` in `.github/auditloop.yml`",
        )
        .into());
    }
    if !asks_permission(config, command, actor) {
        return Ok(());
    }
    let held = ctx
        .delivery_cache
        .permission(&ctx.api, &ctx.repo, actor.as_str())
        .await?;
    let thresholds = RoleThresholds {
        report: config.permissions.report,
        maintainer: config.permissions.maintainer,
    };
    if thresholds.allows(role, held) {
        return Ok(());
    }
    let needed = match role {
        Role::Maintainer => thresholds.maintainer,
        _ => thresholds.report,
    };
    Err(lacks_permission(ctx, kind, actor, needed, held).into())
}

/// Whether the commenter's permission decides `command`: not for a command anyone may
/// run, nor for a report a listed auditor makes or a receipt carries (verified before
/// anything is recorded). The early reads ask for the permission on the same rule.
pub(crate) fn asks_permission(config: &RepoConfig, command: &ParsedCommand, actor: &Login) -> bool {
    if role_for(command.name(), command.asked_budget(), config.audit_budget) == Role::Anyone {
        return false;
    }
    match command {
        ParsedCommand::Report { payload, .. } => {
            !config.permissions.is_listed_auditor(actor) && !decision::carries_receipt(payload)
        }
        _ => true,
    }
}

/// The refusal of a command whose `actor` holds `held` where it needs `needed`.
fn lacks_permission(
    ctx: &Ctx,
    kind: CommandName,
    actor: &Login,
    needed: Permission,
    held: Permission,
) -> Refused {
    let held_word = if held == Permission::None {
        Md::lit("no access")
    } else {
        Md::code(held.as_str())
    };
    Refused::new(
        crate::md!(
            "{} needs {} permission on {}; {} has {}",
            Md::code(&format!("/audit {kind}")),
            Md::code(needed.as_str()),
            ctx.repo,
            actor,
            held_word
        ),
        "ask someone with that permission to run it, or have an admin adjust `permissions` in `.github/auditloop.yml`",
    )
}
