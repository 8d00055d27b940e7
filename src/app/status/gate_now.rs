//! The gate of a PR's head as the app would publish it now, read with any client that can
//! read the repository (`auditloop status`, the `gate_status` tool): the configuration from
//! the default branch, the records branch checked against the records commit our check run
//! names, the head's other checks, the PRs sharing the head, and the one gate function the
//! views call ([`pull_gate`]). Nothing is written.

use crate::app::context::{Ctx, Operator};
use crate::app::reads::lineage::repair;
use crate::app::reads::loading;
use crate::app::reads::loading::{damage_of, named_records_commit};
use crate::app::reads::observe::{gate_for, record_of};
use crate::app::reads::runs::observations;
use crate::engine::gate::{combine, Conclusion, GateResult, Outcome};
use crate::engine::receipt::TrustStore;
use crate::engine::record::Record;
use crate::engine::repo_config::Assurance;
use crate::github::rest::{self, Pull};
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, PrNumber, RepoName};

/// What the gate of a PR's head is now.
#[derive(Debug)]
pub(crate) enum GateNow {
    /// `.github/auditloop.yml` on the default branch is invalid: the check run fails.
    InvalidConfig(String),
    Evaluated {
        gate: GateResult,
        record: Option<Box<Record>>,
        /// The stored report of the record's certifying run, when it was authenticated:
        /// its digest is verified again with the kept receipt.
        certified_report: Option<String>,
        /// The records cannot be trusted (missing, unreadable, rewound, edited): condition 1
        /// fails saying so, and this says how to repair them.
        damaged: Option<String>,
    },
}

/// Reads what the gate of PR `pr` of `repo` needs and evaluates it. `records_branch`
/// overrides the configured one.
///
/// # Errors
///
/// [`GitHubError`] when a read fails (no access, no such repository or PR, GitHub down).
pub(crate) async fn gate_now(
    api: &Api,
    repo: &RepoName,
    pr: PrNumber,
    records_branch: Option<&str>,
    operator_min: Assurance,
    trust: Option<&TrustStore>,
) -> Result<GateNow, GitHubError> {
    let operator = Operator::outside(operator_min, trust);
    let (ctx, pull) = futures::try_join!(
        crate::app::repository::outside(api, repo, records_branch, operator),
        rest::get_pull(api, repo, pr),
    )?;
    if let Err(e) = &ctx.config {
        return Ok(GateNow::InvalidConfig(e.to_string()));
    }
    let check_name = ctx.check_name();
    let (runs, loaded) = futures::try_join!(
        rest::check_runs(api, repo, &pull.head_sha),
        loading::load(&ctx, pr, None),
    )?;
    // A token cannot ask which App it serves: the newest run of our check's name that
    // names a records commit is taken as ours, as branch recovery does.
    let named = named_records_commit(&runs, check_name, None);
    let (state, _) = loading::verified(&ctx, pr, loaded, named.as_ref()).await?;
    let state = missing_branch(&ctx, state, named.as_ref());
    let checks = observations(&runs, check_name);
    crate::app::reads::observe::read_decisions_if_cited(&ctx, &state).await?;
    // `None` only for an invalid configuration, answered above.
    let gate_of = |pull: &Pull, state: &loading::Loaded| gate_for(&ctx, pull, state, &checks);
    let Some(own) = gate_of(&pull, &state) else {
        return Ok(GateNow::InvalidConfig(String::new()));
    };
    let broken = broken(&own, &state);
    let mut gate = own;
    // As the views do: a PR sharing the head can only make a passing gate worse.
    if gate.conclusion != Conclusion::Failure {
        let sharing = rest::open_pulls_for_commit(api, repo, &pull.head_sha).await?;
        let mut results = vec![(pull.number, gate.clone())];
        for other in sharing.iter().filter(|p| p.number != pull.number) {
            let other_state = loading::load(&ctx, other.number, None).await?;
            results.extend(gate_of(other, &other_state).map(|g| (other.number, g)));
        }
        gate = combine(&results);
    }
    let record = record_of(&state).ok().flatten().cloned().map(Box::new);
    let last_good = damage_of(&state).and_then(|d| d.last_good);
    let damaged =
        broken.map(|why| format!("{why}. {}", repair(&ctx.view(), last_good.as_ref()).plain()));
    let certified_report = state.as_ref().ok().and_then(|s| s.certified_report.clone());
    Ok(GateNow::Evaluated {
        gate,
        record,
        certified_report,
        damaged,
    })
}

/// A records branch that is absent while a check run names its last commit is damage
/// (lost, not new), said with where the next command recreates it.
fn missing_branch(ctx: &Ctx, state: loading::Loaded, named: Option<&CommitSha>) -> loading::Loaded {
    match (&state, named) {
        (Ok(s), Some(last)) if s.commit.is_none() => Err(crate::app::reads::lineage::Damage::from(format!(
            "the records branch `{}` is missing; it was last at {}, where the next command recreates it",
            ctx.records_branch(),
            last.short()
        ))),
        _ => state,
    }
}

/// Why the records cannot be trusted: unreadable, or read with a history that fails
/// condition 1 of the PR's own gate `own`.
fn broken(own: &GateResult, state: &loading::Loaded) -> Option<String> {
    match record_of(state) {
        Err(why) => Some(why),
        Ok(Some(_)) => own
            .conditions
            .first()
            .filter(|c| c.number == 1 && c.outcome == Outcome::Fail)
            .map(|c| c.reason.plain().to_owned()),
        Ok(None) => None,
    }
}
