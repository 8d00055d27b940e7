//! A whole audit loop on one pull request, through the real server and a fake GitHub that
//! keeps git data: open, /audit new, a `needs_remediation` report, a waiver and a `file`
//! disposition, a push, a certified report on the new head, and the gate passing.

use crate::support;

use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::layouts::report_file;

#[tokio::test]
async fn a_full_loop_certifies_the_new_head() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "no record yet: {gate:#}");

    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"").await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    assert_eq!(record["candidate_artifact"], format!("commit:{SHA1}"));
    assert_eq!(record["covered_tasks"], serde_json::json!(["#12"]));

    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let files = l.files();
    assert!(files.contains_key(&report_file("AUD-1", 1)));
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure");
    let annotations = gate["output"]["annotations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !annotations.is_empty(),
        "findings with path:line become annotations: {gate:#}"
    );

    l.comment(
        42,
        "maint",
        "/audit waive A-02 --basis triage-threshold --reason \"cosmetic, below the triage bar\"",
    )
    .await;
    l.comment(
        42,
        "maint",
        "/audit dispose A-01 file --note \"tracked separately\"",
    )
    .await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.gh.state().issues.len(), 1, "one tech-debt issue");
    assert_eq!(
        l.gh.state().issues[0]["labels"],
        serde_json::json!(["tech-debt"])
    );

    let body = l.gh.pull_body(42);
    assert!(
        body.starts_with("Adds webhook replay protection.\n\nCloses #12\n"),
        "human text kept: {body}"
    );
    for marker in [
        "auditloop:rounds:start",
        "auditloop:waivers:end",
        "auditloop:residual:start",
    ] {
        assert!(body.contains(marker), "{marker} in {body}");
    }

    // A push rebinds the record to the new head and gets a new check run there.
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA2}")
    );
    assert_eq!(l.gate(SHA2)["conclusion"], "failure");

    l.comment(
        42,
        "alice",
        "/audit baseline --evidence \"CI run 2 green on the new head\"",
    )
    .await;
    let second = report("AUD-1", 42, SHA2, "ci-run-2", "certified");
    let mut second = second;
    second["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["id"] == "A-02");
    l.comment(42, "auditor", &report_comment(&second)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));

    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "certified");
    assert_eq!(record["certification_grade"], "session_reported");
    let gate = l.gate(SHA2);
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
    assert!(
        gate["external_id"].as_str().is_some_and(|s| s.len() == 40),
        "records commit in external_id"
    );

    // Every change is one commit on one linear branch, each ending [skip ci].
    let log =
        l.gh.branch_log(support::deliveries::REPO, support::audit::BRANCH);
    assert_eq!(log.len(), 7, "{log:#?}");
    assert!(log.iter().all(|m| m.trim_end().ends_with("[skip ci]")));
    assert_eq!(
        l.reactions(),
        6,
        "a +1 for each of the six commands carried out"
    );
}
