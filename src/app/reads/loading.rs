//! Reading the records a PR needs, and checking that the branch still holds what our check
//! run last named. Nothing here writes.

use crate::app::context::failure::Refused;
use crate::app::context::Ctx;
use crate::app::reads::lineage::{classify, repair, Damage, Lineage};
use crate::app::reads::state::{state_of, wanted, State};
use crate::engine::layout::{record_path, INDEX_PATH, LAYOUT_PATH, NEXT_PATH};
use crate::engine::md::Md;
use crate::engine::patterns::PATTERNS_PATH;
use crate::engine::views::body_stamp;
use crate::github::rest::CheckRunInfo;
use crate::github::GitHubError;
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::md;
use crate::records::{self, index_of, Reuse};

/// A load that failed on the records themselves (not on GitHub).
pub(crate) type Loaded = Result<State, Damage>;

/// Loads through the process's records cache; within one delivery the ref is asked once.
pub(crate) async fn load(
    ctx: &Ctx,
    pr: PrNumber,
    named: Option<&AuditId>,
) -> Result<Loaded, GitHubError> {
    let branch = ctx.records_branch();
    let head = ctx.delivery_cache.records_head(branch);
    let objects = head
        .as_ref()
        .and_then(|h| ctx.delivery_cache.records_objects(h.as_ref()?));
    let reuse = Reuse {
        cache: Some(&ctx.memory.records),
        head: head.as_ref().map(Option::as_ref),
        objects: objects.as_deref(),
    };
    let snapshot = records::read_with(
        &ctx.api,
        &ctx.repo,
        branch,
        &wanted(pr, named.cloned(), ctx.settings().patterns),
        reuse,
    )
    .await?;
    ctx.delivery_cache
        .saw_records(branch, snapshot.commit.as_ref());
    Ok(state_of(&snapshot, pr, named).map_err(Damage::from))
}

/// What the first reads should ask of the records branch besides its ref: nothing when
/// this process expects it where it last saw it; else the first files, with the record
/// of `pr` the index named the last time, or else the PR body's stamp names (`None`: none
/// known), whether the listing too, and layout version 2's files a read of the PR would
/// name if the branch held what this process last knew (its marker, `next.json`, the
/// shards, the record and what it names).
pub(crate) fn first_files(
    ctx: &Ctx,
    pr: PrNumber,
    body: Option<&str>,
) -> Option<(Option<String>, bool, Vec<String>)> {
    let cache = &ctx.memory.records;
    let branch = ctx.records_branch();
    let wanted = wanted(pr, None, ctx.settings().patterns);
    let expected = records::likely_moved(cache, &ctx.repo, branch, &wanted)?;
    let record = index_of(&expected.known)
        .and_then(|i| i.record_for_pull(pr).map(record_path))
        .or_else(|| {
            cache
                .known_pull(&ctx.repo, branch, pr)
                .map(|id| record_path(&id))
        })
        .or_else(|| body.and_then(body_stamp).map(|s| record_path(&s.record)));
    let mut more = vec![LAYOUT_PATH.to_owned(), NEXT_PATH.to_owned()];
    for path in cache.likely_paths(&ctx.repo, branch, &wanted) {
        let asked = [INDEX_PATH, PATTERNS_PATH].contains(&path.as_str())
            || record.as_ref() == Some(&path)
            || more.contains(&path);
        if !asked {
            more.push(path);
        }
    }
    Some((record, expected.list, more))
}

/// The damage `state` shows: the records as a whole, or the PR's record.
pub(crate) fn damage_of(state: &Loaded) -> Option<Damage> {
    match state {
        Err(damage) => Some(damage.clone()),
        Ok(s) => match &s.record {
            Some(Err(why)) => Some(Damage::from(why.clone())),
            _ => None,
        },
    }
}

/// `loaded`, unless the branch no longer holds what it held at `named` (the records commit
/// our newest check run was computed from, see [`crate::app::reads::lineage`]): then it is
/// damaged, saying so, and no view or write may start from it. Also tells whether a view
/// from `loaded` would be older than the one that stands.
pub(crate) async fn verified(
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
pub(crate) fn damaged(ctx: &Ctx, damage: &Damage) -> Refused {
    Refused::new(
        md!(
            "the records branch is damaged: {}",
            Md::text_max(&damage.why, 2_000)
        ),
        repair(&ctx.view(), damage.last_good.as_ref()),
    )
}

/// The records commit our newest `check_name` run names in `external_id` (runs listed
/// newest first per name, as `filter=latest` gives them); `slug` narrows to our App.
pub(crate) fn named_records_commit(
    runs: &[CheckRunInfo],
    check_name: &str,
    slug: Option<&str>,
) -> Option<CommitSha> {
    runs.iter()
        .filter(|r| r.name == check_name)
        .filter(|r| slug.is_none_or(|s| r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(s)))
        .find_map(|r| CommitSha::new(r.external_id.clone()?).ok())
}
