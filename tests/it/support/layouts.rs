//! The records branch read by the tests whichever layout it holds
//! (docs/reference.md#layout-version-2): a record at its path, the index whole.

use std::collections::BTreeMap;

use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::{
    record_md_path, record_path, report_path, shard_at, v1, INDEX_PATH, NEXT_PATH,
};
use auditloop::engine::record::{shards, Index};
use serde_json::Value;

/// The text of record `id` among `files`: at version 2's path, else at version 1's.
pub fn record_text(files: &BTreeMap<String, String>, id: &str) -> Option<String> {
    let id = AuditId::new(id).ok()?;
    files
        .get(&record_path(&id))
        .or_else(|| files.get(&v1::record_path(&id)))
        .cloned()
}

/// The whole index `files` hold: version 1's `index.json`, or `next.json` and every shard.
pub fn whole_index(files: &BTreeMap<String, String>) -> Index {
    if let Some(text) = files.get(INDEX_PATH) {
        return Index::parse(text).expect("index.json parses");
    }
    let next = files
        .get(NEXT_PATH)
        .expect("next.json on the records branch");
    let all = files.iter().filter(|(p, _)| shard_at(p).is_some());
    shards::assemble(next, all).expect("the shards assemble")
}

/// [`whole_index`] as JSON, as tests look into it.
pub fn index(files: &BTreeMap<String, String>) -> Value {
    serde_json::from_str(&whole_index(files).to_json()).expect("an index is JSON")
}

fn audit_id(id: &str) -> AuditId {
    AuditId::new(id).unwrap_or_else(|e| panic!("{id}: {e:?}"))
}

/// Version 2's path of record `id` (`records/000/AUD-7.json`).
pub fn record_file(id: &str) -> String {
    record_path(&audit_id(id))
}

/// Version 2's path of record `id` rendered for people (`records/000/AUD-7.md`).
pub fn record_md_file(id: &str) -> String {
    record_md_path(&audit_id(id))
}

/// Version 2's path of run `run` of record `id` (`reports/000/AUD-7/run-1.json`).
pub fn report_file(id: &str, run: u32) -> String {
    report_path(&audit_id(id), run)
}
