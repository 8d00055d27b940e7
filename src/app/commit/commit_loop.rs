//! The commit loop: one transition applied as one commit on the records branch, decided
//! again on the latest state after a conflict.

use std::convert::Infallible;
use std::future::Future;

use crate::app::commit::learning::learn;
use crate::app::context::Ctx;
use crate::app::reads::lineage::{Damage, Lineage, Verifier};
use crate::app::reads::loading::named_records_commit;
use crate::app::reads::state::{state_of, wanted, State};
use crate::github::rest;
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::records::{self, Change, CommitOutcome, Reuse, Snapshot};

/// Why a change was not written.
#[derive(Debug)]
pub(crate) enum Unwritten<E, N = Infallible> {
    /// The command's own refusal.
    Refused(E),
    /// This delivery is already in the history: its effects were written before.
    AlreadyApplied,
    /// The records are damaged: nothing may be written on top of them.
    Damaged(Damage),
    /// The decision needs something from GitHub first (see [`apply_fetching`]); as an
    /// outcome, it kept asking after [`MAX_NEEDS`] answers.
    Needs(N),
}

/// What one attempt to commit a decision came to.
pub(crate) enum Attempt<E, N = Infallible> {
    /// Written (or nothing to write): the state the branch holds now, and its commit.
    Committed {
        state: Box<State>,
        commit: Option<CommitSha>,
    },
    /// Nothing was written, and why.
    Unwritten(Unwritten<E, N>),
}

/// When the records branch is absent but a check run on the PR's head names the records
/// commit it was computed from, recreates the branch there (docs/reference.md#a-lost-or-rewound-branch): a lost branch
/// never restarts the history at `AUD-1`. `false` when there is nothing to recover from.
async fn recover_branch(ctx: &Ctx, pr: PrNumber) -> Result<bool, GitHubError> {
    let pull = ctx.delivery_cache.pull(&ctx.api, &ctx.repo, pr).await?;
    let runs = rest::check_runs(&ctx.api, &ctx.repo, &pull.head_sha).await?;
    let Some(sha) = named_records_commit(&runs, &ctx.settings().check_name, None) else {
        return Ok(false);
    };
    if !records::is_records_commit(&ctx.api, &ctx.repo, &sha).await? {
        tracing::warn!(%sha, "a check run names a records commit that is not one; starting afresh");
        return Ok(false);
    }
    let created = records::create_branch(&ctx.api, &ctx.repo, ctx.records_branch(), &sha).await?;
    tracing::warn!(%sha, created, branch = ctx.records_branch(), "records branch was missing; recreated at the last records commit");
    Ok(true)
}

/// Why one pass of the commit loop left it before writing: to stop, or to come back after
/// a fetch, a recovery or a lineage check.
enum Interruption<E, N> {
    Unwritten(Unwritten<E, N>),
    /// The decision asked for `N`, on the state at this commit.
    Needs(N, Option<CommitSha>),
    /// The branch is absent and may be recoverable: look before the first write.
    Absent,
    /// The head is not the commit a check run names: check that it extends it before
    /// writing on top.
    Verify(Box<State>),
}

/// Commits what `decide` makes of the latest state, with what it teaches (see
/// [`crate::app::commit::learning`]): the pattern library and the Lessons of a record it ends
/// ride in the same commit. `decide` runs again on the new state
/// after a ref conflict, so a command is never applied to a stale record. A missing branch
/// is first recreated where the check runs say it was (see [`recover_branch`]). With
/// `must_contain` (the records commit our check run names), nothing is written on a head
/// that does not contain it: that branch was rewound.
pub(crate) async fn apply<E>(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
    must_contain: Option<&CommitSha>,
    message: &str,
    decide: impl Fn(&State) -> Result<Change, Unwritten<E>>,
) -> Result<Attempt<E>, GitHubError> {
    let nothing = |never: Infallible| async move { match never {} };
    apply_fetching(ctx, pr, named, must_contain, message, decide, nothing).await
}

/// Answers a decision may ask for in one commit before it is given up on: each need is
/// answered once, so a decision that keeps asking is a fault.
pub(crate) const MAX_NEEDS: u32 = 4;

/// [`apply`] for a decision that may need GitHub's answer to something the records do not
/// hold: it says so with [`Unwritten::Needs`], `fetch` answers it (where `decide` can see it),
/// and `decide` runs again on the same state, read again only from memory. So a decision
/// is only ever made on the state this loop read, and nothing is fetched for a command the
/// records refuse.
pub(crate) async fn apply_fetching<E, N, F, Fut>(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
    must_contain: Option<&CommitSha>,
    message: &str,
    decide: impl Fn(&State) -> Result<Change, Unwritten<E, N>>,
    mut fetch: F,
) -> Result<Attempt<E, N>, GitHubError>
where
    F: FnMut(N) -> Fut,
    Fut: Future<Output = Result<(), GitHubError>>,
{
    let branch = ctx.records_branch();
    let (_turn, waited) = ctx.memory.write_turn(&ctx.repo, branch).await;
    if waited {
        // The writer before us moved the branch: read its ref again (its commit is known).
        ctx.delivery_cache.forget_records();
    }
    let mut commit_loop = CommitLoop {
        pr,
        named,
        must_contain,
        // Whether the pattern library is kept: read with the record, written with its ending.
        learning: ctx.settings().patterns,
        may_recover: true,
        answered: 0,
        verified: Vec::new(),
        verifier: must_contain.cloned().map(Verifier::new),
        verifies: 0,
    };
    let outcome = loop {
        let head = ctx.delivery_cache.records_head(branch);
        // The early load put the commit in the cache: its objects are known there.
        let reuse = Reuse {
            cache: Some(&ctx.memory.records),
            head: head.as_ref().map(Option::as_ref),
            objects: None,
        };
        // The commit's answer brings the PR's body back: the views that follow need it.
        let outcome = records::commit_change_with(
            &ctx.api,
            &ctx.repo,
            branch,
            (message, Some(pr)),
            wanted(pr, named.cloned(), commit_loop.learning),
            |snapshot| commit_loop.decide(snapshot, &decide),
            reuse,
        )
        .await?;
        let interruption = match finished(outcome) {
            Ok(done) => break done,
            Err(interruption) => interruption,
        };
        if let Some(stop) = commit_loop.follow(ctx, interruption, &mut fetch).await? {
            break CommitOutcome::Refused(stop);
        }
    };
    Ok(settle(ctx, outcome, pr, named))
}

/// What the commit loop keeps from one pass to the next: what it has recovered, verified
/// and fetched already, so that each happens once.
struct CommitLoop<'a> {
    pr: PrNumber,
    named: Option<&'a AuditId>,
    must_contain: Option<&'a CommitSha>,
    learning: bool,
    /// A missing branch is looked for once, before the first write.
    may_recover: bool,
    /// Needs answered so far (at most [`MAX_NEEDS`]).
    answered: u32,
    /// Heads found to extend `must_contain`: not checked again.
    verified: Vec<CommitSha>,
    verifier: Option<Verifier>,
    /// Lineage checks in a row (at most [`records::MAX_ATTEMPTS`]).
    verifies: u32,
}

impl CommitLoop<'_> {
    /// One pass's decision on `snapshot`, with what it teaches; an interruption first when the
    /// branch is absent or its head is not yet known to extend `must_contain`.
    fn decide<E, N>(
        &self,
        snapshot: &Snapshot,
        decide: &impl Fn(&State) -> Result<Change, Unwritten<E, N>>,
    ) -> Result<Change, Interruption<E, N>> {
        if self.may_recover && snapshot.commit.is_none() {
            return Err(Interruption::Absent);
        }
        let state = || {
            state_of(snapshot, self.pr, self.named)
                .map_err(|e| Interruption::Unwritten(Unwritten::Damaged(e.into())))
        };
        if let (Some(head), Some(expected)) = (&snapshot.commit, self.must_contain) {
            if head != expected && !self.verified.contains(head) {
                return Err(Interruption::Verify(Box::new(state()?)));
            }
        }
        let state = state()?;
        decide(&state)
            .map(|change| learn(self.learning, &state, change))
            .map_err(|stop| match stop {
                Unwritten::Needs(need) => Interruption::Needs(need, snapshot.commit.clone()),
                stop => Interruption::Unwritten(stop),
            })
    }

    /// Follows the interruption (recovers the branch, checks the lineage, answers the need):
    /// `Some` when the loop stops there instead of passing again.
    async fn follow<E, N, F, Fut>(
        &mut self,
        ctx: &Ctx,
        interruption: Interruption<E, N>,
        fetch: &mut F,
    ) -> Result<Option<Unwritten<E, N>>, GitHubError>
    where
        F: FnMut(N) -> Fut,
        Fut: Future<Output = Result<(), GitHubError>>,
    {
        let branch = ctx.records_branch();
        match interruption {
            Interruption::Absent => {
                if recover_branch(ctx, self.pr).await? {
                    ctx.delivery_cache.forget_records();
                }
                self.may_recover = false;
            }
            Interruption::Verify(state) => {
                self.verifies += 1;
                if self.verifies > records::MAX_ATTEMPTS {
                    // Another writer keeps moving the branch: leave it to a redelivery.
                    return Err(GitHubError::Status {
                        route: "records branch",
                        status: 409,
                        message: format!(
                            "{branch} moved under {} verified heads in a row",
                            self.verifies
                        ),
                    });
                }
                if let Some(verifier) = &mut self.verifier {
                    if let Lineage::Damaged(damage) = verifier.check(ctx, self.pr, &state).await? {
                        return Ok(Some(Unwritten::Damaged(damage)));
                    }
                }
                // The next pass starts from the head just verified, not from the one the
                // delivery read first: that one would only meet the same conflict again.
                ctx.delivery_cache
                    .saw_records(branch, state.commit.as_ref());
                self.verified.extend(state.commit.clone());
            }
            Interruption::Needs(need, at) => {
                if self.answered >= MAX_NEEDS {
                    return Ok(Some(Unwritten::Needs(need)));
                }
                // The next attempt starts from the state just read, not from a new ref read.
                ctx.delivery_cache.saw_records(branch, at.as_ref());
                fetch(need).await?;
                self.answered += 1;
            }
            Interruption::Unwritten(stop) => return Ok(Some(stop)),
        }
        Ok(None)
    }
}

/// The outcome of a pass that wrote or found nothing to write, or the interruption it took.
fn finished<E, N>(
    outcome: CommitOutcome<Interruption<E, N>>,
) -> Result<CommitOutcome<Unwritten<E, N>>, Interruption<E, N>> {
    match outcome {
        CommitOutcome::Refused(interruption) => Err(interruption),
        CommitOutcome::Committed {
            commit,
            snapshot,
            attempts,
            pull_body,
        } => Ok(CommitOutcome::Committed {
            commit,
            snapshot,
            attempts,
            pull_body,
        }),
        CommitOutcome::Unchanged { snapshot } => Ok(CommitOutcome::Unchanged { snapshot }),
    }
}

/// What the loop came to, as the state the branch now holds; the head it saw is kept so
/// the next read of this delivery starts there.
fn settle<E, N>(
    ctx: &Ctx,
    outcome: CommitOutcome<Unwritten<E, N>>,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Attempt<E, N> {
    let branch = ctx.records_branch();
    match &outcome {
        CommitOutcome::Committed {
            commit, pull_body, ..
        } => {
            ctx.delivery_cache.saw_records(branch, Some(commit));
            if let Some((body, sent)) = pull_body {
                ctx.delivery_cache
                    .saw_body_after_commit(pr, body.clone(), *sent);
            }
            // A commit only this process made: what its claims point at (see `claim`).
            ctx.memory.add_mark(&ctx.repo, commit.clone());
            ctx.dashboard_changed();
        }
        CommitOutcome::Unchanged { snapshot } => {
            ctx.delivery_cache
                .saw_records(branch, snapshot.commit.as_ref());
        }
        CommitOutcome::Refused(_) => {}
    }
    match outcome {
        CommitOutcome::Committed {
            commit, snapshot, ..
        } => match state_of(&snapshot, pr, named) {
            Ok(state) => Attempt::Committed {
                state: Box::new(state),
                commit: Some(commit),
            },
            Err(e) => Attempt::Unwritten(Unwritten::Damaged(e.into())),
        },
        CommitOutcome::Unchanged { snapshot } => match state_of(&snapshot, pr, named) {
            Ok(state) => Attempt::Committed {
                commit: state.commit.clone(),
                state: Box::new(state),
            },
            Err(e) => Attempt::Unwritten(Unwritten::Damaged(e.into())),
        },
        CommitOutcome::Refused(stop) => Attempt::Unwritten(stop),
    }
}
