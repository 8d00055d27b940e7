//! JSON parsing that refuses repeated keys. `serde_json::Value` keeps the last of two equal
//! keys silently; another reader could keep the first, so a report with `"verdict"` twice
//! would mean different things to different programs. We refuse it instead.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses one JSON document, refusing a key repeated within an object.
pub(crate) fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("key {key:?} appears twice")));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_strict;
    use serde_json::json;

    #[test]
    fn parses_like_serde_json() {
        let text = r#"{"a": [1, -2, 2.5, "x", null, true, {"b": {}}]}"#;
        assert_eq!(
            parse_strict(text).ok(),
            serde_json::from_str::<serde_json::Value>(text).ok()
        );
        assert_eq!(parse_strict("[]").ok(), Some(json!([])));
    }

    #[test]
    fn refuses_repeated_keys_at_any_depth() {
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"x": [{"b": 1, "c": 2, "b": 3}]}"#,
        ] {
            let err = parse_strict(text).expect_err(text).to_string();
            assert!(err.contains("appears twice"), "{err}");
        }
    }

    #[test]
    fn refuses_trailing_garbage() {
        assert!(parse_strict("{} {}").is_err());
        assert!(parse_strict("{\"a\":").is_err());
    }
}
