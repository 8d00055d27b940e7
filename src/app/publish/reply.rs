//! Answers on the PR: a `+1` reaction when a command was carried out, or one reply. A reply
//! ends with the delivery marker and is never posted twice for one delivery.

use std::future::Future;

use crate::app::claim;
use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::engine::views::reply::{delivery_marker, refused};
use crate::events::Comment;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{CommentId, CommitSha, NodeId, PrNumber};

/// Whether a reply for this delivery is on the issue already (a redelivery).
async fn replied(ctx: &Ctx, pr: PrNumber, marker: &str) -> Result<bool, GitHubError> {
    // A reply comes after what it answers: only comments since then are listed.
    let existing = rest::comments_since(&ctx.api, &ctx.repo, pr, ctx.replies_since).await?;
    Ok(existing.iter().any(|(_, b)| b.contains(marker)))
}

/// Whether a reply for this delivery is on the PR already.
pub(crate) async fn replied_to_delivery(ctx: &Ctx, pr: PrNumber) -> Result<bool, GitHubError> {
    replied(ctx, pr, &delivery_marker(ctx.delivery.as_str_lossy())).await
}

/// Posts `body` once: not when a reply for this delivery is already there (a redelivery),
/// and by one process only when several handle the delivery at once (see
/// [`crate::app::claim`]). `anchor`: a commit of the repository (the PR's head).
pub(crate) async fn post_once(
    ctx: &Ctx,
    pr: PrNumber,
    anchor: &CommitSha,
    body: &str,
) -> Result<(), GitHubError> {
    let marker = delivery_marker(ctx.delivery.as_str_lossy());
    claim::once(
        ctx,
        &reply_effect(pr),
        anchor,
        || replied(ctx, pr, &marker),
        || async {
            rest::create_comment(&ctx.api, &ctx.repo, pr, body).await?;
            Ok(())
        },
    )
    .await
}

/// A command answered by a reply (`status`, `help`): the +1, the reply's claim (which keeps
/// it single across replicas and redeliveries, see [`crate::app::claim`]) and the reply's
/// text are made together, then the reply is posted. A new +1 (201) means no earlier
/// attempt of this delivery got as far as the reply; a +1 already there (200) means one
/// may have posted it, so it is looked for first.
pub(crate) async fn answer_once(
    ctx: &Ctx,
    pr: PrNumber,
    anchor: &CommitSha,
    comment: CommentId,
    body: impl Future<Output = Result<String, GitHubError>>,
) -> Result<(), GitHubError> {
    let marker = delivery_marker(ctx.delivery.as_str_lossy());
    let effect = reply_effect(pr);
    let early = ctx.delivery_cache.take_early_reply();
    let reacted = early.and_then(|e| e.reaction_new);
    let ready = async {
        let (body, new) = futures::try_join!(body, async {
            match reacted {
                Some(new) => Ok(new),
                None => rest::react_is_new(&ctx.api, &ctx.repo, comment, "+1").await,
            }
        })?;
        Ok((body, !new))
    };
    let done = || replied(ctx, pr, &marker);
    let act = |body: String| async move {
        rest::create_comment(&ctx.api, &ctx.repo, pr, &body).await?;
        Ok(())
    };
    let on = (effect.as_str(), anchor);
    match early.and_then(|e| e.taken) {
        Some(taken) => claim::after_first(ctx, on, taken, ready.await, done, act).await,
        None => claim::claimed_while(ctx, on, ready, done, act).await,
    }
}

/// The effect a reply is claimed as: one per delivery and pull request.
pub(crate) fn reply_effect(pr: PrNumber) -> String {
    format!("reply-{}", pr.0)
}

pub(crate) async fn refuse(
    ctx: &Ctx,
    pr: PrNumber,
    anchor: &CommitSha,
    why: &Refused,
) -> Result<(), GitHubError> {
    post_once(
        ctx,
        pr,
        anchor,
        &refused(&why.what, &why.fix, ctx.delivery.as_str_lossy()),
    )
    .await
}

/// A refusal by the holder of the command's outcome claim (see
/// [`crate::app::claim::decide_once`]): it alone answers this delivery, and a holder that
/// took the claim over looked for an earlier answer just before, so it is posted without
/// a look or a reply claim.
pub(crate) async fn refuse_as_holder(
    ctx: &Ctx,
    pr: PrNumber,
    why: &Refused,
) -> Result<(), GitHubError> {
    let text = refused(&why.what, &why.fix, ctx.delivery.as_str_lossy());
    rest::create_comment(&ctx.api, &ctx.repo, pr, &text).await?;
    Ok(())
}

/// A warning about `pull`'s head, posted once for `key` whatever the delivery.
pub(crate) async fn warn_once(
    ctx: &Ctx,
    pull: &Pull,
    key: &str,
    text: &str,
) -> Result<(), GitHubError> {
    if claim::first(ctx, key, &pull.head_sha).await? {
        rest::create_comment(
            &ctx.api,
            &ctx.repo,
            pull.number,
            &format!("auditloop: warning\n\n{text}"),
        )
        .await?;
    }
    Ok(())
}

/// A reply with the delivery marker at its end.
pub(crate) fn with_marker(ctx: &Ctx, text: &str) -> String {
    format!("{text}\n\n{}", delivery_marker(ctx.delivery.as_str_lossy()))
}

/// A command's +1, due once it is carried out: the comment, and its GraphQL id when the
/// payload gave one (the +1 then goes with the body's update, in one call).
#[derive(Debug, Clone)]
pub(crate) struct Thanks {
    pub(crate) comment: CommentId,
    pub(crate) node: Option<NodeId>,
}

impl Thanks {
    #[must_use]
    pub(crate) fn of(comment: &Comment) -> Self {
        Self {
            comment: comment.id,
            node: comment.node_id.clone().and_then(|id| NodeId::new(id).ok()),
        }
    }
}

/// GitHub keeps one reaction per user and content: a repeat answers 200 with the reaction
/// that exists, so replicas reacting at once never double it.
pub(crate) async fn carried_out(ctx: &Ctx, comment: CommentId) -> Result<(), GitHubError> {
    rest::react(&ctx.api, &ctx.repo, comment, "+1").await
}
