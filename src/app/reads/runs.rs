//! What the check runs on a head say: the other checks the gate reads, our newest run and
//! the records commit it names, and runs of our name that another source made.

use crate::app::context::memory::OurRun;
use crate::engine::gate::{CheckObservation, CheckStatus};
use crate::github::rest::CheckRunInfo;
use crate::ids::CommitSha;

/// The checks on the head other than ours, as the gate reads them.
pub(crate) fn observations(runs: &[CheckRunInfo], own: &str) -> Vec<CheckObservation> {
    runs.iter()
        .filter(|r| r.name != own)
        .map(|r| observation(&r.status, r.name.clone(), r.conclusion.clone()))
        .collect()
}

/// A run named `name` with REST's `status` word, as the gate reads it.
pub(crate) fn observation(
    status: &str,
    name: String,
    conclusion: Option<String>,
) -> CheckObservation {
    CheckObservation {
        name,
        status: match status {
            "queued" | "requested" | "waiting" | "pending" => CheckStatus::Queued,
            "in_progress" => CheckStatus::InProgress,
            _ => CheckStatus::Completed,
        },
        conclusion,
    }
}

/// Our newest run of `check_name` among `runs` names this records commit.
pub(crate) fn our_named_commit(
    runs: &[CheckRunInfo],
    check_name: &str,
    slug: &str,
) -> Option<CommitSha> {
    crate::app::reads::loading::named_records_commit(runs, check_name, Some(slug))
}

/// Runs named like our check but made by another App or workflow: a gate anyone with
/// `checks: write` can forge, which branch protection accepts unless it pins the source.
pub(crate) fn forged<'a>(runs: &'a [CheckRunInfo], check_name: &str, slug: &str) -> Vec<&'a str> {
    runs.iter()
        .filter(|r| r.name == check_name)
        .filter_map(|r| match r.app.as_ref().and_then(|a| a.slug.as_deref()) {
            Some(s) if s == slug => None,
            Some(s) => Some(s),
            None => Some("an unknown source"),
        })
        .collect()
}

/// The words for a forged gate on the check run and in the one reply per head.
pub(crate) fn forged_words(check_name: &str, sources: &[&str]) -> String {
    let check_name = crate::engine::md::escape::inline(check_name, 200);
    let names: Vec<String> = sources
        .iter()
        .map(|s| format!("`{}`", crate::engine::md::escape::inline(s, 100)))
        .collect();
    format!(
        "Warning: a check run named `{check_name}` on this commit was not made by auditloop but by {}. \
         Branch protection that requires `{check_name}` without pinning its source accepts it. \
         In the branch protection rule or ruleset, set the required check's source to the auditloop App.",
        names.join(", ")
    )
}

/// Our newest `check_name` run among `runs`.
pub(crate) fn our_run(runs: &[CheckRunInfo], check_name: &str, bot_slug: &str) -> Option<OurRun> {
    runs.iter()
        .find(|r| {
            r.name == check_name && r.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(bot_slug)
        })
        .map(|r| OurRun {
            id: r.id,
            node: r.node_id.clone(),
            records: r
                .external_id
                .as_deref()
                .and_then(|s| CommitSha::new(s).ok()),
        })
}
