//! Normalization and digest (docs/reference.md#normalization-and-digest), and the RFC 8785 canonicalizer on the RFC's
//! own examples.

use auditloop::engine::report::{digest, normalize_report, normalize_value, parse_report, Report};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const VALID: &str = include_str!("../fixtures/reports/valid.json");

fn jcs(text: &str) -> String {
    let value: Value = serde_json::from_str(text).expect("JSON");
    String::from_utf8(serde_json_canonicalizer::to_vec(&value).expect("canonical")).expect("UTF-8")
}

/// RFC 8785 §3.2.2: literals, number formatting (ECMAScript), string escaping.
#[test]
fn rfc8785_sample_input() {
    let input = r#"{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"#;
    let expected = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
    assert_eq!(jcs(input), expected);
}

/// RFC 8785 §3.2.3: properties sorted by UTF-16 code units (the emoji's surrogates sort
/// before U+FB33, unlike by code point).
#[test]
fn rfc8785_property_sorting() {
    let input = r#"{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"#;
    let expected = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
    assert_eq!(jcs(input), expected);
}

/// RFC 8785 Appendix B: IEEE 754 values and their canonical text.
#[test]
fn rfc8785_number_table() {
    let cases = [
        ("0", "0"),
        ("-0", "0"),
        ("1", "1"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("9007199254740992", "9007199254740992"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("295147905179352830000", "295147905179352830000"),
        ("333333333.3333332", "333333333.3333332"),
    ];
    for (input, expected) in cases {
        assert_eq!(
            jcs(&format!("[{input}]")),
            format!("[{expected}]"),
            "{input}"
        );
    }
}

#[test]
fn canonical_bytes_are_what_the_digest_hashes() {
    let intake = parse_report(VALID).expect("valid");
    let text = String::from_utf8(intake.canonical.clone()).expect("UTF-8");
    assert!(text.starts_with("{\"assessment\":"), "keys sorted: {text}");
    assert!(
        !text.contains('\n') || text.contains("\\n"),
        "no insignificant white space"
    );
    let expected = format!("sha256:{}", sha256_hex(&intake.canonical));
    assert_eq!(intake.digest.as_str(), expected);
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn typed_and_value_normalization_agree() {
    let raw: Value = serde_json::from_str(VALID).expect("JSON");
    let mut padded = raw.clone();
    pad_strings(&mut padded);
    let from_value = normalize_value(&raw);
    let typed: Report = serde_json::from_value(padded).expect("typed");
    let from_typed = serde_json::to_value(normalize_report(typed)).expect("value");
    assert_eq!(from_typed, from_value);
}

/// Pads free texts with white space and CRLFs (ids must stay valid, so only long texts).
fn pad_strings(v: &mut Value) {
    match v {
        Value::String(s) if s.contains(' ') => {
            *s = format!(" \r\n\t{}\r\n ", s.replace('\n', "\r\n"));
        }
        Value::Array(items) => items.iter_mut().for_each(pad_strings),
        Value::Object(map) => map.values_mut().for_each(pad_strings),
        _ => {}
    }
}

/// Re-serializes a value with object keys in an order chosen by `seed`.
fn shuffled_text(v: &Value, seed: u64, pretty: bool, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            let n = entries.len().max(1) as u64;
            entries.rotate_left(usize::try_from(seed % n).unwrap());
            if seed % 2 == 1 {
                entries.reverse();
            }
            out.push('{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if pretty {
                    out.push_str("\n  ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(if pretty { ": " } else { ":" });
                shuffled_text(val, seed.wrapping_mul(31).wrapping_add(7), pretty, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(if pretty { ", " } else { "," });
                }
                shuffled_text(item, seed.wrapping_add(i as u64), pretty, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[ \\r\\n\\ta-z<>.…]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #[test]
    fn normalization_is_idempotent(v in arbitrary_json(), tasks in prop::collection::vec("[ #A-Z0-9-]{0,6}", 0..6), ids in prop::collection::vec("[ A0-9-]{0,5}", 0..6)) {
        let mut v = v;
        if let Value::Object(map) = &mut v {
            map.insert("covered_tasks".into(), json!(tasks));
            map.insert("findings".into(), Value::Array(ids.into_iter().map(|id| json!({"id": id})).collect()));
            map.insert("receipt".into(), json!({"x": 1}));
        }
        let once = normalize_value(&v);
        prop_assert_eq!(normalize_value(&once), once.clone());
        prop_assert!(once.get("receipt").is_none());
    }

    #[test]
    fn digest_ignores_key_order_and_white_space(seed in any::<u64>(), pretty in any::<bool>(), pad in "[ \\t\\r\\n]{0,3}") {
        let raw: Value = serde_json::from_str(VALID).expect("JSON");
        let mut text = String::new();
        shuffled_text(&raw, seed, pretty, &mut text);
        let text = format!("{pad}{text}{pad}");
        let reparsed = parse_report(&text).expect("same report, other layout");
        let original = parse_report(VALID).expect("valid");
        prop_assert_eq!(reparsed.digest, original.digest);
    }

    #[test]
    fn digest_ignores_surrounding_white_space_and_order_of_lists(rotate in 0usize..2, pad in "[ \\t]{0,3}") {
        let mut v: Value = serde_json::from_str(VALID).expect("JSON");
        if let Some(Value::Array(f)) = v.get_mut("findings") { f.rotate_left(rotate); }
        if let Some(Value::Array(t)) = v.get_mut("covered_tasks") { t.push(json!("#12")); t.rotate_left(rotate); }
        if let Some(Value::String(s)) = v.get_mut("assessment") { *s = format!("{pad}{s}\r\n"); }
        let changed = parse_report(&v.to_string()).expect("valid");
        let original = parse_report(VALID).expect("valid");
        prop_assert_eq!(&changed.digest, &original.digest);
        prop_assert_eq!(digest(&changed.report), original.digest);
    }
}

#[test]
fn a_change_of_content_changes_the_digest() {
    let mut v: Value = serde_json::from_str(VALID).expect("JSON");
    v["assessment"] = json!("A different assessment of the same change.");
    let changed = parse_report(&v.to_string()).expect("valid");
    assert_ne!(changed.digest, parse_report(VALID).expect("valid").digest);
}
