//! The review mutations the app sends, as the fake saw them: per call, the threads its
//! `addPullRequestReview` asked for, the threads it resolved and unresolved, and GitHub's
//! errors. What the fake kept is in `Data::reviews`; this is what was asked, so the two can
//! be compared (a refused review asks threads that are never kept).

use serde_json::Value;

/// One GraphQL call carrying review mutations.
#[derive(Debug, Clone, Default)]
pub struct ReviewCall {
    pub delivery: Option<String>,
    /// Threads asked for by `addPullRequestReview` inputs.
    pub posted: usize,
    pub resolved: usize,
    pub reopened: usize,
    /// The answer's GraphQL errors, as `type: message`.
    pub errors: Vec<String>,
}

/// How many times `field(` is called in `text`, as a whole name (so `resolveReviewThread`
/// does not count `unresolveReviewThread`).
fn calls(text: &str, field: &str) -> usize {
    let wanted = format!("{field}(");
    text.match_indices(&wanted)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .count()
}

/// What a GraphQL call `request` (sent for `delivery`) asked of reviews, with its
/// `answer`'s errors; `None` for a call asking nothing of them.
pub fn note((request, delivery): (&Value, Option<&str>), answer: &Value) -> Option<ReviewCall> {
    let text = request["query"].as_str().unwrap_or_default();
    let reviews = calls(text, "addPullRequestReview");
    let resolved = calls(text, "resolveReviewThread");
    let reopened = calls(text, "unresolveReviewThread");
    if reviews + resolved + reopened == 0 {
        return None;
    }
    // A review's input is a variable holding the pull request and its threads.
    let posted = request["variables"]
        .as_object()
        .into_iter()
        .flat_map(|vars| vars.values())
        .filter(|v| v.get("pullRequestId").is_some())
        .filter_map(|v| v["threads"].as_array().map(Vec::len))
        .sum();
    let errors = answer["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| format!("{}: {}", e["type"].as_str().unwrap_or("-"), e["message"]))
        .collect();
    Some(ReviewCall {
        delivery: delivery.map(str::to_owned),
        posted,
        resolved,
        reopened,
        errors,
    })
}
