//! What the gate returns: every condition with its outcome and a reason, and the conclusion.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
    /// Holds so far, but waits for a required evidence check still queued or running.
    Pending,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Condition {
    /// 1..=9, as numbered in CONTRACT §8.
    pub number: u8,
    pub title: &'static str,
    pub outcome: Outcome,
    /// What a maintainer reads: why it holds or what is missing.
    pub reason: String,
}

/// The check-run result. `InProgress` keeps the run `in_progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    Success,
    Failure,
    ActionRequired,
    Neutral,
    InProgress,
}

impl Conclusion {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::ActionRequired => "action_required",
            Conclusion::Neutral => "neutral",
            Conclusion::InProgress => "in_progress",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateResult {
    pub conditions: Vec<Condition>,
    pub conclusion: Conclusion,
    /// A few words for the check run's title.
    pub title: String,
}
