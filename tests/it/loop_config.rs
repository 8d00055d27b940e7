//! Repository configuration on GitHub (docs/reference.md#repository-configuration): read from the default branch only,
//! an invalid or disabling file, and hardened assurance with an operator trust store.

use crate::support;

use auditloop::engine::receipt::TrustStore;
use auditloop::engine::repo_config::Assurance;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::SigningKey;
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::deliveries::REPO;

const CONFIG: &str = ".github/auditloop.yml";
const KEY_ID: &str = "ci-auditor-1";

/// A refusal landed as the newest reply on PR 42, naming `what`, with nothing recorded.
fn assert_refused(l: &Loop, before: usize, what: &str) {
    let reply = l.last_reply(42);
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    assert!(reply.contains(what), "names {what:?}: {reply}");
    assert_eq!(l.log_len(), before, "nothing recorded on a refusal");
}

#[tokio::test]
async fn the_default_branch_configuration_wins_over_the_pr_head() {
    let mut l = Loop::start(42).await;
    // The PR tries to switch its own audit off; the default branch has no file.
    l.gh.set_head_file(CONFIG, "work_unit_audit: disabled\ncheck_name: free-pass\n");
    l.pull_event("opened", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["name"], "audit-gate");
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    l.new_record(42).await;
    let reads: Vec<_> =
        l.gh.requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/contents/.github/auditloop.yml"))
            .collect();
    for r in &reads {
        assert!(
            r.query.split('&').any(|kv| kv == "ref=main"),
            "read at the default branch: {:?}",
            r.query
        );
    }
    // The first reads ask for the file at the default branch too.
    let queried: Vec<_> =
        l.gh.requests()
            .into_iter()
            .filter(|r| r.path == "/graphql/repository")
            .collect();
    assert!(!reads.is_empty() || !queried.is_empty());
    for r in &queried {
        assert_eq!(
            r.body["variables"]["config"],
            format!("main:{CONFIG}"),
            "read at the default branch"
        );
    }

    // A change on the default branch applies from the PR's next event.
    l.gh.set_file(CONFIG, "work_unit_audit: disabled\n");
    l.pull_event("edited", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "neutral", "{gate:#}");
    assert!(
        gate["output"]["title"]
            .as_str()
            .unwrap_or_default()
            .contains("disabled"),
        "says so: {gate:#}"
    );
}

#[tokio::test]
async fn a_disabled_audit_is_neutral_and_refuses_commands_but_status_and_help() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(CONFIG, "work_unit_audit: disabled\n");
    l.pull_event("opened", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "neutral", "{gate:#}");
    assert!(gate["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .contains("work_unit_audit: disabled"));

    l.comment(42, "alice", "/audit new --goal \"Refuse replays\" --oracle \"No second effect\" --evidence \"CI green\"").await;
    assert_refused(&l, 0, "disabled");
    l.comment(42, "reader", "/audit gate").await;
    assert_refused(&l, 0, "disabled");
    for cmd in ["/audit status", "/audit help"] {
        l.comment(42, "reader", cmd).await;
        let reply = l.last_reply(42);
        assert!(!reply.starts_with("auditloop: refused"), "{cmd}: {reply}");
    }
    assert_eq!(l.refusals(42).len(), 2);
}

#[tokio::test]
async fn an_invalid_configuration_fails_the_check_with_its_line() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(CONFIG, "audit_budget: 3\ncheck_name: \"unclosed\n");
    l.pull_event("opened", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    // The quoted string opened on line 2 is never closed.
    assert!(
        summary.contains("invalid at line 2"),
        "names the line: {summary}"
    );

    l.new_record_attempt().await;
    assert_refused(&l, 0, "configuration is invalid");
    assert!(
        l.last_reply(42)
            .contains("`.github/auditloop.yml` line 2: unclosed quote"),
        "the same error, with its line: {}",
        l.last_reply(42)
    );
    // Unknown keys and wrong types are invalid too.
    for bad in ["audit_budgt: 3\n", "audit_budget: three\n"] {
        l.gh.set_file(CONFIG, bad);
        l.new_record_attempt().await;
        assert_refused(&l, 0, "configuration is invalid");
    }
    // The parser's message reads as text, the names it quotes as code, in the reply and
    // on the check run alike.
    l.gh.set_file(CONFIG, "audit_budgt: 3\n");
    l.new_record_attempt().await;
    let reply = l.last_reply(42);
    assert!(reply.contains("unknown field `audit_budgt`"), "{reply}");
    assert!(!reply.contains("&#96;"), "{reply}");
    l.pull_event("synchronize", 42, SHA1).await;
    let summary = l.gate(SHA1)["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(summary.contains("unknown field `audit_budgt`"), "{summary}");
    assert!(!summary.contains("&#96;"), "{summary}");
    for cmd in ["/audit status", "/audit help"] {
        l.comment(42, "reader", cmd).await;
        let reply = l.last_reply(42);
        assert!(!reply.starts_with("auditloop: refused"), "{cmd}: {reply}");
    }
}

fn signing_key() -> SigningKey {
    SigningKey::from_bytes(&[9; 32])
}

/// `verdict` report on AUD-1 at SHA1, signed for `repo` with receipt `receipt_id`.
fn signed(inv: &str, verdict: &str, repo: &str, receipt_id: &str) -> Value {
    let r = report("AUD-1", 42, SHA1, inv, verdict);
    support::steps::signed_report(&r, &signing_key(), KEY_ID, repo, receipt_id)
}

async fn hardened() -> Loop {
    let trust = TrustStore::with_keys([(KEY_ID.to_owned(), signing_key().verifying_key())]);
    let mut l = Loop::start_full(42, trust, Assurance::Standard).await;
    l.gh.set_file(CONFIG, "assurance: hardened\n");
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    l
}

#[tokio::test]
async fn hardened_assurance_takes_only_verified_receipts() {
    let mut l = hardened().await;
    let before = l.log_len();

    let unsigned = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&unsigned)).await;
    assert_refused(&l, before, "hardened");

    let mut changed = signed("ci-run-1", "certified", REPO, "receipt-0001");
    changed["assessment"] = json!("Everything is fine, trust me.");
    let mut flipped = signed("ci-run-1", "certified", REPO, "receipt-0001");
    let mut sig = STANDARD
        .decode(flipped["receipt"]["signature"].as_str().unwrap())
        .unwrap();
    sig[10] ^= 0x01;
    flipped["receipt"]["signature"] = json!(STANDARD.encode(sig));
    let elsewhere = signed("ci-run-1", "certified", "octo-org/other", "receipt-0001");
    for (name, bad, rule) in [
        ("a field changed after signing", changed, "receipt-digest"),
        ("a flipped signature byte", flipped, "receipt-signature"),
        ("another repository", elsewhere, "receipt-repository"),
    ] {
        // Anyone may submit a signed report, so a stranger's forgery must stop at the receipt.
        l.comment(42, "mallory", &report_comment(&bad)).await;
        let reply = l.last_reply(42);
        assert!(reply.starts_with("auditloop: refused"), "{name}: {reply}");
        assert!(reply.contains(rule), "{name} names {rule}: {reply}");
        assert_eq!(l.log_len(), before, "{name}: nothing recorded");
    }
    let index: Value = l.index();
    assert!(
        index["receipts"]
            .as_object()
            .is_none_or(serde_json::Map::is_empty),
        "refused reports use up no receipt: {index:#}"
    );

    l.comment(
        42,
        "mallory",
        &report_comment(&signed(
            "ci-run-1",
            "needs_remediation",
            REPO,
            "receipt-0001",
        )),
    )
    .await;
    assert_eq!(l.log_len(), before + 1, "{:?}", l.last_reply(42));
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");

    let reused = signed("ci-run-2", "certified", REPO, "receipt-0001");
    l.comment(42, "mallory", &report_comment(&reused)).await;
    assert_refused(&l, before + 1, "receipt-replayed");

    l.comment(
        42,
        "mallory",
        &report_comment(&signed("ci-run-2", "certified", REPO, "receipt-0002")),
    )
    .await;
    let record = l.record("AUD-1");
    assert_eq!(record["audit_state"], "certified", "{:?}", l.last_reply(42));
    assert_eq!(record["certification_grade"], "authenticated");
    assert_eq!(record["producer_authenticated"], true);
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "success", "{gate:#}");
    assert!(gate["output"]["title"]
        .as_str()
        .unwrap_or_default()
        .contains("authenticated"));
}

#[tokio::test]
async fn a_repository_cannot_lower_the_operator_minimum() {
    let trust = TrustStore::with_keys([(KEY_ID.to_owned(), signing_key().verifying_key())]);
    let mut l = Loop::start_full(42, trust, Assurance::Hardened).await;
    l.gh.set_file(CONFIG, "assurance: standard\n");
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let before = l.log_len();
    let unsigned = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    l.comment(42, "auditor", &report_comment(&unsigned)).await;
    assert_refused(&l, before, "hardened");
    l.comment(
        42,
        "auditor",
        &report_comment(&signed("ci-run-1", "certified", REPO, "receipt-0001")),
    )
    .await;
    assert_eq!(l.record("AUD-1")["certification_grade"], "authenticated");
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
}
