//! Building conditions: the fixed titles of docs/reference.md#gate-conditions and small constructors.

use super::result::{Condition, Outcome};
use crate::ids::TaskId;
use crate::md::Md;

pub(crate) fn title(number: u8) -> &'static str {
    Condition::title_of(number)
}

/// A condition of docs/reference.md#gate-conditions. `pub` so that tests can build gate results as the gate does.
pub fn condition(number: u8, outcome: Outcome, reason: impl Into<Md>) -> Condition {
    Condition {
        number,
        title: title(number),
        outcome,
        reason: reason.into(),
        waits_on: None,
    }
}

pub(crate) fn pass(number: u8, reason: impl Into<Md>) -> Condition {
    condition(number, Outcome::Pass, reason)
}

pub(crate) fn fail(number: u8, reason: impl Into<Md>) -> Condition {
    condition(number, Outcome::Fail, reason)
}

/// Passes when there are no problems, else fails with all of them.
pub(crate) fn from_problems(number: u8, problems: &[Md], ok: impl Into<Md>) -> Condition {
    if problems.is_empty() {
        pass(number, ok)
    } else {
        fail(number, Md::join(problems, "; "))
    }
}

/// `#12, T-041`, or `none` for an empty set.
pub(crate) fn task_list<'a>(tasks: impl IntoIterator<Item = &'a TaskId>) -> Md {
    let list: Vec<Md> = tasks.into_iter().map(|t| Md::text(t.as_str())).collect();
    if list.is_empty() {
        Md::lit("none")
    } else {
        Md::join(&list, ", ")
    }
}
