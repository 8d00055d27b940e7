//! The commands of the table in docs/reference.md#commands that create, bind and report, and the read-only
//! ones, carried out once each through the real server: the `+1` reaction, the change on
//! the records branch, and the replies of `status` and `help` (the maintainer commands are
//! in `loop_commands_triage.rs`).

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::layouts::{record_file, record_md_file, report_file};
use support::steps::{handoff_comment, new_command, GOAL};

#[tokio::test]
async fn new_takes_covered_tasks_from_closing_keywords() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let record = l.record("AUD-1");
    assert_eq!(record["work_unit"], "pr:42");
    assert_eq!(record["covered_tasks"], json!(["#12"]));
    assert_eq!(record["candidate_artifact"], format!("commit:{SHA1}"));
    assert_eq!(record["audit_budget"], 3, "the repository default");
    assert_eq!(record["audit_state"], "open");
    assert_eq!(record["goal"], GOAL);
    assert_eq!(record["evidence"]["for"], format!("commit:{SHA1}"));
    assert_eq!(l.event_types(), ["created"]);
    assert_eq!(l.last_event()["actor"], "alice");
    assert_eq!(l.last_event()["delivery"], "loop-2");
    let index = l.index();
    assert_eq!(index["pulls"]["42"], "AUD-1");
    assert_eq!(index["work_units"]["pr:42"], "AUD-1");
    let files = l.files();
    assert!(files.contains_key(&record_md_file("AUD-1")), "{files:?}");
}

#[tokio::test]
async fn new_with_a_work_unit_and_covered_tasks() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.ok(
        "alice",
        &new_command("--work-unit phase:4 --covered-tasks \"T-041,#12\""),
        true,
    )
    .await;
    let record = l.record("AUD-1");
    assert_eq!(record["work_unit"], "phase:4");
    assert_eq!(record["covered_tasks"], json!(["#12", "T-041"]));
    assert_eq!(l.index()["work_units"]["phase:4"], "AUD-1");
}

#[tokio::test]
async fn adopt_moves_a_closed_records_history_and_budget_to_a_new_pr() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.gh.close_pull(42, false);
    l.pull_event("closed", 42, SHA1).await;
    l.gh.add_pull(43, SHA2, "Second try.\n\nCloses #12\n", "alice");
    l.pull_event("opened", 43, SHA2).await;

    let before = l.mark();
    l.comment(43, "maint", "/audit adopt AUD-1").await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    let after = l.mark();
    assert_eq!(after.reactions, before.reactions + 1);
    assert_eq!(after.commits, before.commits + 1);

    let record = l.record("AUD-1");
    assert_eq!(record["pull_request"], 43);
    assert_eq!(record["work_unit"], "pr:42", "the work unit carries over");
    assert_eq!(record["audit_budget"], 3);
    assert_eq!(record["candidate_artifact"], format!("commit:{SHA2}"));
    assert_eq!(l.event_types(), ["created", "report", "baseline"]);
    assert_eq!(l.index()["pulls"]["43"], "AUD-1");
    // The adopted run still counts: a second report on the new PR is run 2.
    let mut second = report("AUD-1", 42, SHA2, "ci-run-2", "needs_remediation");
    second["work_unit"] = json!("pr:42");
    l.comment(43, "auditor", &report_comment(&second)).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    assert_eq!(l.last_event()["run"], 2);
}

#[tokio::test]
async fn report_appends_a_run_and_a_fresh_check_run() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let runs = l.gh.gate_runs(SHA1).len();
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.ok("auditor", &report_comment(&r), true).await;
    let record = l.record("AUD-1");
    assert_eq!(record["latest_verdict"], "needs_remediation");
    assert_eq!(record["audit_state"], "open");
    let run = l.last_event();
    assert_eq!(run["type"], "report");
    assert_eq!(run["run"], 1);
    assert_eq!(run["invocation_ref"], "ci-run-1");
    assert_eq!(run["grade"], "session_reported");
    assert!(run["report_digest"]
        .as_str()
        .is_some_and(|d| d.starts_with("sha256:")));
    let stored = &l.files()[&report_file("AUD-1", 1)];
    let stored: serde_json::Value = serde_json::from_str(stored).unwrap();
    assert_eq!(stored["invocation"]["ref"], "ci-run-1");
    assert_eq!(l.index()["invocations"]["ci-run-1"], "AUD-1");
    assert_eq!(l.gh.gate_runs(SHA1).len(), runs + 1, "a new check run");
}

#[tokio::test]
async fn handoff_fail_is_a_needs_remediation_run() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.ok(
        "auditor",
        &handoff_comment("FAIL", "plan-audit-1", SHA1),
        true,
    )
    .await;
    let run = l.last_event();
    assert_eq!(run["type"], "report");
    assert_eq!(run["verdict"], "needs_remediation");
    assert_eq!(run["run"], 1);
    assert_eq!(l.record("AUD-1")["latest_verdict"], "needs_remediation");
}

#[tokio::test]
async fn handoff_error_is_an_invocation_failure_using_no_budget() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.ok(
        "auditor",
        &handoff_comment("ERROR", "plan-audit-1", SHA1),
        true,
    )
    .await;
    assert_eq!(l.event_types(), ["created", "invocation_failure"]);
    let record = l.record("AUD-1");
    assert!(record["latest_verdict"].is_null(), "{record:#}");
    assert_eq!(l.index()["invocations"]["plan-audit-1"], "AUD-1");
    // No budget used: the next report is run 1.
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.last_event()["run"], 1);
}

#[tokio::test]
async fn handoff_blocked_awaits_a_human() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.ok(
        "auditor",
        &handoff_comment("BLOCKED", "plan-audit-1", SHA1),
        true,
    )
    .await;
    assert_eq!(l.last_event()["verdict"], "needs_human_decision");
    assert_eq!(l.record("AUD-1")["audit_state"], "awaiting_human");
    assert_eq!(l.gate(SHA1)["conclusion"], "action_required");
}

#[tokio::test]
async fn a_listed_auditor_reports_without_repository_permission() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "permissions:\n  auditors: [ci-auditor]\n",
    );
    l.with_record().await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.ok("ci-auditor", &report_comment(&r), true).await;
    assert_eq!(l.last_event()["actor"], "ci-auditor");
}

#[tokio::test]
async fn a_writer_may_lower_the_budget() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.ok("alice", &new_command("--budget 2"), true).await;
    assert_eq!(l.record("AUD-1")["audit_budget"], 2);
}

#[tokio::test]
async fn baseline_rebinds_to_the_head() {
    let mut l = Loop::start(42).await;
    l.with_run("certified").await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    l.gh.set_pull_head(42, SHA2);
    l.ok(
        "alice",
        "/audit baseline --evidence \"CI run 2 green on the new head\"",
        true,
    )
    .await;
    let record = l.record("AUD-1");
    assert_eq!(record["candidate_artifact"], format!("commit:{SHA2}"));
    assert_eq!(record["audit_state"], "open", "certification went stale");
    assert_eq!(record["evidence"]["for"], format!("commit:{SHA2}"));
    assert_eq!(l.last_event()["type"], "baseline");
    assert_eq!(record["audit_budget"], 3);
}

#[tokio::test]
async fn status_replies_with_the_record_and_gate() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.ok("reader", "/audit status", false).await;
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: status"), "{reply}");
    assert!(reply.contains(&record_file("AUD-1")), "{reply}");
    assert!(reply.contains("1 of 3"), "{reply}");
    insta::assert_snapshot!("loop_status_reply", reply);
}

#[tokio::test]
async fn gate_updates_the_check_run() {
    let mut l = Loop::start(42).await;
    l.with_run("certified").await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    let runs = l.gh.gate_runs(SHA1).len();
    // The repository starts requiring a CI check; `/audit gate` re-evaluates without any
    // other event, first failing on the missing check, then passing once it succeeded.
    l.gh.set_file(
        ".github/auditloop.yml",
        "evidence:\n  required_checks: [test]\n",
    );
    l.ok("reader", "/audit gate", false).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    assert!(
        gate["output"]["summary"].to_string().contains("test"),
        "{gate:#}"
    );
    l.gh.add_ci_check(SHA1, "test", "completed", Some("success"));
    l.ok("reader", "/audit gate", false).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    assert_eq!(l.gh.gate_runs(SHA1).len(), runs, "updated, not created");
}

#[tokio::test]
async fn status_and_help_answer_on_a_closed_pr_and_an_invalid_configuration() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.gh.close_pull(42, false);
    l.gh.set_file(".github/auditloop.yml", "audit_budget: three\n");
    for command in ["/audit status", "/audit help"] {
        l.ok("reader", command, false).await;
        assert!(l.refusals(42).is_empty(), "{command}: {}", l.last_reply(42));
    }
    assert_eq!(l.replies(42).len(), 2, "one reply each");
}

#[tokio::test]
async fn help_replies_with_the_table() {
    let mut l = Loop::start(42).await;
    l.ok("reader", "/audit help", false).await;
    let reply = l.last_reply(42);
    assert!(
        reply.contains(&auditloop::commands::help_table()),
        "{reply}"
    );
    assert!(
        reply.ends_with("<!-- auditloop:delivery:loop-1 -->"),
        "{reply}"
    );
    insta::assert_snapshot!("loop_help_reply", reply);
}

/// A comment whose payload carries no GraphQL id (an older GitHub Enterprise Server, say):
/// its +1 goes through REST, beside the mutation that carries the body and the check run,
/// and both land.
#[tokio::test]
async fn a_comment_without_a_node_id_gets_its_body_and_its_plus_one_through_rest() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let before = l.gh.requests().len();
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let mut payload = support::deliveries::pr_comment(42, "maint", veto);
    payload["comment"]
        .as_object_mut()
        .unwrap()
        .remove("node_id");
    let comment = payload["comment"]["id"].as_u64().unwrap();
    l.deliver("issue_comment", &payload).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let calls: Vec<String> = l.gh.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(
        calls.iter().any(|c| c.ends_with("/reactions")),
        "{calls:#?}"
    );
    assert!(
        calls
            .iter()
            .any(|c| c.contains("/graphql/updatePullRequest") && !c.contains("addReaction")),
        "{calls:#?}"
    );
    assert!(l.gh.pull_body(42).contains("webhook-replay"));
    assert!(l.gh.state().reactions.contains(&(comment, "+1".to_owned())));
}

/// With node ids, a command's body update, +1 and check run are one GraphQL mutation, and
/// no REST call does any of them.
#[tokio::test]
async fn a_command_gets_its_body_and_its_plus_one_in_one_mutation() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let before = l.gh.requests().len();
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let payload = support::deliveries::pr_comment(42, "maint", veto);
    let comment = payload["comment"]["id"].as_u64().unwrap();
    l.deliver("issue_comment", &payload).await;
    let calls: Vec<String> = l.gh.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    let mutations = calls
        .iter()
        .filter(|c| c.ends_with("/graphql/updatePullRequest,addReaction,updateCheckRun"))
        .count();
    assert_eq!(mutations, 1, "{calls:#?}");
    assert!(
        !calls.iter().any(|c| c.ends_with("/reactions")
            || c.contains("/check-runs")
            || c.starts_with("PATCH ") && c.ends_with("/pulls/42")),
        "{calls:#?}"
    );
    assert!(l.gh.pull_body(42).contains("webhook-replay"));
    assert!(l.gh.state().reactions.contains(&(comment, "+1".to_owned())));
}
