//! The gate through whole loops on GitHub (docs/reference.md#gate-conditions): a human decision, an
//! exhausted budget and its override, edits of the PR body and of its base, two PRs on one
//! head, and the certified check run's summary.

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1};
use support::layouts::report_file;

/// A report on `AUD-1` of PR 42 at SHA1 with `verdict` and invocation `inv`.
fn run(inv: &str, verdict: &str) -> String {
    let mut r = report("AUD-1", 42, SHA1, inv, verdict);
    if verdict == "needs_human_decision" {
        // An auditor cannot accept a limitation in anyone's name: it asks for the decision.
        r["limitations"][0]
            .as_object_mut()
            .unwrap()
            .remove("authority");
    }
    report_comment(&r)
}

/// A refusal landed as the newest reply, naming `what`, with nothing recorded.
fn assert_refused(l: &Loop, before: usize, what: &str) {
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    assert!(reply.contains(what), "names {what:?}: {reply}");
    assert_eq!(l.log_len(), before, "nothing recorded on a refusal");
}

async fn opened_with_record() -> Loop {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    l
}

#[tokio::test]
async fn a_human_decision_holds_the_gate_until_resolved() {
    let mut l = opened_with_record().await;
    l.comment(42, "auditor", &run("ci-run-1", "needs_human_decision"))
        .await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "awaiting_human");
    assert_eq!(record["latest_verdict"], "needs_human_decision");
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "action_required", "{gate:#}");

    let before = l.log_len();
    l.comment(42, "auditor", &run("ci-run-2", "needs_remediation"))
        .await;
    assert_refused(&l, before, "awaiting");
    assert_eq!(l.record("AUD-1")["history"].as_array().unwrap().len(), 2);

    l.comment(
        42,
        "maint",
        "/audit resolve --note \"Replay protection stays in scope; fix it here\"",
    )
    .await;
    assert_eq!(l.refusals(42).len(), 1, "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open", "resolution never certifies");
    let last = record["history"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["type"], "resolution");
    assert_eq!(last["actor"], "maint");
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");

    // Once resolved, the loop goes on: the next report is accepted.
    l.comment(42, "auditor", &run("ci-run-2", "needs_remediation"))
        .await;
    assert_eq!(l.refusals(42).len(), 1, "{:?}", l.refusals(42));
    assert!(l.files().contains_key(&report_file("AUD-1", 2)));
}

#[tokio::test]
async fn an_exhausted_budget_blocks_until_overridden() {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\" --budget 2").await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.record("AUD-1")["audit_budget"], 2);

    for inv in ["ci-run-1", "ci-run-2"] {
        l.comment(42, "auditor", &run(inv, "needs_remediation"))
            .await;
    }
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "blocked");
    assert_eq!(record["audit_blocked_reason"], "audit_budget_exhausted");
    assert_eq!(record["latest_verdict"], "needs_remediation");
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");

    let before = l.log_len();
    l.comment(42, "auditor", &run("ci-run-3", "needs_remediation"))
        .await;
    assert_refused(&l, before, "budget");

    // Only a maintainer overrides, and not the PR's author.
    l.comment(
        42,
        "alice",
        "/audit override --budget 4 --note \"One more round\"",
    )
    .await;
    assert_refused(&l, before, "override");

    l.comment(
        42,
        "maint",
        "/audit override --budget 4 --note \"One more round for the replay fix\"",
    )
    .await;
    assert_eq!(l.refusals(42).len(), 2, "{:?}", l.refusals(42));
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open");
    assert_eq!(record["audit_budget"], 4);

    l.comment(42, "auditor", &run("ci-run-3", "needs_remediation"))
        .await;
    assert_eq!(l.refusals(42).len(), 2, "{:?}", l.refusals(42));
    assert!(l.files().contains_key(&report_file("AUD-1", 3)));
    assert_eq!(l.record("AUD-1")["audit_state"], "open", "3 of 4 used");
}

const START: &str = "<!-- auditloop:rounds:start -->";
const END: &str = "<!-- auditloop:rounds:end -->";

#[tokio::test]
async fn an_edit_inside_the_markers_is_undone_and_human_text_kept() {
    let mut l = opened_with_record().await;
    l.comment(42, "auditor", &run("ci-run-1", "needs_remediation"))
        .await;
    let managed = l.gh.pull_body(42);
    let (head, rest) = managed.split_once(START).expect("rounds section");
    let (_, tail) = rest.split_once(END).expect("rounds end");

    // Someone rewrites the audit rounds and adds text of their own around the sections.
    let human_head = format!("Edited intro  \r\nwith CRLF\t\n\n{head}");
    let human_tail = format!("{tail}\n\n> a note  with  spaces \u{a0}\n");
    let tampered =
        format!("{human_head}{START}\n## Audit rounds\n\nall certified!\n{END}{human_tail}");
    l.gh.state().pulls.get_mut(&42).unwrap()["body"] = json!(tampered);
    l.pull_event("edited", 42, SHA1).await;

    let body = l.gh.pull_body(42);
    let rounds = &rest[..rest.find(END).unwrap()];
    assert_eq!(
        body,
        format!("{human_head}{START}{rounds}{END}{human_tail}"),
        "the rounds are restored; the human text is kept byte for byte"
    );
}

fn body_patches(l: &Loop) -> usize {
    l.gh.requests()
        .iter()
        .filter(|r| r.method == "PATCH" && r.path.ends_with("/pulls/42"))
        .count()
}

#[tokio::test]
async fn an_edit_outside_the_markers_or_by_the_app_changes_nothing() {
    let mut l = opened_with_record().await;
    let managed = l.gh.pull_body(42);

    let human = format!("{managed}\nA reviewer's note.\n");
    l.gh.state().pulls.get_mut(&42).unwrap()["body"] = json!(human);
    let patches = body_patches(&l);
    l.pull_event("edited", 42, SHA1).await;
    assert_eq!(
        body_patches(&l),
        patches,
        "nothing sent when sections are unchanged"
    );
    assert_eq!(l.gh.pull_body(42), human);

    // The App's own edit is ignored, even one that leaves the sections changed.
    let tampered = human.replacen("budget ", "budget (edited) ", 1);
    assert_ne!(tampered, human);
    l.gh.state().pulls.get_mut(&42).unwrap()["body"] = json!(tampered);
    let mut own = support::deliveries::pull_request("edited", 42, SHA1);
    own["pull_request"]["body"] = json!(tampered);
    own["sender"]["login"] = json!("auditloop-test[bot]");
    own["sender"]["type"] = json!("Bot");
    l.deliver("pull_request", &own).await;
    assert_eq!(l.gh.pull_body(42), tampered);
    assert_eq!(body_patches(&l), patches);
}

#[tokio::test]
async fn a_base_change_rebinds_and_clears_certification() {
    let mut l = opened_with_record().await;
    l.comment(42, "auditor", &run("ci-run-1", "certified"))
        .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    let before = l.log_len();

    let mut edited = support::deliveries::pull_request("edited", 42, SHA1);
    edited["pull_request"]["body"] = json!(l.gh.pull_body(42));
    edited["changes"] =
        json!({"base": {"ref": {"from": "release"}, "sha": {"from": "0".repeat(40)}}});
    l.deliver("pull_request", &edited).await;

    assert_eq!(l.log_len(), before + 1, "one rebind commit");
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "open", "{record:#}");
    let last = record["history"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["type"], "baseline", "{last:#}");
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");
    let body = l.gh.pull_body(42);
    let rounds = &body[body.find(START).unwrap()..body.find(END).unwrap()];
    assert!(
        !rounds.contains("state certified"),
        "the body is rebuilt from the rebound record: {rounds}"
    );

    // A body edit with no base change rebinds nothing.
    l.pull_event("edited", 42, SHA1).await;
    assert_eq!(l.log_len(), before + 1);
}

#[tokio::test]
async fn two_prs_on_one_head_pass_only_together() {
    let mut l = opened_with_record().await;
    l.gh.add_pull(
        43,
        SHA1,
        "Same commit, other branch.\n\nCloses #13\n",
        "bob",
    );
    l.pull_event("opened", 43, SHA1).await;

    l.comment(42, "auditor", &run("ci-run-1", "certified"))
        .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "#43 has no record: {gate:#}");

    l.new_record(43).await;
    let mut second = report("AUD-2", 43, SHA1, "ci-run-2", "certified");
    second["covered_tasks"] = serde_json::json!(["#13"]);
    l.comment(43, "auditor", &report_comment(&second)).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
}

#[tokio::test]
async fn the_certified_check_run_summary() {
    let mut l = opened_with_record().await;
    l.comment(42, "auditor", &run("ci-run-1", "certified"))
        .await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "success");
    let title = gate["output"]["title"].as_str().unwrap_or_default();
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    let hex = regex::Regex::new(r"\b[0-9a-f]{40}\b").unwrap();
    let stamp = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    let text = format!("{title}\n\n{summary}").replace(SHA1, "<head>");
    let text = hex.replace_all(&text, "<sha>");
    insta::assert_snapshot!(stamp.replace_all(&text, "<time>"));
}
