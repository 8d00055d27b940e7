//! Builders shared by the report intake tests: the valid fixture with one change applied.
#![allow(dead_code)]

use auditloop::engine::report::{parse_report, Problem, Rule};
use serde_json::Value;

pub const VALID: &str = include_str!("../../fixtures/reports/valid.json");

pub fn valid() -> Value {
    serde_json::from_str(VALID).expect("fixture is JSON")
}

/// The fixture with one change applied, as text.
pub fn changed(change: impl FnOnce(&mut Value)) -> String {
    let mut v = valid();
    change(&mut v);
    v.to_string()
}

pub fn set(pointer: &str, new: Value) -> impl FnOnce(&mut Value) + '_ {
    move |v: &mut Value| {
        *v.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer} in fixture")) = new;
    }
}

pub fn remove(pointer: &'static str) -> impl FnOnce(&mut Value) {
    move |v: &mut Value| {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
        let parent = if parent.is_empty() {
            Some(&mut *v)
        } else {
            v.pointer_mut(parent)
        };
        parent
            .and_then(Value::as_object_mut)
            .expect("parent is an object")
            .remove(key);
    }
}

pub fn problems(text: &str) -> Vec<Problem> {
    parse_report(text).expect_err("report must be refused")
}

pub fn assert_refused(text: &str, rule: Rule, path: &str) {
    let found = problems(text);
    assert!(
        found.iter().any(|p| p.rule == rule && p.path == path),
        "expected {} at {path}, got {found:#?}",
        rule.name()
    );
}
