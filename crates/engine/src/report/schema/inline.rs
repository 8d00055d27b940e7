//! The report schema as one self-contained object, every `$ref` replaced by what it names,
//! for embedding inside another schema (an MCP tool's input schema), where `#/$defs/…`
//! would point at the wrong root.

use serde_json::Value;

use super::SCHEMA;

/// The embedded report schema without `$schema`, `$id` and `$defs`, each `$ref` inlined;
/// a description beside a `$ref` wins over the one it names.
#[must_use]
pub fn inlined_schema() -> Value {
    let mut root = SCHEMA.root().clone();
    if let Some(map) = root.as_object_mut() {
        for key in ["$schema", "$id", "$defs"] {
            map.remove(key);
        }
    }
    inline(&mut root);
    root
}

fn inline(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let target = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| SCHEMA.resolve(reference))
                .cloned();
            if let Some(Value::Object(target)) = target {
                map.remove("$ref");
                for (key, value) in target {
                    map.entry(key).or_insert(value);
                }
            }
            map.values_mut().for_each(inline);
        }
        Value::Array(items) => items.iter_mut().for_each(inline),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_ref_is_left_and_descriptions_stay() {
        let schema = inlined_schema();
        assert!(!schema.to_string().contains("$ref"));
        assert!(!schema.to_string().contains("$defs"));
        let severity = &schema["properties"]["findings"]["items"]["properties"]["severity"];
        assert!(severity["enum"].is_array(), "{severity}");
        let assessment = &schema["properties"]["assessment"];
        assert_eq!(assessment["type"], "string");
        assert!(assessment["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("The overall judgement")));
    }
}
