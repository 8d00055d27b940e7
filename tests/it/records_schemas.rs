//! The published schemas of the records branch and the packet (`schema/`): each is a valid
//! draft 2020-12 schema, the app's own defaults match them, and the check the fake GitHub
//! runs on every written file refuses what breaks them. That everything a loop writes
//! matches is checked by the fake itself, in every test.

use crate::support;

use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::{shard_at, shard_path, IndexMap};
use auditloop::engine::packet::{packet, PacketSource, StoredReports};
use auditloop::engine::packet_context;
use auditloop::engine::packet_delta::{changed_since, packet_patterns};
use auditloop::engine::patterns::Library;
use auditloop::engine::record::shards::{layout_json, next_json, split, written};
use auditloop::engine::record::{load_record, Index};
use serde_json::{json, Value};
use support::audit::{Loop, SHA1};
use support::schemas::{self, check_written};

#[test]
fn every_schema_file_is_a_valid_draft_2020_12_schema() {
    for (name, text) in schemas::ALL {
        let schema: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        assert_eq!(
            schema["$id"],
            format!("https://auditloop.dev/schema/{name}.schema.json"),
            "{name}"
        );
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{name} is not a valid schema: {e} at {}", e.instance_path());
        }
        schemas::compile(name, text);
        assert!(
            schema["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{name} says what it describes"
        );
    }
}

/// A schema file added to `schema/` is checked here too.
#[test]
fn every_file_under_schema_is_checked() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schema");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut checked: Vec<String> = schemas::ALL
        .into_iter()
        .map(|(name, _)| format!("{name}.schema.json"))
        .collect();
    checked.sort();
    assert_eq!(on_disk, checked);
}

/// The packet schema holds its own copy of the pattern, so that it stands alone.
#[test]
fn the_packet_lists_patterns_as_the_library_stores_them() {
    let packet: Value = serde_json::from_str(schemas::PACKET).unwrap();
    let patterns: Value = serde_json::from_str(schemas::PATTERNS).unwrap();
    assert_eq!(packet["$defs"]["pattern"], patterns["$defs"]["pattern"]);
}

#[test]
fn an_empty_index_and_library_match_their_schemas() {
    assert_eq!(
        check_written("index.json", &Index::default().to_json()),
        Ok(())
    );
    assert_eq!(
        check_written("patterns.json", &Library::default().to_json()),
        Ok(())
    );
    assert_eq!(
        check_written("records/AUD-1.md", "# not JSON"),
        Ok(()),
        "no schema"
    );
}

/// The first record a loop writes, as text.
async fn written_record() -> (Loop, String) {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let text = l.record_text("AUD-1");
    (l, text)
}

/// A change to a stored file's JSON.
type Edit = fn(&mut Value);

fn edited(text: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(text).unwrap();
    edit(&mut value);
    value.to_string()
}

#[tokio::test]
async fn a_written_record_that_breaks_its_schema_is_refused() {
    let (_l, text) = written_record().await;
    let path = "records/AUD-1.json";
    assert_eq!(check_written(path, &text), Ok(()));

    let cases: [(&str, Edit, &str); 8] = [
        (
            "a required field missing",
            |v| {
                v.as_object_mut().unwrap().remove("goal");
            },
            "\"goal\" is a required property",
        ),
        (
            "a field of its event kind missing",
            |v| {
                v["history"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("audit_budget");
            },
            "\"audit_budget\" is a required property",
        ),
        (
            "a field no version writes",
            |v| v["history"][0]["note"] = json!("added"),
            "note",
        ),
        (
            "an absent value left out instead of `null`",
            |v| {
                v.as_object_mut().unwrap().remove("latest_verdict");
            },
            "latest_verdict",
        ),
        (
            "a short SHA",
            |v| v["candidate_artifact"] = json!("commit:1111111"),
            "/candidate_artifact",
        ),
        (
            "a state outside the closed set",
            |v| v["audit_state"] = json!("done"),
            "/audit_state",
        ),
        (
            "another schema version",
            |v| v["schema_version"] = json!(2),
            "/schema_version",
        ),
        (
            "a history that does not start with `created`",
            |v| v["history"][0]["type"] = json!("veto"),
            "/history/0",
        ),
    ];
    for (what, edit, expected) in cases {
        let err = check_written(path, &edited(&text, edit)).expect_err(what);
        assert!(
            err.starts_with("records/AUD-1.json (record_v1):") && err.contains(expected),
            "{what}: {err}"
        );
    }
    let err = check_written(path, "{").unwrap_err();
    assert!(err.contains("not JSON"), "{err}");
}

#[tokio::test]
async fn a_written_index_that_breaks_its_schema_is_refused() {
    use auditloop::engine::layout::NEXT_PATH;
    let (l, _) = written_record().await;
    let files = l.files();
    let next = files[NEXT_PATH].clone();
    assert_eq!(check_written(NEXT_PATH, &next), Ok(()));
    let err = check_written(
        NEXT_PATH,
        &edited(&next, |v| {
            v.as_object_mut().unwrap().remove("next");
        }),
    )
    .unwrap_err();
    assert!(err.contains("\"next\" is a required property"), "{err}");
    let pulls = shard_path(IndexMap::Pulls, "42");
    let shard = files[&pulls].clone();
    assert_eq!(check_written(&pulls, &shard), Ok(()));
    let err = check_written(&pulls, &edited(&shard, |v| v["42"] = json!("AUD-0"))).unwrap_err();
    assert!(err.contains("/42"), "{err}");
    // A version-1 index a test seeds is checked as one.
    let v1 = Index::default().to_json();
    let err = check_written(
        "index.json",
        &edited(&v1, |v| v["pulls"]["42"] = json!("AUD-0")),
    )
    .unwrap_err();
    assert!(err.contains("/pulls/42"), "{err}");
}

#[tokio::test]
async fn a_packet_that_breaks_its_schema_is_refused() {
    let (l, text) = written_record().await;
    let record = load_record(&text).unwrap();
    let head =
        l.gh.branch_head(support::deliveries::REPO, support::audit::BRANCH);
    let source = PacketSource {
        records_branch: support::audit::BRANCH,
        records_commit: head.as_deref(),
    };
    let mut p = packet(&record, &StoredReports::new(), &source);
    p["changed_since"] = changed_since(&record, None);
    p["patterns"] = packet_patterns(None);
    p["tasks"] = packet_context::tasks(&record.covered_tasks, &|_| None);
    p["checks"] = packet_context::checks(&["test".to_owned()], None);
    p["decisions"] = packet_context::decisions("docs/decisions", &[]);
    assert_eq!(schemas::check_packet(&p), Ok(()));

    let mut missing = p.clone();
    missing.as_object_mut().unwrap().remove("next_run");
    let err = schemas::check_packet(&missing).unwrap_err();
    assert!(err.contains("\"next_run\" is a required property"), "{err}");
    let mut unknown = p;
    unknown["budget"]["runs_spent"] = json!(0);
    let err = schemas::check_packet(&unknown).unwrap_err();
    assert!(err.contains("runs_spent"), "{err}");
}

/// `text` checked against the layout-2 schema `name`, errors said as the fake says them.
fn check_layout_2(name: &str, text: &str) -> Result<(), String> {
    let file = match name {
        "layout" => "layout_v1",
        "next" => "next_v1",
        _ => "index_shard_v1",
    };
    let (_, schema) = schemas::ALL.iter().find(|(n, _)| *n == file).unwrap();
    let validator = schemas::compile(name, schema);
    let value: Value = serde_json::from_str(text).map_err(|e| format!("{name}: not JSON: {e}"))?;
    let found: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}: {}", found.join("; ")))
    }
}

/// An index with a key in every map, the size of a small repository's.
fn index_of_every_map() -> Index {
    let mut index = Index {
        next: 301,
        ..Index::default()
    };
    for n in 1..=300_u64 {
        let id = AuditId::from_number(n);
        index.work_units.insert(format!("pr:{n}"), id.clone());
        index.pulls.insert(n.to_string(), id.clone());
        index
            .invocations
            .insert(format!("ci-run-{n}-1"), id.clone());
        index.receipts.insert(format!("b1946ac9-{n}"), id.clone());
        index.tasks.insert(format!("#{n}"), id);
    }
    index
}

#[test]
fn layout_2_files_as_the_app_writes_them_match_their_schemas() {
    assert_eq!(check_layout_2("layout", &layout_json()), Ok(()));
    let files = split(&index_of_every_map());
    assert_eq!(check_layout_2("next", &files["next.json"]), Ok(()));
    assert_eq!(check_layout_2("next", &next_json(8)), Ok(()));
    let shards: Vec<(&String, &String)> = files
        .iter()
        .filter(|(p, _)| shard_at(p).is_some())
        .collect();
    assert!(shards.len() > 1_000, "{}", shards.len());
    for (path, text) in shards {
        assert_eq!(check_layout_2("index-shard", text), Ok(()), "{path}");
    }
    // The worked example of docs/reference.md#layout-version-2.
    let path = shard_path(IndexMap::Pulls, "42");
    assert_eq!(path, "index/pulls/73/4.json");
    assert_eq!(
        shard_path(IndexMap::WorkUnits, "pr:42"),
        "index/work_units/62/5.json"
    );
    // A shard whose last key is removed is written as `{}`.
    let mut base = Index::default();
    base.pulls.insert("42".into(), AuditId::from_number(7));
    let emptied = written(&base, &Index::default()).files[&path].clone();
    assert_eq!(emptied.trim(), "{}");
    assert_eq!(check_layout_2("index-shard", &emptied), Ok(()));
}

#[test]
fn layout_2_files_that_break_their_schemas_are_refused() {
    let cases: [(&str, &str, &str, &str); 10] = [
        (
            "layout",
            "no version",
            "{}",
            "\"version\" is a required property",
        ),
        (
            "layout",
            "version 1, which has no marker",
            r#"{"version": 1}"#,
            "/version",
        ),
        (
            "layout",
            "a version as text",
            r#"{"version": "2"}"#,
            "/version",
        ),
        ("next", "no number", "{}", "\"next\" is a required property"),
        ("next", "record 0", r#"{"next": 0}"#, "/next"),
        (
            "next",
            "version 1's index.json",
            r#"{"next": 8, "pulls": {"42": "AUD-7"}}"#,
            "pulls",
        ),
        ("index-shard", "not an object", r#"["AUD-7"]"#, "object"),
        ("index-shard", "record 0", r#"{"42": "AUD-0"}"#, "/42"),
        (
            "index-shard",
            "a number for a record",
            r#"{"42": 7}"#,
            "/42",
        ),
        (
            "index-shard",
            "an empty key",
            r#"{"": "AUD-7"}"#,
            "shorter than 1 character",
        ),
    ];
    for (name, what, text, expected) in cases {
        let err = check_layout_2(name, text).expect_err(what);
        assert!(
            err.starts_with(&format!("{name}: ")) && err.contains(expected),
            "{name}, {what}: {err}"
        );
    }
    // And what each accepts, beside what it refuses.
    assert_eq!(
        check_layout_2("layout", r#"{"version": 3}"#),
        Ok(()),
        "a later layout"
    );
    assert_eq!(check_layout_2("next", r#"{"next": 1}"#), Ok(()));
    assert_eq!(check_layout_2("index-shard", r#"{"42": "AUD-7"}"#), Ok(()));
}
