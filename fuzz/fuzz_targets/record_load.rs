//! The record loader (`records/AUD-n.json`) with its history chain.
//!
//! Every input is loaded as written, and once more with the chain recomputed (each
//! event's `prev` set to the digest of the one before), so that mutations reach the shape,
//! canonical-form and replay checks behind the chain. Properties: never panics; a loaded
//! record writes back to JSON that loads as the same record, byte-stable.
#![no_main]

use auditloop::engine::record::{event_digest, load_record, to_json, verify_chain};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn check(text: &str) {
    let Ok(record) = load_record(text) else {
        return;
    };
    let written = to_json(&record);
    let again = load_record(&written).expect("a record auditloop wrote loads again");
    assert_eq!(again, record);
    assert_eq!(to_json(&again), written, "to_json is stable");
}

fuzz_target!(|text: &str| {
    check(text);

    let Ok(mut value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let Some(history) = value.get_mut("history").and_then(Value::as_array_mut) else {
        return;
    };
    for i in 1..history.len() {
        let digest = event_digest(&history[i - 1]);
        if let Some(event) = history[i].as_object_mut() {
            event.insert("prev".to_owned(), Value::String(digest));
        }
    }
    if let Some(first) = history.first_mut().and_then(Value::as_object_mut) {
        first.insert("prev".to_owned(), Value::Null);
    }
    let _ = verify_chain(history);
    check(&value.to_string());
});
