//! Two open PRs sharing the head H share one check run: it passes only if every gate passes.

use super::result::{Conclusion, Condition, GateResult};
use crate::ids::PrNumber;
use crate::md;
use crate::md::Md;

/// Worst first: a failure outweighs everything, success nothing.
fn severity(conclusion: Conclusion) -> u8 {
    match conclusion {
        Conclusion::Failure => 4,
        Conclusion::ActionRequired => 3,
        Conclusion::InProgress => 2,
        Conclusion::Neutral => 1,
        Conclusion::Success => 0,
    }
}

/// Each PR's conditions are kept, their reasons prefixed with the PR; the conclusion is the
/// worst, and the title names the PR that holds the check back.
#[must_use]
pub fn combine(results: &[(PrNumber, GateResult)]) -> GateResult {
    let Some((worst_pr, worst)) = results.iter().max_by_key(|(_, r)| severity(r.conclusion)) else {
        return GateResult {
            conditions: Vec::new(),
            conclusion: Conclusion::Failure,
            title: Md::lit("No gate to combine"),
        };
    };
    if let [(_, only)] = results {
        return only.clone();
    }
    let conditions = results
        .iter()
        .flat_map(|(pr, r)| {
            r.conditions.iter().map(move |c| Condition {
                reason: md!("PR {}: {}", pr, c.reason),
                ..c.clone()
            })
        })
        .collect();
    let title = if worst.conclusion == Conclusion::Success {
        worst.title.clone()
    } else {
        md!("PR {}: {}", worst_pr, worst.title)
    };
    GateResult {
        conditions,
        conclusion: worst.conclusion,
        title,
    }
}
