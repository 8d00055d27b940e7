//! The records branch as the app uses it: load the index and the records a PR needs, and
//! apply one transition as one commit, validated again on the latest state after a conflict.

use std::collections::BTreeMap;

use crate::app::context::Ctx;
use crate::app::lineage::{classify, repair, Lineage, Verifier};
use crate::app::reply::Refused;
use crate::engine::record::{load_record, to_json, Index, Record};
use crate::engine::transition::Applied;
use crate::engine::views::{sections, ViewContext};
use crate::github::rest::{self, CheckRunInfo};
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::records::{self, Change, CommitOutcome, Files, PerRound, Reuse, Snapshot, Wanted};

/// What the branch holds for one PR.
#[derive(Debug, Clone)]
pub struct State {
    pub commit: Option<CommitSha>,
    /// The parents of `commit`.
    pub parents: Vec<CommitSha>,
    pub index: Index,
    /// The PR's record: `Err` when it fails structural validation.
    pub record: Option<Result<Record, String>>,
    /// A record named by id (adopt), when asked for.
    pub named: Option<Result<Record, String>>,
}

pub(crate) fn record_path(id: &AuditId) -> String {
    format!("records/{id}.json")
}

pub(crate) fn index_of(files: &Files) -> Option<Index> {
    files.get("index.json").and_then(|t| Index::parse(t).ok())
}

/// The index, then the PR's record and the `named` one. The index is parsed once per read
/// round, not once per path of the branch.
pub(crate) fn wanted(pr: PrNumber, named: Option<AuditId>) -> impl Wanted {
    PerRound(move |files: &Files| {
        let paths: Vec<String> = index_of(files)
            .map(|index| {
                index
                    .record_for_pull(pr)
                    .into_iter()
                    .chain(named.as_ref())
                    .map(record_path)
                    .collect()
            })
            .unwrap_or_default();
        move |path: &str| path == "index.json" || paths.iter().any(|p| p == path)
    })
}

fn load_one(snapshot: &Snapshot, id: &AuditId) -> Option<Result<Record, String>> {
    let path = record_path(id);
    if !snapshot.contains(&path) {
        return Some(Err(format!(
            "the index names {id}, but {path} is missing from the records branch"
        )));
    }
    let text = snapshot.file(&path)?;
    Some(
        load_record(text)
            .map_err(|e| format!("{path}: {e}"))
            .and_then(|record| match &record.id {
                found if found != id => Err(format!(
                    "index.json disagrees with the records: it names {id}, but {path} holds {found}"
                )),
                _ => Ok(record),
            }),
    )
}

/// The index must name the PR the record says it is bound to.
fn bound_to(
    record: Option<Result<Record, String>>,
    pr: PrNumber,
) -> Option<Result<Record, String>> {
    record.map(|r| {
        r.and_then(|record| {
            if record.pull_request == pr {
                Ok(record)
            } else {
                Err(format!(
                    "index.json disagrees with the records: it maps #{} to {}, which is bound to #{}",
                    pr.0, record.id, record.pull_request.0
                ))
            }
        })
    })
}

pub(crate) fn state_of(
    snapshot: &Snapshot,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Result<State, String> {
    let index = match snapshot.file("index.json") {
        Some(text) => Index::parse(text)
            .map_err(|e| format!("index.json on the records branch is damaged: {e}"))?,
        None if snapshot.commit.is_some() => {
            return Err("the records branch has no index.json".to_owned());
        }
        None => Index::default(),
    };
    let record = bound_to(
        index
            .record_for_pull(pr)
            .cloned()
            .and_then(|id| load_one(snapshot, &id)),
        pr,
    );
    let named = named.and_then(|id| load_one(snapshot, id));
    Ok(State {
        commit: snapshot.commit.clone(),
        parents: snapshot.parents.clone(),
        index,
        record,
        named,
    })
}

/// A load that failed on the records themselves (not on GitHub).
pub type Loaded = Result<State, String>;

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
        &wanted(pr, named.cloned()),
        reuse,
    )
    .await?;
    ctx.seen.saw_records(branch, snapshot.commit.as_ref());
    Ok(state_of(&snapshot, pr, named))
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
    if let Lineage::Damaged { why, .. } = &lineage {
        tracing::warn!(%named, why, "records branch rewound or edited");
        return Ok((Err(why.clone()), lineage));
    }
    Ok((loaded, lineage))
}

/// The refusal of a command that would write onto damaged records: what was found and how
/// to repair it, in the words the gate uses.
pub fn damaged(ctx: &Ctx, why: &str) -> Refused {
    Refused::new(
        format!("the records branch is damaged: {why}"),
        repair(ctx.records_branch(), rewound_target(why).as_ref()),
    )
}

/// The commit a damage message names as the last good one ("records commit <sha>").
pub fn rewound_target(why: &str) -> Option<CommitSha> {
    why.split("records commit ")
        .skip(1)
        .find_map(|rest| CommitSha::new(rest.chars().take(40).collect::<String>()).ok())
}

/// Why a change was not written.
#[derive(Debug)]
pub enum Stop<E> {
    /// The command's own refusal.
    Refused(E),
    /// This delivery is already in the history: its effects were written before.
    AlreadyApplied,
    /// The records are damaged: nothing may be written on top of them.
    Damaged(String),
}

/// The files one applied transition writes: the record (JSON and Markdown) and, when it
/// changed, the index; plus `extra` (a stored report).
pub fn change_files(applied: &Applied, view: &ViewContext, extra: Vec<(String, String)>) -> Change {
    let record = &applied.record;
    let mut files = BTreeMap::new();
    files.insert(record_path(&record.id), to_json(record));
    let s = sections(Some(record), view);
    files.insert(
        format!("records/{}.md", record.id),
        format!(
            "# {} ({})\n\n{}\n\n{}\n\n{}\n",
            record.id, record.work_unit, s.rounds, s.waivers, s.residual
        ),
    );
    if let Some(index) = &applied.index {
        files.insert("index.json".to_owned(), index.to_json());
    }
    files.extend(extra);
    Change { files }
}

pub enum Applying<E> {
    Done {
        state: Box<State>,
        commit: Option<CommitSha>,
    },
    Stopped(Stop<E>),
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
/// commit it was computed from, recreates the branch there (CONTRACT §7): a lost branch
/// never restarts the history at `AUD-1`. `false` when there is nothing to recover from.
async fn recover_branch(ctx: &Ctx, pr: PrNumber) -> Result<bool, GitHubError> {
    let pull = ctx.seen.pull(&ctx.api, &ctx.repo, pr.0).await?;
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
enum Halt<E> {
    Stop(Stop<E>),
    /// The branch is absent and may be recoverable: look before the first write.
    Absent,
    /// The head is not the commit a check run names: check that it extends it before
    /// writing on top.
    Verify(Box<State>),
}

/// Commits what `decide` makes of the latest state. `decide` runs again on the new state
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
    let mut may_recover = true;
    let mut verified: Vec<CommitSha> = Vec::new();
    let mut verifier = must_contain.cloned().map(Verifier::new);
    let branch = ctx.records_branch();
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
            wanted(pr, named.cloned()),
            |snapshot| {
                if may_recover && snapshot.commit.is_none() {
                    return Err(Halt::Absent);
                }
                if let (Some(head), Some(expected)) = (&snapshot.commit, must_contain) {
                    if head != expected && !verified.contains(head) {
                        let state = state_of(snapshot, pr, named)
                            .map_err(|e| Halt::Stop(Stop::Damaged(e)))?;
                        return Err(Halt::Verify(Box::new(state)));
                    }
                }
                let state =
                    state_of(snapshot, pr, named).map_err(|e| Halt::Stop(Stop::Damaged(e)))?;
                decide(&state).map_err(Halt::Stop)
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
                if let Some(verifier) = &mut verifier {
                    if let Lineage::Damaged { why, .. } = verifier.check(ctx, pr, &state).await? {
                        break CommitOutcome::Refused(Stop::Damaged(why));
                    }
                }
                verified.extend(state.commit.clone());
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
            ctx.seen.saw_records(branch, snapshot.commit.as_ref())
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
            Err(e) => Applying::Stopped(Stop::Damaged(e)),
        },
        CommitOutcome::Unchanged { snapshot } => match state_of(&snapshot, pr, named) {
            Ok(state) => Applying::Done {
                commit: state.commit.clone(),
                state: Box::new(state),
            },
            Err(e) => Applying::Stopped(Stop::Damaged(e)),
        },
        CommitOutcome::Refused(stop) => Applying::Stopped(stop),
    })
}
