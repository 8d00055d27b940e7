//! Building conditions: the fixed titles of CONTRACT §8 and small constructors.

use super::model::{Condition, Outcome};
use crate::ids::TaskId;

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

pub(crate) fn title(number: u8) -> &'static str {
    TITLES
        .get(usize::from(number).wrapping_sub(1))
        .copied()
        .unwrap_or("Gate condition")
}

pub(crate) fn condition(number: u8, outcome: Outcome, reason: impl Into<String>) -> Condition {
    Condition {
        number,
        title: title(number),
        outcome,
        reason: reason.into(),
    }
}

pub(crate) fn pass(number: u8, reason: impl Into<String>) -> Condition {
    condition(number, Outcome::Pass, reason)
}

pub(crate) fn fail(number: u8, reason: impl Into<String>) -> Condition {
    condition(number, Outcome::Fail, reason)
}

/// Passes when there are no problems, else fails with all of them.
pub(crate) fn from_problems(number: u8, problems: &[String], ok: impl Into<String>) -> Condition {
    if problems.is_empty() {
        pass(number, ok)
    } else {
        fail(number, problems.join("; "))
    }
}

/// `#12, T-041`, or `none` for an empty set.
pub(crate) fn task_list<'a>(tasks: impl IntoIterator<Item = &'a TaskId>) -> String {
    let list: Vec<&str> = tasks.into_iter().map(TaskId::as_str).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}
