//! The published schemas of the records branch and of the packet (`schema/`), each compiled
//! once, and the check the fake GitHub runs on every file the app writes to the records
//! branch: what the app writes must be what the schemas promise readers.

use std::sync::LazyLock;

use jsonschema::Validator;
use serde_json::Value;

pub const RECORD: &str = include_str!("../../../schema/record_v1.schema.json");
pub const INDEX: &str = include_str!("../../../schema/index_v1.schema.json");
pub const PATTERNS: &str = include_str!("../../../schema/patterns_v1.schema.json");
pub const PACKET: &str = include_str!("../../../schema/packet_v1.schema.json");
pub const REPORT: &str = include_str!("../../../schema/auditor_report_v1.schema.json");
pub const LAYOUT: &str = include_str!("../../../schema/layout_v1.schema.json");
pub const NEXT: &str = include_str!("../../../schema/next_v1.schema.json");
pub const SHARD: &str = include_str!("../../../schema/index_shard_v1.schema.json");

/// Every schema file, by name.
pub const ALL: [(&str, &str); 8] = [
    ("record_v1", RECORD),
    ("index_v1", INDEX),
    ("patterns_v1", PATTERNS),
    ("packet_v1", PACKET),
    ("auditor_report_v1", REPORT),
    ("layout_v1", LAYOUT),
    ("next_v1", NEXT),
    ("index_shard_v1", SHARD),
];

pub fn compile(name: &str, text: &str) -> Validator {
    let schema: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{name} compiles: {e}"))
}

static RECORD_V1: LazyLock<Validator> = LazyLock::new(|| compile("record_v1", RECORD));
static INDEX_V1: LazyLock<Validator> = LazyLock::new(|| compile("index_v1", INDEX));
static PATTERNS_V1: LazyLock<Validator> = LazyLock::new(|| compile("patterns_v1", PATTERNS));
static PACKET_V1: LazyLock<Validator> = LazyLock::new(|| compile("packet_v1", PACKET));

static LAYOUT_V1: LazyLock<Validator> = LazyLock::new(|| compile("layout_v1", LAYOUT));
static NEXT_V1: LazyLock<Validator> = LazyLock::new(|| compile("next_v1", NEXT));
static SHARD_V1: LazyLock<Validator> = LazyLock::new(|| compile("index_shard_v1", SHARD));

/// The schema of a file at `path` on the records branch, if it has one: layout version 2's
/// files, and version 1's that a test seeds.
fn schema_of(path: &str) -> Option<(&'static str, &'static Validator)> {
    use auditloop::engine::layout::{self as l, record_at, shard_at};
    let record =
        record_at(path).is_some() || l::v1::moved(path).is_some_and(|to| record_at(&to).is_some());
    match path {
        l::INDEX_PATH => Some(("index_v1", &INDEX_V1)),
        l::PATTERNS_PATH => Some(("patterns_v1", &PATTERNS_V1)),
        l::LAYOUT_PATH => Some(("layout_v1", &LAYOUT_V1)),
        l::NEXT_PATH => Some(("next_v1", &NEXT_V1)),
        _ if record => Some(("record_v1", &RECORD_V1)),
        _ if shard_at(path).is_some() => Some(("index_shard_v1", &SHARD_V1)),
        _ => None,
    }
}

fn errors(validator: &Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .take(8)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// Checks `content` written at `path` of the records branch against the schema of that
/// path (files without one pass): `Err` names the path, the schema and what breaks it.
pub fn check_written(path: &str, content: &str) -> Result<(), String> {
    let Some((name, validator)) = schema_of(path) else {
        return Ok(());
    };
    let value: Value =
        serde_json::from_str(content).map_err(|e| format!("{path} ({name}): not JSON: {e}"))?;
    let found = errors(validator, &value);
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{path} ({name}): {}", found.join("; ")))
    }
}

/// Checks a packet as `auditloop packet` prints it.
pub fn check_packet(packet: &Value) -> Result<(), String> {
    let found = errors(&PACKET_V1, packet);
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("packet (packet_v1): {}", found.join("; ")))
    }
}

/// Panics with every way `packet` breaks `packet_v1`.
pub fn assert_packet(packet: &Value) {
    if let Err(e) = check_packet(packet) {
        panic!("{e}\n{packet:#}");
    }
}
