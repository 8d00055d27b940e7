//! The claims a delivery makes beside its first reads, so that the claim's ref create costs
//! no round of its own: a command's outcome, and a reply's (`status`, `help`) with its +1.
//! What each took lands in the delivery's `DeliveryCache`; the protocol itself is `claim/mod.rs`.

use crate::app::claim;
use crate::app::context::delivery_cache::{EarlyReply, Taken};
use crate::app::context::Ctx;
use crate::app::publish::reply;
use crate::commands::ParsedCommand;
use crate::events::IssueCommentEvent;
use crate::github::{rest, GitHubError};
use crate::ids::PrNumber;

/// The claim on a command's one outcome, made with the reads when a commit to anchor it is
/// known (the process's mark, or the PR's head as last read); a create that fails here is
/// simply made again later, at the head just read.
pub(crate) async fn outcome_claim(ctx: &Ctx, number: PrNumber, command: &ParsedCommand) {
    let guess = ctx.memory.head_of(&ctx.repo, number);
    // A command that cannot make its writes in time claims nothing (see `comment.rs`).
    let branch_known = ctx.memory.mark(&ctx.repo).map(|_| true);
    let fits = command.changes_records() && ctx.api.book_writes(writes_to_book(branch_known));
    if let (Some(head), true, true) = (&guess, command.changes_records(), fits) {
        let name = claim::first_generation(ctx, &claim::outcome_effect(number));
        if let Ok(taken) = claim::take(ctx, &name, head).await {
            ctx.delivery_cache.claimed_early(taken);
        }
    }
}

/// `reads`, with what a reply (`status`, `help`) does first made beside them: the +1, and
/// the reply's claim when a commit to anchor it is known. Each is made again later if it
/// failed here; a claim made here is given back if the reads fail, so the retry makes it
/// again.
pub(crate) async fn with_early_reply<T>(
    ctx: &Ctx,
    e: &IssueCommentEvent,
    reads: impl std::future::Future<Output = Result<T, GitHubError>>,
) -> Result<T, GitHubError> {
    let number = PrNumber(e.issue.number);
    let name = claim::first_generation(ctx, &reply::reply_effect(number));
    let guess = ctx.memory.head_of(&ctx.repo, number);
    let claim = async {
        match &guess {
            Some(head) => claim::take(ctx, &name, head).await.ok(),
            None => None,
        }
    };
    let react = rest::react_is_new(&ctx.api, &ctx.repo, e.comment.id, "+1");
    let (read, taken, new) = futures::join!(reads, claim, react);
    if read.is_err() && taken == Some(Taken::New) {
        claim::release(ctx, &name).await;
    }
    ctx.delivery_cache.replied_early(EarlyReply {
        taken,
        reaction_new: new.ok(),
    });
    read
}

/// What a command that changes a record writes: its outcome claim, its records commit,
/// and its views with its +1.
pub(crate) const WRITES: u32 = 3;

/// What the records branch's first commit takes beyond a later one: a tree and a commit
/// before the ref, where an existing branch takes one `createCommitOnBranch`.
pub(crate) const FIRST_COMMIT_EXTRA: u32 = 2;

/// The writes a command books: [`WRITES`], and the first commit's extra when the records
/// branch is missing, or may be (`known` is what the reads or this process saw of it).
pub(crate) fn writes_to_book(known: Option<bool>) -> u32 {
    match known {
        Some(true) => WRITES,
        _ => WRITES + FIRST_COMMIT_EXTRA,
    }
}
