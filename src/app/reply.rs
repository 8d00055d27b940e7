//! Answers on the PR: a `+1` reaction when a command was carried out, or one reply. A reply
//! ends with the delivery marker and is never posted twice for one delivery.

use crate::app::context::Ctx;
use crate::engine::views::reply::{delivery_marker, refused};
use crate::github::rest;
use crate::github::GitHubError;

/// What was wrong and how to put it right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub what: String,
    pub fix: String,
}

impl Refused {
    pub fn new(what: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            fix: fix.into(),
        }
    }
}

impl From<crate::engine::transition::Refusal> for Refused {
    fn from(r: crate::engine::transition::Refusal) -> Self {
        Refused {
            what: format!("{} ({})", r, r.rule()),
            fix: r.fix(),
        }
    }
}

/// Posts `body` unless a reply for this delivery is already there (a redelivery).
pub async fn post_once(ctx: &Ctx, issue: u64, body: &str) -> Result<(), GitHubError> {
    let marker = delivery_marker(ctx.delivery.as_str_lossy());
    // GitHub redelivers for 3 days: a reply for this delivery can only be that recent.
    let since = ctx.now - chrono::Duration::days(3);
    let existing = rest::comments_since(&ctx.api, &ctx.repo, issue, since).await?;
    if existing.iter().any(|(_, b)| b.contains(&marker)) {
        return Ok(());
    }
    rest::create_comment(&ctx.api, &ctx.repo, issue, body).await?;
    Ok(())
}

/// A command answered by a reply (`status`, `help`): the +1 first, then the reply. A new
/// +1 means no earlier attempt of this delivery got as far as the reply, so there is no
/// need to look for one; a +1 already there means there may be one.
pub async fn answer_once(
    ctx: &Ctx,
    issue: u64,
    comment: u64,
    body: &str,
) -> Result<(), GitHubError> {
    if rest::react_is_new(&ctx.api, &ctx.repo, comment, "+1").await? {
        rest::create_comment(&ctx.api, &ctx.repo, issue, body).await?;
        return Ok(());
    }
    post_once(ctx, issue, body).await
}

pub async fn refuse(ctx: &Ctx, issue: u64, why: &Refused) -> Result<(), GitHubError> {
    post_once(
        ctx,
        issue,
        &refused(&why.what, &why.fix, ctx.delivery.as_str_lossy()),
    )
    .await
}

/// A reply with the delivery marker at its end.
pub fn with_marker(ctx: &Ctx, text: &str) -> String {
    format!("{text}\n\n{}", delivery_marker(ctx.delivery.as_str_lossy()))
}

pub async fn carried_out(ctx: &Ctx, comment: u64) -> Result<(), GitHubError> {
    rest::react(&ctx.api, &ctx.repo, comment, "+1").await
}
