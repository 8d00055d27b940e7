//! The records branch as the app uses it: load the index and the records a PR needs, and
//! apply one transition as one commit, validated again on the latest state after a conflict.

use crate::engine::views::md::Md;
use crate::md;
use std::convert::Infallible;
use std::future::Future;

use crate::app::context::Ctx;
use crate::app::learning::learn;
use crate::app::lineage::{classify, repair, Damage, Lineage, Verifier};
use crate::app::reply::Refused;
use crate::app::state::{state_of, wanted};
use crate::github::rest::{self, CheckRunInfo};
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::records::{self, Change, CommitOutcome, Reuse};

pub use crate::app::state::{change_files, State};

/// A load that failed on the records themselves (not on GitHub).
pub type Loaded = Result<State, Damage>;

/// Loads through the process's records cache; within one delivery the ref is asked once.
pub async fn load(ctx: &Ctx, pr: PrNumber, named: Option<&AuditId>) -> Result<Loaded, GitHubError> {
    let branch = ctx.records_branch();
    let head = ctx.seen.records_head(branch);
    let reuse = Reuse {
        cache: Some(&ctx.memory.records),
        head: head.as_ref().map(Option::as_ref),
    };
    let snapshot = records::read_with(
        &ctx.api,
        &ctx.repo,
        branch,
        &wanted(pr, named.cloned(), ctx.settings().patterns),
        reuse,
    )
    .await?;
    ctx.seen.saw_records(branch, snapshot.commit.as_ref());
    Ok(state_of(&snapshot, pr, named).map_err(Damage::from))
}

/// The damage `state` shows: the records as a whole, or the PR's record.
pub fn damage_of(state: &Loaded) -> Option<Damage> {
    match state {
        Err(damage) => Some(damage.clone()),
        Ok(s) => match &s.record {
            Some(Err(why)) => Some(Damage::from(why.clone())),
            _ => None,
        },
    }
}

/// `loaded`, unless the branch no longer holds what it held at `named` (the records commit
/// our newest check run was computed from, see [`crate::app::lineage`]): then it is
/// damaged, saying so, and no view or write may start from it. Also tells whether a view
/// from `loaded` would be older than the one that stands.
pub async fn verified(
    ctx: &Ctx,
    pr: PrNumber,
    loaded: Loaded,
    named: Option<&CommitSha>,
) -> Result<(Loaded, Lineage), GitHubError> {
    let (Ok(state), Some(named)) = (&loaded, named) else {
        return Ok((loaded, Lineage::Current));
    };
    let lineage = classify(ctx, pr, state, named).await?;
    if let Lineage::Damaged(damage) = &lineage {
        tracing::warn!(%named, why = damage.why, "records branch rewound or edited");
        return Ok((Err(damage.clone()), lineage));
    }
    Ok((loaded, lineage))
}

/// The refusal of a command that would write onto damaged records: what was found and how
/// to repair it, in the words the gate uses.
pub fn damaged(ctx: &Ctx, damage: &Damage) -> Refused {
    Refused::new(
        md!(
            "the records branch is damaged: {}",
            Md::text_max(&damage.why, 2_000)
        ),
        repair(&ctx.view(), damage.last_good.as_ref()),
    )
}

/// Why a change was not written.
#[derive(Debug)]
pub enum Stop<E, N = Infallible> {
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

pub enum Applying<E, N = Infallible> {
    Done {
        state: Box<State>,
        commit: Option<CommitSha>,
    },
    Stopped(Stop<E, N>),
}

/// The records commit our newest `check_name` run names in `external_id` (runs listed
/// newest first per name, as `filter=latest` gives them); `slug` narrows to our App.
pub fn named_records_commit(
    runs: &[CheckRunInfo],
    check_name: &str,
    slug: Option<&str>,
) -> Option<CommitSha> {
    runs.iter()
        .filter(|r| r.name == check_name)
        .filter(|r| slug.is_none_or(|s| r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(s)))
        .find_map(|r| CommitSha::new(r.external_id.clone()?).ok())
}

/// When the records branch is absent but a check run on the PR's head names the records
/// commit it was computed from, recreates the branch there (docs/reference.md#a-lost-or-rewound-branch): a lost branch
/// never restarts the history at `AUD-1`. `false` when there is nothing to recover from.
async fn recover_branch(ctx: &Ctx, pr: PrNumber) -> Result<bool, GitHubError> {
    let pull = ctx.seen.pull(&ctx.api, &ctx.repo, pr).await?;
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

/// Why a commit attempt stopped before writing.
enum Halt<E, N> {
    Stop(Stop<E, N>),
    /// The decision asked for `N`, on the state at this commit.
    Needs(N, Option<CommitSha>),
    /// The branch is absent and may be recoverable: look before the first write.
    Absent,
    /// The head is not the commit a check run names: check that it extends it before
    /// writing on top.
    Verify(Box<State>),
}

/// Commits what `decide` makes of the latest state, with what it teaches (see
/// [`crate::app::learning`]): the pattern library and the Lessons of a record it ends
/// ride in the same commit. `decide` runs again on the new state
/// after a ref conflict, so a command is never applied to a stale record. A missing branch
/// is first recreated where the check runs say it was (see [`recover_branch`]). With
/// `must_contain` (the records commit our check run names), nothing is written on a head
/// that does not contain it: that branch was rewound.
pub async fn apply<E>(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
    must_contain: Option<&CommitSha>,
    message: &str,
    decide: impl Fn(&State) -> Result<Change, Stop<E>>,
) -> Result<Applying<E>, GitHubError> {
    let nothing = |never: Infallible| async move { match never {} };
    apply_fetching(ctx, pr, named, must_contain, message, decide, nothing).await
}

/// Answers a decision may ask for in one commit before it is given up on: each need is
/// answered once, so a decision that keeps asking is a fault.
pub const MAX_NEEDS: u32 = 4;

/// [`apply`] for a decision that may need GitHub's answer to something the records do not
/// hold: it says so with [`Stop::Needs`], `fetch` answers it (where `decide` can see it),
/// and `decide` runs again on the same state, read again only from memory. So a decision
/// is only ever made on the state this loop read, and nothing is fetched for a command the
/// records refuse.
pub async fn apply_fetching<E, N, F, Fut>(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
    must_contain: Option<&CommitSha>,
    message: &str,
    decide: impl Fn(&State) -> Result<Change, Stop<E, N>>,
    mut fetch: F,
) -> Result<Applying<E, N>, GitHubError>
where
    F: FnMut(N) -> Fut,
    Fut: Future<Output = Result<(), GitHubError>>,
{
    let mut may_recover = true;
    let mut answered = 0;
    let mut verified: Vec<CommitSha> = Vec::new();
    let mut verifier = must_contain.cloned().map(Verifier::new);
    let branch = ctx.records_branch();
    let (_turn, waited) = ctx.memory.write_turn(&ctx.repo, branch).await;
    if waited {
        // The writer before us moved the branch: read its ref again (its commit is known).
        ctx.seen.forget_records();
    }
    let mut verifies = 0;
    // Whether the pattern library is kept: read with the record, written with its ending.
    let learning = ctx.settings().patterns;
    let outcome = loop {
        let head = ctx.seen.records_head(branch);
        let reuse = Reuse {
            cache: Some(&ctx.memory.records),
            head: head.as_ref().map(Option::as_ref),
        };
        let outcome = records::commit_change_with(
            &ctx.api,
            &ctx.repo,
            branch,
            message,
            wanted(pr, named.cloned(), learning),
            |snapshot| {
                if may_recover && snapshot.commit.is_none() {
                    return Err(Halt::Absent);
                }
                if let (Some(head), Some(expected)) = (&snapshot.commit, must_contain) {
                    if head != expected && !verified.contains(head) {
                        let state = state_of(snapshot, pr, named)
                            .map_err(|e| Halt::Stop(Stop::Damaged(e.into())))?;
                        return Err(Halt::Verify(Box::new(state)));
                    }
                }
                let state = state_of(snapshot, pr, named)
                    .map_err(|e| Halt::Stop(Stop::Damaged(e.into())))?;
                decide(&state)
                    .map(|change| learn(learning, &state, change))
                    .map_err(|stop| match stop {
                        Stop::Needs(need) => Halt::Needs(need, snapshot.commit.clone()),
                        stop => Halt::Stop(stop),
                    })
            },
            reuse,
        )
        .await?;
        match outcome {
            CommitOutcome::Refused(Halt::Absent) => {
                if recover_branch(ctx, pr).await? {
                    ctx.seen.forget_records();
                }
                may_recover = false;
            }
            CommitOutcome::Refused(Halt::Verify(state)) => {
                verifies += 1;
                if verifies > records::MAX_ATTEMPTS {
                    // Another writer keeps moving the branch: leave it to a redelivery.
                    return Err(GitHubError::Status {
                        route: "records branch",
                        status: 409,
                        message: format!("{branch} moved under {verifies} verified heads in a row"),
                    });
                }
                if let Some(verifier) = &mut verifier {
                    if let Lineage::Damaged(damage) = verifier.check(ctx, pr, &state).await? {
                        break CommitOutcome::Refused(Stop::Damaged(damage));
                    }
                }
                verified.extend(state.commit.clone());
            }
            CommitOutcome::Refused(Halt::Needs(need, at)) => {
                if answered >= MAX_NEEDS {
                    break CommitOutcome::Refused(Stop::Needs(need));
                }
                // The next attempt starts from the state just read, not from a new ref read.
                ctx.seen.saw_records(branch, at.as_ref());
                fetch(need).await?;
                answered += 1;
            }
            CommitOutcome::Refused(Halt::Stop(stop)) => break CommitOutcome::Refused(stop),
            CommitOutcome::Committed {
                commit,
                snapshot,
                attempts,
            } => {
                break CommitOutcome::Committed {
                    commit,
                    snapshot,
                    attempts,
                }
            }
            CommitOutcome::Unchanged { snapshot } => break CommitOutcome::Unchanged { snapshot },
        }
    };
    match &outcome {
        CommitOutcome::Committed { commit, .. } => ctx.seen.saw_records(branch, Some(commit)),
        CommitOutcome::Unchanged { snapshot } => {
            ctx.seen.saw_records(branch, snapshot.commit.as_ref());
        }
        CommitOutcome::Refused(_) => {}
    }
    Ok(match outcome {
        CommitOutcome::Committed {
            commit, snapshot, ..
        } => match state_of(&snapshot, pr, named) {
            Ok(state) => Applying::Done {
                state: Box::new(state),
                commit: Some(commit),
            },
            Err(e) => Applying::Stopped(Stop::Damaged(e.into())),
        },
        CommitOutcome::Unchanged { snapshot } => match state_of(&snapshot, pr, named) {
            Ok(state) => Applying::Done {
                commit: state.commit.clone(),
                state: Box::new(state),
            },
            Err(e) => Applying::Stopped(Stop::Damaged(e.into())),
        },
        CommitOutcome::Refused(stop) => Applying::Stopped(stop),
    })
}
