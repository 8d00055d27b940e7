//! The walker against the embedded schema and against each keyword alone.
use super::*;

/// Keywords the checker understands; a schema using any other fails the tests.
const KNOWN_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "$ref",
    "type",
    "const",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "items",
    "required",
    "properties",
    "additionalProperties",
    "minimum",
    "maximum",
    "format",
];

fn keywords_used(node: &Value, in_properties: bool, out: &mut Vec<String>) {
    if let Value::Object(map) = node {
        for (key, value) in map {
            // Names under `properties` and `$defs` are field names, not keywords.
            if !in_properties {
                out.push(key.clone());
            }
            keywords_used(
                value,
                !in_properties && (key == "properties" || key == "$defs"),
                out,
            );
        }
    }
}

#[test]
fn embedded_schema_uses_only_understood_keywords() {
    let mut used = Vec::new();
    keywords_used(SCHEMA.root(), false, &mut used);
    for keyword in used {
        assert!(
            KNOWN_KEYWORDS.contains(&keyword.as_str()),
            "schema keyword {keyword} is not checked"
        );
    }
    assert!(!SCHEMA.patterns.is_empty());
}

#[test]
fn every_ref_resolves() {
    for name in ["text", "finding", "receipt"] {
        assert!(
            SCHEMA.resolve(&format!("#/$defs/{name}")).is_some(),
            "{name}"
        );
    }
}

#[test]
fn keyword_violations() {
    let node = serde_json::json!({
        "type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {
            "a": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^x"},
            "n": {"type": "integer", "minimum": 1, "maximum": 5},
            "l": {"type": "array", "minItems": 1, "items": {"enum": ["p"]}},
            "c": {"const": 1},
            "t": {"type": "string", "format": "date-time"},
            "u": {"type": ["string", "null"]}
        }
    });
    let cases: &[(Value, &str, &str)] = &[
        (serde_json::json!({}), "a", "required"),
        (
            serde_json::json!({"a": "xy", "z": 1}),
            "z",
            "additionalProperties",
        ),
        (serde_json::json!({"a": null}), "a", "type"),
        (serde_json::json!({"a": "x"}), "a", "minLength"),
        (serde_json::json!({"a": "xyzw"}), "a", "maxLength"),
        (serde_json::json!({"a": "yy"}), "a", "pattern"),
        (serde_json::json!({"a": "xy", "n": 0}), "n", "minimum"),
        (serde_json::json!({"a": "xy", "n": 6}), "n", "maximum"),
        (serde_json::json!({"a": "xy", "n": 2.0}), "n", "type"),
        (serde_json::json!({"a": "xy", "l": []}), "l", "minItems"),
        (serde_json::json!({"a": "xy", "l": ["q"]}), "l[0]", "enum"),
        (serde_json::json!({"a": "xy", "c": 2}), "c", "const"),
        (serde_json::json!({"a": "xy", "u": 1}), "u", "type"),
        (
            serde_json::json!({"a": "xy", "t": "yesterday"}),
            "t",
            "format",
        ),
    ];
    for (value, path, keyword) in cases {
        let mut out = Vec::new();
        SCHEMA.check(value, &node, "$", &mut out);
        assert_eq!(out.len(), 1, "{value}: {out:?}");
        assert_eq!(
            (out[0].path.as_str(), out[0].keyword),
            (*path, *keyword),
            "{value}"
        );
    }
    let mut out = Vec::new();
    SCHEMA.check(
        &serde_json::json!({"a": "xy", "n": 3, "l": ["p"], "c": 1, "t": "2026-01-01T00:00:00Z", "u": null}),
        &node,
        "$",
        &mut out,
    );
    assert!(out.is_empty(), "{out:?}");
}
