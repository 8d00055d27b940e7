//! The README's "Your first certified pull request", followed command by command against
//! the fake GitHub: a solo trial (`allow_self_audit: true`), a PR that closes an issue,
//! `/audit new`, the packet, the example report filled from it as the README's `jq` does,
//! `validate`, `post`, and a green `audit-gate`.

use crate::cli_remote::auditloop;
use crate::support;

use serde_json::{json, Value};
use support::audit::{Loop, SHA1};
use support::deliveries::REPO;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const NEW: &str = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery has no second effect\" --evidence \"CI run 1 green\"";
const JQ: &str =
    "'. + $p[0].report.bind | .verdict = \"certified\" | .findings = [] | del(.limitations)'";

fn readme() -> String {
    std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap()
}

/// What the README's `jq` line makes of the example and the packet.
fn filled(example: &Value, packet: &Value) -> Value {
    let mut report = example.clone();
    for (k, v) in packet["report"]["bind"].as_object().unwrap() {
        report[k] = v.clone();
    }
    report["verdict"] = json!("certified");
    report["findings"] = json!([]);
    report.as_object_mut().unwrap().remove("limitations");
    report
}

fn ok(out: &std::process::Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn the_readme_shows_the_commands_this_test_runs() {
    let text = readme();
    for part in [
        "## Your first certified pull request",
        "allow_self_audit: true",
        NEW,
        "auditloop packet --repo OWNER/REPO --pr N > packet.json",
        JQ,
        "examples/report.json > report.json",
        "auditloop validate report.json",
        "auditloop post --repo OWNER/REPO --pr N report.json",
    ] {
        assert!(text.contains(part), "the README lost {part}");
    }
}

#[tokio::test]
async fn a_newcomer_following_the_readme_gets_a_green_audit_gate() {
    // 1–3: the App installed, the solo-trial setting on the default branch, a PR closing #12.
    let mut l = Loop::start(42).await;
    l.gh.set_file(".github/auditloop.yml", "allow_self_audit: true\n");
    l.pull_event("opened", 42, SHA1).await;
    assert_eq!(
        l.gate(SHA1)["conclusion"],
        "failure",
        "installed: the check fails"
    );
    // 4: the record.
    l.comment(42, "alice", NEW).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    // 5: the packet, and the example filled from it.
    let dir = tempfile::tempdir().unwrap();
    let args = ["packet", "--repo", REPO, "--pr", "42"];
    let packet: Value =
        serde_json::from_str(&ok(&auditloop(&l.gh.api_url(), dir.path(), &args).await)).unwrap();
    let example: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{ROOT}/examples/report.json")).unwrap(),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, filled(&example, &packet).to_string()).unwrap();
    let file = report.to_str().unwrap();
    // 6: validate, then post as the token's login, the PR's author.
    let said = ok(&auditloop(&l.gh.api_url(), dir.path(), &["validate", file]).await);
    assert!(
        said.contains("sha256:") || said.contains("digest"),
        "{said}"
    );
    let post = ["post", "--repo", REPO, "--pr", "42", file];
    ok(&auditloop(&l.gh.api_url(), dir.path(), &post).await);
    let body = l.gh.comments_on(42).last().unwrap().clone();
    l.comment(42, "alice", &body).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert_eq!(l.gate(SHA1)["conclusion"], "success", "{:#}", l.gate(SHA1));
}
