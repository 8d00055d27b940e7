//! A repository's open audits at one moment: its open PRs, the records of those with one,
//! the checks on their heads when the gate reads any, and the decision records a record
//! cites, each read once for the whole repository. The dashboard, `status --repo` and the
//! `list_audits` tool place every row from the gate evaluated here, so a certified record
//! whose gate fails is never listed as ready to merge.

use std::collections::BTreeMap;

use crate::app::context::Ctx;
use crate::app::reads::lineage::Damage;
use crate::app::reads::loading::Loaded;
use crate::app::reads::observe::gate_for;
use crate::app::reads::runs::observation;
use crate::app::reads::state::{self, State};
use crate::engine::dashboard::{self, OpenPull, Row, Standing};
use crate::engine::gate::{cites_decision, combine, CheckObservation, Conclusion};
use crate::engine::layout::INDEX_PATH;
use crate::engine::md::Md;
use crate::engine::record::Index;
use crate::engine::repo_config::CONFIG_PATH;
use crate::github::head_checks::{self, SeenRun};
use crate::github::rest::Pull;
use crate::github::GitHubError;
use crate::ids::{CommitSha, PrNumber};
use crate::md;
use crate::records::{self, Reuse, Snapshot};

/// What the rows of a repository are computed from. Nothing of it is written.
pub(crate) struct OpenAudits {
    pulls: Vec<Pull>,
    pub(crate) snapshot: Snapshot,
    /// The records of the open PRs (every PR: one without a record still shares a head).
    states: BTreeMap<PrNumber, Loaded>,
    /// The runs on each audited head, read only when the gate reads other checks.
    runs: BTreeMap<CommitSha, Vec<SeenRun>>,
}

impl OpenAudits {
    /// Reads what the rows of the open `pulls` need: the records (one read of the branch),
    /// then at most one query for the heads' checks and one listing of the decisions.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when a read fails.
    pub(crate) async fn read(ctx: &Ctx, pulls: Vec<Pull>) -> Result<Self, GitHubError> {
        let numbers = pulls.iter().map(|p| p.number).collect();
        let reuse = Reuse {
            cache: Some(&ctx.memory.records),
            ..Reuse::default()
        };
        let wanted = state::open_gates(numbers, ctx.settings().patterns);
        let snapshot =
            records::read_with(&ctx.api, &ctx.repo, ctx.records_branch(), &wanted, reuse).await?;
        let states: BTreeMap<PrNumber, Loaded> = pulls
            .iter()
            .map(|p| {
                let state = state::state_of(&snapshot, p.number, None).map_err(Damage::from);
                (p.number, state)
            })
            .collect();
        let audited: Vec<CommitSha> = pulls
            .iter()
            .filter(|p| matches!(states.get(&p.number), Some(Ok(s)) if s.record.is_some()))
            .map(|p| p.head_sha.clone())
            .collect();
        let runs = if super::reads_checks(ctx) && !audited.is_empty() {
            head_checks::read(&ctx.api, &ctx.repo, &audited).await?
        } else {
            BTreeMap::new()
        };
        let cites = states
            .values()
            .any(|s| matches!(s, Ok(State { record: Some(Ok(r)), .. }) if cites_decision(r)));
        if cites && ctx.delivery_cache.decisions().is_none() {
            let found = crate::app::reads::decision_records::read(ctx).await?;
            ctx.delivery_cache.saw_decisions(found);
        }
        Ok(Self {
            pulls,
            snapshot,
            states,
            runs,
        })
    }

    /// The rows of the open PRs with a record, each placed by its head's gate.
    pub(crate) fn rows(&self, ctx: &Ctx) -> Vec<Row> {
        let index = self
            .snapshot
            .file(INDEX_PATH)
            .and_then(|t| Index::parse(t).ok())
            .unwrap_or_default();
        let open: Vec<OpenPull<'_>> = self
            .pulls
            .iter()
            .filter_map(|pull| {
                let record_id = index.record_for_pull(pull.number)?;
                let record = match self.states.get(&pull.number)? {
                    Ok(State {
                        record: Some(Ok(r)),
                        ..
                    }) => Ok(r),
                    Ok(State {
                        record: Some(Err(why)),
                        ..
                    }) => Err(why.clone()),
                    Err(damage) => Err(damage.why.clone()),
                    Ok(_) => return None,
                };
                Some(OpenPull {
                    number: pull.number,
                    title: &pull.title,
                    record_id,
                    record,
                    gate: self.standing(ctx, pull),
                })
            })
            .collect();
        dashboard::rows(&open)
    }

    /// The gate of `pull`'s head as its check run concludes: its own, made worse by any
    /// open PR sharing the head, as the views combine them.
    fn standing(&self, ctx: &Ctx, pull: &Pull) -> Standing {
        let Ok(config) = &ctx.config else {
            return invalid_config();
        };
        let checks: Vec<CheckObservation> = self
            .runs
            .get(&pull.head_sha)
            .into_iter()
            .flatten()
            .filter(|r| r.name != config.check_name)
            .map(|r| observation(&r.status, r.name.clone(), r.conclusion.clone()))
            .collect();
        // Every open PR has its state (`None`: an invalid configuration).
        let gate_of = |p: &Pull| gate_for(ctx, p, self.states.get(&p.number)?, &checks);
        let Some(own) = gate_of(pull) else {
            return invalid_config();
        };
        if own.conclusion == Conclusion::Failure {
            return Standing::of(&own);
        }
        let sharing: Vec<(PrNumber, _)> = self
            .pulls
            .iter()
            .filter(|p| p.head_sha == pull.head_sha)
            .map(|p| {
                if p.number == pull.number {
                    (p.number, Some(own.clone()))
                } else {
                    (p.number, gate_of(p))
                }
            })
            .filter_map(|(n, g)| Some((n, g?)))
            .collect();
        Standing::of(&combine(&sharing))
    }
}

/// The standing of every head while the configuration is invalid: its check run fails
/// saying so.
fn invalid_config() -> Standing {
    Standing::failing(md!(
        "{} is invalid on the default branch",
        Md::code(CONFIG_PATH)
    ))
}
