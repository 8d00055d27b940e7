//! Rules where the seeds are stricter than a loop would be by itself
//! (docs/reference.md#slash-commands, docs/reference.md#gate-conditions): a baseline never
//! takes another record's tasks, a veto beats an earlier disposition, no audit before its
//! evidence, a reopened task leaves the certification stale, and a stored report is
//! checked at every grade. (The placeholder auditor: `action_local.rs`; the packet of
//! tasks that are no issues: `cli_packet_context.rs`; receipts' bindings:
//! `gate_run_conditions.rs`.)

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::{issue_reopened, REPO};
use support::layouts::report_file;
use support::steps::new_command;

const CONFIG: &str = ".github/auditloop.yml";

fn condition(gate: &Value, n: u8) -> String {
    gate["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .find(|l| l.contains(&format!("**{n}. ")))
        .unwrap_or_default()
        .to_owned()
}

/// PR 42 (`Closes #12`) certified on SHA1.
async fn certified() -> Loop {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    l
}

#[tokio::test]
async fn a_baseline_does_not_take_a_task_another_unfinished_record_covers() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    // PR 43 has its own record, for T-050.
    l.gh.add_pull(43, SHA2, "Second try.\n", "alice");
    l.pull_event("opened", 43, SHA2).await;
    l.gh.set_permission("lead", "write");
    l.comment(43, "lead", &new_command("--covered-tasks T-050"))
        .await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    let commits = l.log_len();
    // Taking AUD-1's #12 through a baseline would give it AUD-2's fresh budget.
    l.comment(
        43,
        "lead",
        "/audit baseline --covered-tasks \"T-050,#12\" --evidence \"CI run 7 green\"",
    )
    .await;
    let reply = l.last_reply(43);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    for part in ["`task-overlap`", "#12", "AUD-1", "/audit adopt AUD-1"] {
        assert!(reply.contains(part), "names {part}: {reply}");
    }
    assert_eq!(l.log_len(), commits, "nothing recorded");
    assert_eq!(l.index()["tasks"]["#12"], "AUD-1");
    insta::assert_snapshot!("refusal_task_overlap_on_baseline", reply);
    // Its own tasks it may rebind as before.
    l.comment(
        43,
        "lead",
        "/audit baseline --covered-tasks \"T-050,T-051\" --evidence \"CI run 7 green\"",
    )
    .await;
    assert_eq!(l.log_len(), commits + 1, "{}", l.last_reply(43));
}

#[tokio::test]
async fn a_veto_makes_an_earlier_disposition_fix_and_the_views_show_what_it_was() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok(
        "maint",
        "/audit dispose A-01 reject --note \"Replays cannot happen behind the proxy\"",
        true,
    )
    .await;
    l.ok(
        "maint",
        "/audit veto webhook-replay --reason \"Replay must be fixed\"",
        true,
    )
    .await;
    // The record still holds what was said, and the views show what is in force.
    let body = l.gh.pull_body(42);
    assert!(body.contains("(veto; was reject)"), "{body}");
    // A confirming `fix` is no longer `already-disposed`.
    l.ok(
        "maint",
        "/audit dispose A-01 fix --note \"Fixing the replay check\"",
        true,
    )
    .await;
    let last = l.last_event();
    assert_eq!(last["type"], "disposition", "{last:#}");
    assert_eq!(last["disposition"], "fix", "{last:#}");
}

#[tokio::test]
async fn a_report_before_the_required_checks_succeed_is_refused_and_spends_nothing() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(CONFIG, "evidence:\n  required_checks: [test, lint]\n");
    l.pull_event("opened", 42, SHA1).await;
    l.ok("alice", &new_command(""), true).await;
    l.gh.add_ci_check(SHA1, "test", "in_progress", None);
    l.gh.add_ci_check(SHA1, "lint", "completed", Some("failure"));
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&r)).await;
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    for part in [
        "`no-evidence`",
        "`test` (still running)",
        "`lint` (failure)",
    ] {
        assert!(reply.contains(part), "names {part}: {reply}");
    }
    assert_eq!(l.log_len(), commits, "nothing recorded, no run spent");
    insta::assert_snapshot!("refusal_no_evidence", reply);

    // Once both succeed on the candidate, the same report is accepted as run 1.
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    l.gh.add_ci_check(SHA1, "lint", "completed", Some("success"));
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
}

#[tokio::test]
async fn with_evidence_text_only_a_report_is_accepted_and_the_gate_waits_for_it() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    // A push rebinds the record: the evidence given was for SHA1.
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    let r = report("AUD-1", 42, SHA2, "ci-run-1", "certified");
    l.ok("auditor", &report_comment(&r), true).await;
    let gate = l.gate(SHA2);
    assert_eq!(gate["conclusion"], "failure");
    assert!(condition(&gate, 8).contains('❌'), "{gate:#}");
    l.ok(
        "maint",
        "/audit baseline --evidence \"CI run 2 green\"",
        true,
    )
    .await;
    assert!(condition(&l.gate(SHA2), 8).contains('✅'));
}

#[tokio::test]
async fn a_reopened_covered_task_leaves_the_certification_stale_until_a_baseline() {
    let mut l = certified().await;
    let commits = l.log_len();
    // An issue no record covers, and a pull request reopened, change nothing.
    l.deliver("issues", &issue_reopened(77, "maint")).await;
    let mut pull = issue_reopened(12, "maint");
    pull["issue"]["pull_request"] =
        json!({"url": format!("https://api.github.com/repos/{REPO}/pulls/12")});
    l.deliver("issues", &pull).await;
    assert_eq!(l.log_len(), commits);

    let reopened = issue_reopened(12, "maint");
    let delivery = l.deliver("issues", &reopened).await;
    assert_eq!(l.log_len(), commits + 1, "one records write");
    let event = l.last_event();
    assert_eq!(event["type"], "task_reopened", "{event:#}");
    assert_eq!(event["task"], "#12");
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let row = condition(&gate, 3);
    assert!(
        row.contains('❌') && row.contains("#12") && row.contains("reopened"),
        "{row}"
    );
    // The same delivery again writes nothing more.
    let again = l.app.deliver("issues", &delivery, &reopened).await;
    assert_eq!(again.status(), 200);
    assert_eq!(l.log_len(), commits + 1);

    // A baseline clears the certification: a new run must certify the candidate.
    l.ok(
        "maint",
        "/audit baseline --evidence \"CI run 9 green\"",
        true,
    )
    .await;
    let record = l.record("AUD-1");
    assert_eq!(
        record["audit_state"],
        "open",
        "{:?} {record:#}",
        l.event_types()
    );
    assert!(!condition(&l.gate(SHA1), 3).contains("reopened"));
    let r = report("AUD-1", 42, SHA1, "ci-run-2", "certified");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
}

#[tokio::test]
async fn a_session_reported_certifications_stored_report_is_checked_against_its_digest() {
    let mut l = certified().await;
    let path = report_file("AUD-1", 1);
    let path = path.as_str();
    let mut stored: Value = serde_json::from_str(&l.files()[path]).unwrap();
    stored["assessment"] = json!("Everything is fine, trust me.");
    let edited = serde_json::to_string_pretty(&stored).unwrap() + "\n";
    l.gh.commit_files(
        REPO,
        "auditloop-records",
        &[(path, &edited)],
        "edit a report",
    );
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let row = condition(&gate, 9);
    assert!(
        row.contains("no longer has the digest the run recorded"),
        "{row}"
    );
}
