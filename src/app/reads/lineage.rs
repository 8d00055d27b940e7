//! Whether the records a view or a write starts from are the branch's latest, using the
//! records commit our check runs name in `external_id` (docs/reference.md#a-lost-or-rewound-branch). The branch must still
//! contain that commit (else it was rewound or rewritten), and what it holds now must
//! extend what it held then: the PR's history at that commit is a prefix of its history
//! now, and the index never goes back. The chain alone cannot see an edit of the newest
//! event (no later `prev` covers it); this does. A view computed from an older commit than
//! the one a run shows is not published over it.

use crate::app::context::Ctx;
use crate::app::reads::state::State;
use std::collections::BTreeMap;

use crate::engine::layout::{record_path, shard_path, IndexMap, INDEX_PATH};
use crate::engine::md::Md;
use crate::engine::record::shards::shards_of;
use crate::engine::record::{Index, Record};
use crate::engine::views::links::ViewContext;
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::md;
use crate::records;

/// Records no view or write may start from: why, in words (with short SHAs), and the last
/// good records commit when one is known, which the repair moves the branch back to. The
/// commit travels beside the words, so that they never have to carry a full SHA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    pub(crate) why: String,
    pub(crate) last_good: Option<CommitSha>,
}

/// Damage found in the records themselves (a file that does not load): no commit to go
/// back to is known.
impl From<String> for Damage {
    fn from(why: String) -> Self {
        Damage {
            why,
            last_good: None,
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// What a records commit is, next to the one a check run names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lineage {
    /// The same commit, or one that extends it: views and writes may go ahead.
    Current,
    /// An older commit of the branch: a newer view already stands and is kept.
    Stale,
    /// The branch no longer holds what it held at the named commit, its last good one.
    Damaged(Damage),
}

fn damaged(named: &CommitSha, why: String) -> Lineage {
    Lineage::Damaged(Damage {
        why,
        last_good: Some(named.clone()),
    })
}

/// Where `state` (read at its commit) stands against `named`, for PR `pr`. Free when the
/// commits are the same; otherwise a compare and a read of the records at `named`, and,
/// when `state` is the older one, a ref read to tell a newer view from a rewind.
pub(crate) async fn classify(
    ctx: &Ctx,
    pr: PrNumber,
    state: &State,
    named: &CommitSha,
) -> Result<Lineage, GitHubError> {
    let Some(computed) = &state.commit else {
        return Ok(Lineage::Current);
    };
    if computed == named {
        return Ok(Lineage::Current);
    }
    let branch = ctx.records_branch();
    if state.parents.contains(named)
        || records::contains(&ctx.api, &ctx.repo, computed, named).await?
    {
        return Ok(match edited(ctx, pr, state, named).await? {
            None => Lineage::Current,
            Some(why) => damaged(named, why),
        });
    }
    // `computed` may be older than the view that stands. If the branch still holds `named`
    // we were overtaken; if not, the branch went back.
    if newer_on_branch(ctx, computed, named).await? {
        return Ok(Lineage::Stale);
    }
    Ok(damaged(named, rewound(branch, Some(computed), named)))
}

/// Whether `other` extends `ours` and the records branch still holds it: a view computed
/// from `ours` is older than one computed from `other`. A compare, then a ref read (and a
/// compare when the branch moved on past `other`). A commit GitHub does not know, or one
/// outside the branch's history, is not newer.
pub(crate) async fn newer_on_branch(
    ctx: &Ctx,
    ours: &CommitSha,
    other: &CommitSha,
) -> Result<bool, GitHubError> {
    if ours == other || !records::contains(&ctx.api, &ctx.repo, other, ours).await? {
        return Ok(false);
    }
    let head = records::head(&ctx.api, &ctx.repo, ctx.records_branch()).await?;
    Ok(match &head {
        Some(h) => h == other || records::contains(&ctx.api, &ctx.repo, h, other).await?,
        None => false,
    })
}

/// What changed by hand between `named` and `state`'s commit, if anything.
async fn edited(
    ctx: &Ctx,
    pr: PrNumber,
    state: &State,
    named: &CommitSha,
) -> Result<Option<String>, GitHubError> {
    let Some(then) = held_at(ctx, pr, named).await? else {
        return Ok(None);
    };
    let now = index_of_keys(ctx, state, &then.index).await?;
    let now = now
        .as_ref()
        .map_or(Now::Read(state), |index| Now::Keys(state, index));
    Ok(went_back(ctx.records_branch(), &then, now, named))
}

/// On layout version 2, the index at `state`'s commit as the shards of `then`'s
/// invocations and receipts hold it (a read holds only the shards it needed): `None` when
/// `state`'s index is whole, or `then` names none.
async fn index_of_keys(
    ctx: &Ctx,
    state: &State,
    then: &Index,
) -> Result<Option<Index>, GitHubError> {
    let (Some(_), Some(commit)) = (&state.shards_read, &state.commit) else {
        return Ok(None);
    };
    let mut shards = shards_of(
        IndexMap::Invocations,
        then.invocations.keys().map(String::as_str),
    );
    shards.extend(shards_of(
        IndexMap::Receipts,
        then.receipts.keys().map(String::as_str),
    ));
    if shards.is_empty() {
        return Ok(None);
    }
    let wanted = records::Named(move |_: &records::Files| {
        let mut paths = vec![INDEX_PATH.to_owned()];
        paths.extend(shards.iter().cloned());
        paths
    });
    let now = records::read_at(&ctx.api, &ctx.repo, commit.clone(), &wanted).await?;
    Ok(records::index_of(&now.files))
}

/// What the branch held for `pr` at `commit`: its index and the PR's record.
struct Held {
    index: Index,
    record: Option<(String, Record)>,
}

async fn held_at(ctx: &Ctx, pr: PrNumber, commit: &CommitSha) -> Result<Option<Held>, GitHubError> {
    let wanted = crate::app::reads::state::wanted_keys(pr, None, false, true);
    let then = records::read_at(&ctx.api, &ctx.repo, commit.clone(), &wanted).await?;
    let Some(index) = then.file(INDEX_PATH).and_then(|t| Index::parse(t).ok()) else {
        return Ok(None);
    };
    let record = index.record_for_pull(pr).and_then(|id| {
        let path = record_path(id);
        match then.file(&path).map(crate::engine::record::load_record) {
            Some(Ok(old)) => Some((path, old)),
            _ => None,
        }
    });
    Ok(Some(Held { index, record }))
}

fn held_in(state: &State) -> Held {
    Held {
        index: state.index.clone(),
        record: match &state.record {
            Some(Ok(r)) => Some((record_path(&r.id), r.clone())),
            _ => None,
        },
    }
}

/// Whether `state` no longer holds what `then` (the branch at `named`) held: the index
/// went back, or the PR's history is not an extension of what it was.
/// The branch now, as [`went_back`] compares it.
#[derive(Clone, Copy)]
enum Now<'a> {
    /// The state read: on layout version 2 its index holds the shards it read.
    Read(&'a State),
    /// The state, and the index of the keys the earlier read held, read for them.
    Keys(&'a State, &'a Index),
}

fn went_back(branch: &str, then: &Held, now: Now<'_>, named: &CommitSha) -> Option<String> {
    let (state, now, partial) = match now {
        Now::Read(state) => (state, &state.index, state.shards_read.as_ref()),
        Now::Keys(state, index) => (state, index, None),
    };
    // A key is compared where `now` holds it: its shard read, or the index whole.
    let read = |map: IndexMap, key: &str| partial.is_none_or(|r| r.contains(&shard_path(map, key)));
    let lost = |map, then: &BTreeMap<String, AuditId>, now: &BTreeMap<String, AuditId>| {
        then.iter()
            .filter(|(k, _)| read(map, k))
            .any(|(k, v)| now.get(k) != Some(v))
    };
    if now.next < then.index.next
        || lost(
            IndexMap::Invocations,
            &then.index.invocations,
            &now.invocations,
        )
        || lost(IndexMap::Receipts, &then.index.receipts, &now.receipts)
    {
        return Some(format!(
            "the index on {branch} went back: it no longer holds what it held at records commit {}",
            named.short()
        ));
    }
    let (path, old) = then.record.as_ref()?;
    let now = match &state.record {
        Some(Ok(r)) if r.id == old.id => r,
        // Damaged already, or moved to another PR by adoption: judged elsewhere.
        Some(_) => return None,
        None => {
            return Some(format!(
                "{path} was on {branch} at records commit {} and is gone from the index now",
                named.short()
            ))
        }
    };
    let n = old.history.len();
    let same = now.history.len() >= n
        && serde_json::to_value(&now.history[..n]).ok() == serde_json::to_value(&old.history).ok();
    if same {
        return None;
    }
    let changed = old
        .history
        .iter()
        .zip(&now.history)
        .position(|(a, b)| serde_json::to_value(a).ok() != serde_json::to_value(b).ok())
        .map_or(n, |i| i + 1);
    Some(format!(
        "{path}: history event {changed} was changed or removed after records commit {} was written",
        named.short()
    ))
}

/// The lineage check of one write, attempt after attempt. The branch may move between
/// attempts (another command landed): a head verified once becomes what the next head is
/// checked against, from what is already in hand, so a busy branch costs at most a
/// compare per attempt instead of a fresh read of the records at `named` each time.
pub(crate) struct Verifier {
    named: CommitSha,
    /// The newest head found to extend `named`, and what it held.
    base: Option<(CommitSha, Held)>,
}

impl Verifier {
    pub(crate) fn new(named: CommitSha) -> Self {
        Verifier { named, base: None }
    }

    pub(crate) async fn check(
        &mut self,
        ctx: &Ctx,
        pr: PrNumber,
        state: &State,
    ) -> Result<Lineage, GitHubError> {
        let Some(computed) = state.commit.clone() else {
            return Ok(Lineage::Current);
        };
        let Some((base, held)) = &self.base else {
            let lineage = classify(ctx, pr, state, &self.named).await?;
            if lineage == Lineage::Current {
                self.base = Some((computed, held_in(state)));
            }
            return Ok(lineage);
        };
        if &computed == base {
            return Ok(Lineage::Current);
        }
        let descends = state.parents.contains(base)
            || records::contains(&ctx.api, &ctx.repo, &computed, base).await?;
        if !descends {
            // Not an extension of the last verified head: judge it against `named` afresh.
            self.base = None;
            return Box::pin(self.check(ctx, pr, state)).await;
        }
        if let Some(why) = went_back(ctx.records_branch(), held, Now::Read(state), base) {
            return Ok(damaged(&self.named, why));
        }
        self.base = Some((computed, held_in(state)));
        Ok(Lineage::Current)
    }
}

/// What a maintainer does about damaged records; the same words on the check run, in each
/// refusal and in `/audit status`: the last good commit by its short SHA, linked, and the
/// command that restores it with the full one.
pub(crate) fn repair(view: &ViewContext, good: Option<&CommitSha>) -> Md {
    let branch = view.records_branch.as_str();
    let target = match good {
        Some(sha) => md!(
            "move it back to {}, the newest records commit a check run was computed from ({})",
            Md::link(Md::code(sha.short()), &view.records_commit_url(sha)),
            Md::code(&format!("git push --force origin {sha}:refs/heads/{branch}"))
        ),
        None => Md::lit("move it back to its last good records commit (the `external_id` of the newest audit-gate check run names it) with `git push --force`"),
    };
    md!(
        "A maintainer with push access to {} must repair it: {}, then run `/audit gate`. Until then the gate fails and commands that write are refused; `/audit status` still answers.",
        Md::code(branch),
        target
    )
}

/// The damage a rewind is, in words.
pub(crate) fn rewound(branch: &str, head: Option<&CommitSha>, named: &CommitSha) -> String {
    match head {
        Some(h) => format!(
            "the records branch {branch} was rewound or rewritten: its head {} no longer contains records commit {}, which a check run was computed from",
            h.short(),
            named.short()
        ),
        None => format!(
            "the records branch {branch} was rewound or rewritten: it no longer contains records commit {}, which a check run was computed from",
            named.short()
        ),
    }
}
