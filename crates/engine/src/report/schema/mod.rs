//! A checker for the JSON Schema keywords `auditor_report_v1` uses, run over the embedded
//! copy of the schema, so the schema file stays the single statement of the shape. Unlike a
//! general validator it reports every violation with a plain path (`findings[0].claim`),
//! and it knows that an empty or template text (`$defs/text`) is a placeholder.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::problem::{child_path, index_path};
use crate::text::is_placeholder;

mod hints;
mod inline;

pub use inline::inlined_schema;

/// The schema as shipped in `schema/`.
pub const SCHEMA_TEXT: &str = include_str!("../../../../../schema/auditor_report_v1.schema.json");

/// The `$ref` whose strings are free text subject to the placeholder rule.
const TEXT_REF: &str = "#/$defs/text";

/// One place where the document departs from the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub(crate) path: String,
    /// The schema keyword that failed, or `placeholder`.
    pub keyword: &'static str,
    pub message: String,
}

/// Every place where `document` departs from the embedded schema, checked as given (no
/// trimming or normalization first): the shape check on its own, for tools and tests.
pub fn shape_violations(document: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    SCHEMA.check(document, SCHEMA.root(), "", &mut out);
    out
}

pub(crate) struct Schema {
    root: Value,
    patterns: HashMap<String, Regex>,
}

/// The embedded schema, parsed once. It is a constant of the build, so failing to parse it
/// is a build defect that the tests catch, not an input error.
pub(crate) static SCHEMA: LazyLock<Schema> = LazyLock::new(|| {
    let root: Value = serde_json::from_str(SCHEMA_TEXT).expect("embedded schema is JSON");
    let mut patterns = HashMap::new();
    collect_patterns(&root, &mut patterns);
    Schema { root, patterns }
});

fn collect_patterns(node: &Value, out: &mut HashMap<String, Regex>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                if let (true, Some(p)) = (key == "pattern", value.as_str()) {
                    out.insert(
                        p.to_owned(),
                        Regex::new(p).expect("embedded schema pattern"),
                    );
                } else {
                    collect_patterns(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_patterns(v, out)),
        _ => {}
    }
}

impl Schema {
    pub(crate) fn root(&self) -> &Value {
        &self.root
    }

    /// The schema node a local `$ref` (`#/$defs/name`) points to.
    pub(crate) fn resolve(&self, reference: &str) -> Option<&Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }

    /// Checks `value` at `path` against `node`, appending every violation.
    pub(crate) fn check(&self, value: &Value, node: &Value, path: &str, out: &mut Vec<Violation>) {
        let Some(node) = node.as_object() else { return };
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            if reference == TEXT_REF {
                if let Some(s) = value.as_str().filter(|s| is_placeholder(s)) {
                    let shown = s.chars().take(40).collect::<String>();
                    out.push(violation(
                        path,
                        "placeholder",
                        format!("{shown:?} is a placeholder; write the actual text"),
                    ));
                    return;
                }
            }
            match self.resolve(reference) {
                Some(target) => self.check(value, target, path, out),
                None => out.push(violation(
                    path,
                    "$ref",
                    format!("schema reference {reference} is missing"),
                )),
            }
        }
        if let Some(expected) = node.get("const") {
            if value != expected {
                out.push(violation(path, "const", format!("must be {expected}")));
                return;
            }
        }
        if let Some(Value::Array(allowed)) = node.get("enum") {
            if !allowed.contains(value) {
                let list = allowed
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(violation(
                    path,
                    "enum",
                    format!(
                        "must be one of {list}, got {}{}",
                        brief(value),
                        hints::enum_suggestion(value, allowed)
                    ),
                ));
                return;
            }
        }
        // `type` is one name or a list of names (any of which will do).
        let kinds: Vec<&str> = match node.get("type") {
            Some(Value::String(kind)) => vec![kind.as_str()],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !kinds.is_empty() && !kinds.iter().any(|kind| has_type(value, kind)) {
            let wanted = kinds
                .iter()
                .map(|kind| format!("{} {kind}", article(kind)))
                .collect::<Vec<_>>()
                .join(" or ");
            out.push(violation(
                path,
                "type",
                format!("must be {wanted}, got {}", kind_of(value)),
            ));
            return;
        }
        match value {
            Value::String(s) => self.check_string(s, node, path, out),
            Value::Number(_) => check_number(value, node, path, out),
            Value::Array(items) => self.check_array(items, node, path, out),
            Value::Object(map) => self.check_object(map, node, path, out),
            Value::Null | Value::Bool(_) => {}
        }
    }

    fn check_string(
        &self,
        s: &str,
        node: &Map<String, Value>,
        path: &str,
        out: &mut Vec<Violation>,
    ) {
        let chars = s.chars().count();
        if let Some(min) = node.get("minLength").and_then(Value::as_u64) {
            if (chars as u64) < min {
                out.push(violation(
                    path,
                    "minLength",
                    format!("must have at least {min} characters"),
                ));
            }
        }
        if let Some(max) = node.get("maxLength").and_then(Value::as_u64) {
            if chars as u64 > max {
                out.push(violation(
                    path,
                    "maxLength",
                    format!("must have at most {max} characters, has {chars}"),
                ));
            }
        }
        if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
            // Patterns of the embedded schema are compiled once; any other (a sub-schema
            // built in code) is compiled here, and an invalid one matches nothing.
            let matched = match self.patterns.get(pattern) {
                Some(re) => re.is_match(s),
                None => Regex::new(pattern).is_ok_and(|re| re.is_match(s)),
            };
            if !matched {
                out.push(violation(
                    path,
                    "pattern",
                    hints::pattern_mismatch(&brief_str(s), pattern),
                ));
            }
        }
        if node.get("format").and_then(Value::as_str) == Some("date-time")
            && chrono::DateTime::parse_from_rfc3339(s).is_err()
        {
            out.push(violation(
                path,
                "format",
                format!("{} is not an RFC 3339 date-time", brief_str(s)),
            ));
        }
    }

    fn check_array(
        &self,
        items: &[Value],
        node: &Map<String, Value>,
        path: &str,
        out: &mut Vec<Violation>,
    ) {
        if let Some(min) = node.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                out.push(violation(
                    path,
                    "minItems",
                    format!("must have at least {min} item(s)"),
                ));
            }
        }
        if let Some(item_schema) = node.get("items") {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &index_path(path, i), out);
            }
        }
    }

    fn check_object(
        &self,
        map: &Map<String, Value>,
        node: &Map<String, Value>,
        path: &str,
        out: &mut Vec<Violation>,
    ) {
        let empty = Map::new();
        let properties = node
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        if let Some(Value::Array(required)) = node.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    out.push(violation(
                        &child_path(path, name),
                        "required",
                        "required field is missing",
                    ));
                }
            }
        }
        let closed = node.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, value) in map {
            match properties.get(key) {
                Some(property) => self.check(value, property, &child_path(path, key), out),
                None if closed => out.push(violation(
                    &child_path(path, key),
                    "additionalProperties",
                    hints::unknown_field(key, properties),
                )),
                None => {}
            }
        }
    }
}

fn check_number(value: &Value, node: &Map<String, Value>, path: &str, out: &mut Vec<Violation>) {
    let Some(n) = value.as_f64() else { return };
    if let Some(min) = node.get("minimum").and_then(Value::as_f64) {
        if n < min {
            out.push(violation(
                path,
                "minimum",
                format!("must be at least {min}, got {value}"),
            ));
        }
    }
    if let Some(max) = node.get("maximum").and_then(Value::as_f64) {
        if n > max {
            out.push(violation(
                path,
                "maximum",
                format!("must be at most {max}, got {value}"),
            ));
        }
    }
}

fn violation(path: &str, keyword: &'static str, message: impl Into<String>) -> Violation {
    Violation {
        path: path.to_owned(),
        keyword,
        message: message.into(),
    }
}

/// Integers are whole JSON numbers without a fraction part in the text (`1`, not `1.0`),
/// because the typed model reads them into integer fields.
fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn article(kind: &str) -> &'static str {
    if matches!(kind, "array" | "object" | "integer") {
        "an"
    } else {
        "a"
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short rendering of a value for messages: reports can hold 20,000-character texts.
fn brief(value: &Value) -> String {
    match value {
        Value::String(s) => brief_str(s),
        other => {
            let text = other.to_string();
            if text.chars().count() > 60 {
                format!("{}…", text.chars().take(60).collect::<String>())
            } else {
                text
            }
        }
    }
}

fn brief_str(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{:?}…", s.chars().take(60).collect::<String>())
    } else {
        format!("{s:?}")
    }
}

#[cfg(test)]
mod tests;
