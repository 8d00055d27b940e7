//! What the gate returns: every condition with its outcome and a reason, and the conclusion.

use serde::Serialize;

use crate::md::Md;

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
    /// 1..=9, as numbered in docs/reference.md#gate-conditions.
    pub number: u8,
    pub title: &'static str,
    pub outcome: Outcome,
    /// What a maintainer reads: why it holds or what is missing, and what moves it.
    pub reason: Md,
    /// A condition that fails only because condition N does: it moves when N does, so
    /// the views show it as waiting, not as a cause of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waits_on: Option<u8>,
}

const TITLES: [&str; 9] = [
    "One valid audit record",
    "Candidate is the head commit",
    "Covered tasks are exact",
    "Verdict and state certify",
    "Certification matches the last run",
    "No unresolved blocking finding",
    "Limitations have an authority",
    "Evidence exists for the head",
    "Grade meets the assurance policy",
];

impl Condition {
    /// The title of condition `number`, in sentence case, as every view shows it.
    #[must_use]
    pub(crate) fn title_of(number: u8) -> &'static str {
        TITLES
            .get(usize::from(number).wrapping_sub(1))
            .copied()
            .unwrap_or("Gate condition")
    }

    /// Fails for a reason of its own.
    #[must_use]
    pub(crate) fn is_root_cause(&self) -> bool {
        self.outcome != Outcome::Pass && self.waits_on.is_none()
    }
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
    /// The verdict line with the next step: the check run's title and the summary's lead.
    pub title: Md,
}
