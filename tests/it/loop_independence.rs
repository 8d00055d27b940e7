//! The auditor is someone else (docs/reference.md#independence-of-the-auditor): the PR's
//! author and the candidate's pusher may not grade it unsigned; a signature or
//! `allow_self_audit` lets them, visibly. A budget never stalls in `open`, a closed PR
//! never buys a fresh budget, and a kept receipt is verified again at the gate
//! (docs/reference.md#budget, docs/reference.md#receipts).

use crate::support;

use auditloop::engine::ids::RepoName;
use auditloop::engine::receipt::TrustStore;
use auditloop::engine::repo_config::Assurance;
use ed25519_dalek::SigningKey;
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::{pull_request, REPO};
use support::layouts::report_file;
use support::steps::new_command;

const CONFIG: &str = ".github/auditloop.yml";
const KEY_ID: &str = "ci-auditor-1";

fn signing_key() -> SigningKey {
    SigningKey::from_bytes(&[7; 32])
}

fn trusted() -> TrustStore {
    TrustStore::with_keys([(KEY_ID.to_owned(), signing_key().verifying_key())])
}

fn signed(inv: &str, verdict: &str, receipt_id: &str) -> Value {
    let r = report("AUD-1", 42, SHA1, inv, verdict);
    support::steps::signed_report(&r, &signing_key(), KEY_ID, REPO, receipt_id)
}

/// PR 42 (by `alice`) opened, its record made by `lead`.
async fn opened(l: &mut Loop) {
    l.gh.set_permission("lead", "write");
    l.gh.set_permission("pusher", "write");
    l.pull_event("opened", 42, SHA1).await;
    l.ok("lead", &new_command(""), true).await;
}

/// The newest reply is a `self-audit` refusal naming the three ways to comply, and
/// nothing was recorded.
fn assert_self_audit_refused(l: &Loop, commits: usize, who: &str) {
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    assert!(reply.contains("`self-audit`"), "{reply}");
    assert!(reply.contains(who), "{reply}");
    for way in [
        "permissions.auditors",
        "auditloop sign",
        "allow_self_audit: true",
    ] {
        assert!(reply.contains(way), "names {way}: {reply}");
    }
    assert_eq!(l.log_len(), commits, "nothing recorded");
}

#[tokio::test]
async fn the_author_and_the_pusher_are_refused_and_the_one_who_made_the_record_is_not() {
    let mut l = Loop::start(42).await;
    opened(&mut l).await;
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "alice", &report_comment(&r)).await;
    assert_self_audit_refused(&l, commits, "(author)");
    // Logins compare case-insensitively.
    l.comment(42, "ALICE", &report_comment(&r)).await;
    assert_self_audit_refused(&l, commits, "(author)");

    // A push by `pusher` rebinds the record and names `pusher`.
    l.gh.set_pull_head(42, SHA2);
    let mut push = pull_request("synchronize", 42, SHA2);
    push["pull_request"]["body"] = json!(l.gh.pull_body(42));
    push["sender"]["login"] = json!("pusher");
    l.deliver("pull_request", &push).await;
    let last = l.last_event();
    assert_eq!(last["type"], "baseline");
    assert_eq!(last["candidate_pushed_by"], "pusher");
    assert_eq!(
        l.record("AUD-1")["implementers"],
        json!([{"login": "pusher", "head": format!("commit:{SHA2}")}])
    );
    let commits = l.log_len();
    let on_new = report("AUD-1", 42, SHA2, "ci-run-2", "needs_remediation");
    l.comment(42, "pusher", &report_comment(&on_new)).await;
    assert_self_audit_refused(&l, commits, "(pushed `2222222`)");
    // `lead` made the record but pushed nothing: running `/audit new` makes nobody an
    // implementer, so its report is accepted.
    l.comment(42, "lead", &report_comment(&on_new)).await;
    assert_eq!(l.refusals(42).len(), 3, "{:?}", l.refusals(42));
    assert_eq!(l.log_len(), commits + 1);
    let body = l.gh.pull_body(42);
    assert!(body.contains("posted by lead"), "{body}");
    let created = &l.record("AUD-1")["history"][0];
    assert!(created.get("candidate_pushed_by").is_none(), "{created:#}");
}

#[tokio::test]
async fn a_signed_report_from_the_author_is_accepted() {
    let mut l = Loop::start_full(42, trusted(), Assurance::Standard).await;
    opened(&mut l).await;
    let commits = l.log_len();
    let r = signed("ci-run-1", "certified", "receipt-0001");
    l.comment(42, "alice", &report_comment(&r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log_len(), commits + 1);
    let record = l.record("AUD-1");
    assert_eq!(record["certification_grade"], "authenticated");
    let run = l.last_event();
    assert_eq!(
        run["receipt"]["key_id"], KEY_ID,
        "the receipt is kept whole"
    );
    assert!(run["receipt"]["signature"].is_string());
    assert!(
        run.get("self_audit").is_none(),
        "a signed run is no self-audit"
    );
}

#[tokio::test]
async fn allow_self_audit_lets_the_author_report_and_every_surface_says_so() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(CONFIG, "allow_self_audit: true\n");
    opened(&mut l).await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "alice", &report_comment(&r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let run = l.last_event();
    assert_eq!(run["self_audit"], true);
    const WORDS: &str = "self-audit allowed by configuration";
    let body = l.gh.pull_body(42);
    assert!(body.contains(WORDS), "the PR body: {body}");
    let gate = l.gate(SHA1);
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    let text = gate["output"]["text"].as_str().unwrap_or_default();
    assert!(
        summary.contains(WORDS) && text.contains(WORDS),
        "the check run: {summary}\n{text}"
    );
    l.comment(42, "reader", "/audit status").await;
    let reply = l.last_reply(42);
    assert!(reply.contains(WORDS), "the status reply: {reply}");

    // `status --json` and `gate_status` give the grade, its authentication and the flag.
    let loaded = auditloop::engine::record::load_record(&l.record_text("AUD-1")).unwrap();
    let config = auditloop::engine::repo_config::RepoConfig::default();
    let head = auditloop::engine::ids::CommitSha::new(SHA1).unwrap();
    let repo = RepoName::new(REPO.to_owned()).unwrap();
    let gate = auditloop::engine::gate::pull_gate(&auditloop::engine::gate::PullGate {
        config: &config,
        operator_min: Assurance::Standard,
        repo: &repo,
        head: &head,
        body: "Closes #12",
        record: Ok(Some(&loaded)),
        checks: &[],
        trust: None,
        certified_report: None,
        decisions: None,
    });
    let status =
        auditloop::remote::status_view::GateStatus::new(&gate, Some(&loaded), (None, None));
    let json = serde_json::to_value(&status).unwrap();
    assert_eq!(json["record"]["self_audit"], true);
    assert_eq!(json["record"]["certification_grade"], "session_reported");
    assert_eq!(json["record"]["producer_authenticated"], false);
}

#[tokio::test]
async fn a_rebind_with_the_budget_spent_blocks_until_an_override() {
    let mut l = Loop::start(42).await;
    l.gh.set_permission("lead", "write");
    l.pull_event("opened", 42, SHA1).await;
    l.ok("lead", &new_command("--budget 1"), true).await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");

    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    let record = l.record("AUD-1");
    assert_eq!(
        record["audit_state"], "blocked",
        "never open with no run left"
    );
    assert_eq!(record["audit_blocked_reason"], "audit_budget_exhausted");
    let gate = l.gate(SHA2);
    let said = format!("{}\n{}", gate["output"]["summary"], l.gh.pull_body(42));
    assert!(said.contains("/audit override --budget"), "{said}");

    l.ok(
        "maint",
        "/audit override --budget 2 --note \"One more run for the fix\"",
        true,
    )
    .await;
    assert_eq!(l.record("AUD-1")["audit_state"], "open");
    let again = report("AUD-1", 42, SHA2, "ci-run-2", "certified");
    l.ok("auditor", &report_comment(&again), true).await;
    assert_eq!(l.record("AUD-1")["audit_state"], "certified");
}

#[tokio::test]
async fn a_new_record_on_an_unfinished_records_tasks_is_refused_and_adopt_still_moves_it() {
    let mut l = Loop::start(42).await;
    opened(&mut l).await;
    l.gh.add_pull(43, SHA2, "Second try.\n\nCloses #12\n", "alice");
    l.pull_event("opened", 43, SHA2).await;
    let commits = l.log_len();
    l.comment(43, "lead", &new_command("")).await;
    let reply = l.last_reply(43);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    for part in ["`task-overlap`", "#12", "AUD-1", "/audit adopt AUD-1"] {
        assert!(reply.contains(part), "names {part}: {reply}");
    }
    assert_eq!(l.log_len(), commits, "nothing recorded");

    // Closing the first PR buys nothing: the record is still unfinished.
    l.gh.close_pull(42, false);
    l.pull_event("closed", 42, SHA1).await;
    l.comment(43, "lead", &new_command("")).await;
    assert!(l.last_reply(43).contains("`task-overlap`"));
    let refused = l.refusals(43).len();
    l.comment(43, "maint", "/audit adopt AUD-1").await;
    assert_eq!(l.refusals(43).len(), refused, "{}", l.last_reply(43));
    assert_eq!(l.record("AUD-1")["pull_request"], 43);
    let index: Value = l.index();
    assert_eq!(index["tasks"]["#12"], "AUD-1");
}

#[tokio::test]
async fn a_receipt_whose_key_left_the_trust_store_fails_the_hardened_gate() {
    let mut l = Loop::start_full(42, trusted(), Assurance::Standard).await;
    l.gh.set_file(CONFIG, "assurance: hardened\n");
    opened(&mut l).await;
    let r = signed("ci-run-1", "certified", "receipt-0002");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");

    // The operator removes the key; the next `/audit gate` verifies the kept receipt again.
    l.restart_with(TrustStore::default(), Assurance::Standard)
        .await;
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("no longer in the trust store") && summary.contains("session_reported"),
        "{summary}"
    );
}

#[tokio::test]
async fn a_stored_report_edited_after_signing_fails_the_hardened_gate() {
    let mut l = Loop::start_full(42, trusted(), Assurance::Standard).await;
    l.gh.set_file(CONFIG, "assurance: hardened\n");
    opened(&mut l).await;
    let r = signed("ci-run-1", "certified", "receipt-0003");
    l.ok("auditor", &report_comment(&r), true).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");

    // Someone with push access edits the stored report; the record and its chain are intact.
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
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("no longer has the digest its receipt signed"),
        "{summary}"
    );
}
