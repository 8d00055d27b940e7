//! The published schemas of the records branch and the packet (`schema/`): each is a valid
//! draft 2020-12 schema, the app's own defaults match them, and the check the fake GitHub
//! runs on every written file refuses what breaks them. That everything a loop writes
//! matches is checked by the fake itself, in every test.

use crate::support;

use auditloop::engine::packet::{packet, PacketSource, StoredReports};
use auditloop::engine::packet_context;
use auditloop::engine::packet_delta::{changed_since, packet_patterns};
use auditloop::engine::patterns::Library;
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
    let text = l.files()["records/AUD-1.json"].clone();
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
    let (l, _) = written_record().await;
    let text = l.files()["index.json"].clone();
    assert_eq!(check_written("index.json", &text), Ok(()));
    let err = check_written(
        "index.json",
        &edited(&text, |v| {
            v.as_object_mut().unwrap().remove("next");
        }),
    )
    .unwrap_err();
    assert!(err.contains("\"next\" is a required property"), "{err}");
    let err = check_written(
        "index.json",
        &edited(&text, |v| v["pulls"]["42"] = json!("AUD-0")),
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
