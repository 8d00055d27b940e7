//! The pattern library and the Lessons end to end (docs/reference.md#learning-across-audits): a certification after a
//! blocking finding creates the pattern in the commit that certifies; a later record with
//! the same key is marked recurring on its check run and updates the pattern; a blocked
//! record counts as seen; `patterns: false` writes none; Lessons appear in `AUD-n.md`.

use serde_json::{json, Value};

use crate::support;
use support::audit::{report, report_comment, Loop, SHA1};
use support::layouts::record_md_file;

const SHA3: &str = "3333333333333333333333333333333333333333";
const SHA4: &str = "4444444444444444444444444444444444444444";

/// A report on `sha` for `audit`: with `replay`, the fixture's blocking `webhook-replay`
/// finding; without it, only the keyless low finding, certifying.
fn run(audit: &str, pr: u64, sha: &str, invocation: &str, replay: bool) -> Value {
    let verdict = if replay {
        "needs_remediation"
    } else {
        "certified"
    };
    let mut r = report(audit, pr, sha, invocation, verdict);
    // Each PR covers its own task: a second record of #12 would overlap the first.
    r["covered_tasks"] = json!([task_of(pr)]);
    if replay {
        return r;
    }
    r["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f.get("key").is_none());
    r
}

fn patterns(l: &Loop) -> Option<Value> {
    l.files()
        .get("patterns.json")
        .map(|t| serde_json::from_str(t).unwrap())
}

fn task_of(pr: u64) -> String {
    if pr == 42 {
        "#12".to_owned()
    } else {
        format!("#{pr}")
    }
}

async fn open_record(l: &mut Loop, pr: u64, sha: &str, extra: &str) {
    if pr != 42 {
        let body = format!("Hardens intake.\n\nCloses {}\n", task_of(pr));
        l.gh.add_pull(pr, sha, &body, "alice");
    }
    l.pull_event("opened", pr, sha).await;
    let new = format!("/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"{extra}");
    l.comment(pr, "alice", &new).await;
    assert!(l.refusals(pr).is_empty(), "{:?}", l.refusals(pr));
}

async fn post(l: &mut Loop, pr: u64, r: &Value) {
    l.comment(pr, "auditor", &report_comment(r)).await;
    assert!(l.refusals(pr).is_empty(), "{:?}", l.refusals(pr));
}

/// Where a test run leaves what it wrote, for people to read (`target/patterns-example/`).
fn keep_example(name: &str, text: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/patterns-example");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

#[tokio::test]
async fn patterns_are_learned_marked_and_counted_across_records() {
    let mut l = Loop::start(42).await;
    open_record(&mut l, 42, SHA1, "").await;
    post(&mut l, 42, &run("AUD-1", 42, SHA1, "ci-run-1", true)).await;
    assert!(
        patterns(&l).is_none(),
        "nothing is learned before a record ends"
    );
    assert!(!l.files()[&record_md_file("AUD-1")].contains("## Lessons"));

    // The certification and the new pattern are one commit.
    let commits = l.log_len();
    post(&mut l, 42, &run("AUD-1", 42, SHA1, "ci-run-2", false)).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert_eq!(l.log_len(), commits + 1);
    let library = patterns(&l).expect("the certifying commit writes patterns.json");
    assert_eq!(library["schema_version"], 1);
    let p = &library["patterns"][0];
    assert_eq!(p["key"], "webhook-replay");
    assert_eq!(
        p["title"],
        "A delivery id already handled is processed again when redelivered within the dedup window."
    );
    assert_eq!(
        (p["seen"].clone(), p["resolved"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(p["severity"], "high");
    assert_eq!(p["records"], json!(["AUD-1"]));
    let md = &l.files()[&record_md_file("AUD-1")];
    assert!(md.contains("## Lessons"), "{md}");
    assert!(
        md.contains("`webhook-replay` (high): raised in run 1, resolved in run 2."),
        "{md}"
    );
    assert!(md.contains("`webhook-replay`: created; seen 1"), "{md}");
    assert!(!l.record_text("AUD-1").contains("Lessons"));

    // Another PR raises the same key: its check run marks it recurring, linked.
    open_record(&mut l, 43, SHA3, "").await;
    post(&mut l, 43, &run("AUD-2", 43, SHA3, "ci-run-43-1", true)).await;
    let gate = l.gate(SHA3);
    let mark = "recurring: seen in 1 earlier record ([AUD-1](https://github.com/octo-org/hello/blob/auditloop-records/records/000/AUD-1.json))";
    for part in ["summary", "text"] {
        let text = gate["output"][part].as_str().unwrap_or_default();
        assert!(text.contains(mark), "{part}: {text}");
    }
    keep_example(
        "check-run-summary.md",
        gate["output"]["summary"].as_str().unwrap(),
    );
    post(&mut l, 43, &run("AUD-2", 43, SHA3, "ci-run-43-2", false)).await;
    let p = &patterns(&l).unwrap()["patterns"][0];
    assert_eq!(
        (p["seen"].clone(), p["resolved"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(p["records"], json!(["AUD-2", "AUD-1"]));
    assert!(l.files()[&record_md_file("AUD-2")].contains("`webhook-replay`: updated; seen 2"));

    // A third runs out of budget with the key still raised: seen, not resolved.
    open_record(&mut l, 44, SHA4, " --budget 1").await;
    let commits = l.log_len();
    post(&mut l, 44, &run("AUD-3", 44, SHA4, "ci-run-44-1", true)).await;
    assert_eq!(l.record("AUD-3")["audit_state"], "blocked");
    assert_eq!(l.log_len(), commits + 1);
    let gate = l.gate(SHA4);
    let text = gate["output"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("recurring: seen in 2 earlier records ([AUD-2]("),
        "{text}"
    );
    let library = patterns(&l).unwrap();
    let p = &library["patterns"][0];
    assert_eq!(
        (p["seen"].clone(), p["resolved"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(p["success_rate"], json!(0.667));
    assert_eq!(p["records"], json!(["AUD-3", "AUD-2", "AUD-1"]));
    let md = l.files()[&record_md_file("AUD-3")].clone();
    assert!(md.contains("Blocked after run 1: 1 of 1 runs used"), "{md}");
    assert!(
        md.contains("`webhook-replay`: updated; seen 3, resolved 2"),
        "{md}"
    );

    // What a real run wrote, for people to read.
    let files = l.files();
    keep_example("patterns.json", &files["patterns.json"]);
    for id in ["AUD-1", "AUD-3"] {
        let md = &files[&record_md_file(id)];
        let lessons = &md[md.find("## Lessons").unwrap()..];
        keep_example(&format!("{id}-lessons.md"), lessons);
    }
}

#[tokio::test]
async fn with_patterns_off_no_library_is_written() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(".github/auditloop.yml", "patterns: false\n");
    open_record(&mut l, 42, SHA1, "").await;
    post(&mut l, 42, &run("AUD-1", 42, SHA1, "ci-run-1", true)).await;
    post(&mut l, 42, &run("AUD-1", 42, SHA1, "ci-run-2", false)).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert!(patterns(&l).is_none(), "{:?}", l.files().keys());
    let md = &l.files()[&record_md_file("AUD-1")];
    assert!(md.contains("## Lessons"), "{md}");
    assert!(
        md.contains("No pattern library is kept (`patterns: false`)."),
        "{md}"
    );
}
