//! Every receipt forgery under hardened assurance, each refused by its rule (SECURITY.md
//! lists them): unknown key, another key under a trusted id, a flipped byte, a report
//! changed after signing, rebound to another PR, commit or repository, expired, issued in
//! the future, and a reused receipt id.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};

fn key(n: u8) -> ed25519_dalek::SigningKey {
    ed25519_dalek::SigningKey::from_bytes(&[n; 32])
}

/// A report signed by `signer` under key id `key_id` for `repo`, issued at `issued`.
fn signed(
    r: Value,
    signer: u8,
    key_id: &str,
    repo: &str,
    issued: chrono::DateTime<chrono::Utc>,
    receipt: &str,
) -> Value {
    let parsed = auditloop::engine::report::parse_report(&r.to_string())
        .unwrap()
        .report;
    let out = auditloop::engine::receipt::sign_report(
        parsed,
        &key(signer),
        key_id,
        &auditloop::engine::ids::RepoName::new(repo.to_owned()).unwrap(),
        issued,
        chrono::Duration::hours(1),
        receipt.to_owned(),
    );
    serde_json::to_value(&out).unwrap()
}

#[tokio::test]
async fn receipt_forgeries_are_refused_by_rule() {
    use auditloop::engine::receipt::TrustStore;
    use auditloop::engine::repo_config::Assurance;
    let trust = TrustStore::with_keys([("ci".to_owned(), key(9).verifying_key())]);
    let mut l = Loop::start_full(42, trust, Assurance::Standard).await;
    l.gh.set_file(".github/auditloop.yml", "assurance: hardened\n");
    l.gh.add_pull(43, SHA2, "Other.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let now = chrono::Utc::now() - chrono::Duration::minutes(1);
    let repo = support::deliveries::REPO;
    let base = |inv: &str| report("AUD-1", 42, SHA1, inv, "needs_remediation");
    let mut flipped = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    let sig = flipped["receipt"]["signature"].as_str().unwrap().to_owned();
    let mut bytes =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, sig).unwrap();
    bytes[3] ^= 0x80;
    flipped["receipt"]["signature"] = json!(base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        bytes
    ));
    let mut changed = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    changed["assessment"] = json!("Changed after signing.");
    let mut other_pr = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    other_pr["work_unit"] = json!("pr:43");
    let mut other_commit = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    other_commit["receipt"]["candidate_artifact"] = json!(format!("commit:{SHA2}"));
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "no receipt under hardened assurance",
            base("r-1"),
            "hardened",
        ),
        (
            "a key the operator does not trust",
            signed(base("r-1"), 5, "mallory", repo, now, "rc-00001"),
            "receipt-unknown-key",
        ),
        (
            "the trusted key id, another key",
            signed(base("r-1"), 5, "ci", repo, now, "rc-00001"),
            "receipt-signature",
        ),
        ("a flipped signature byte", flipped, "receipt-signature"),
        (
            "the report changed after signing",
            changed,
            "receipt-digest",
        ),
        ("rebound to another PR", other_pr, "receipt-"),
        ("rebound to another commit", other_commit, "receipt-"),
        (
            "rebound to another repository",
            signed(base("r-1"), 9, "ci", "octo-org/other", now, "rc-00001"),
            "receipt-repository",
        ),
        (
            "expired",
            signed(
                base("r-1"),
                9,
                "ci",
                repo,
                now - chrono::Duration::hours(3),
                "rc-00001",
            ),
            "receipt-expired",
        ),
        (
            "issued in the future",
            signed(
                base("r-1"),
                9,
                "ci",
                repo,
                now + chrono::Duration::hours(2),
                "rc-00001",
            ),
            "receipt-",
        ),
    ];
    let before = l.log_len();
    let mut wrong = Vec::new();
    for (n, (name, bad, rule)) in cases.iter().enumerate() {
        // Anyone may submit a signed report; the unsigned one comes from a writer.
        let login = if n == 0 { "alice" } else { "mallory" };
        l.comment(42, login, &report_comment(bad)).await;
        let reply = l.last_reply(42);
        if !reply.starts_with("auditloop: refused")
            || !reply.contains(rule)
            || l.log_len() != before
        {
            wrong.push(format!("{name}: want {rule}: {reply}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // A good one is taken; the same receipt id again is a replay.
    l.comment(
        42,
        "mallory",
        &report_comment(&signed(base("r-1"), 9, "ci", repo, now, "rc-00001")),
    )
    .await;
    assert_eq!(l.log_len(), before + 1, "{}", l.last_reply(42));
    l.comment(
        42,
        "mallory",
        &report_comment(&signed(base("r-2"), 9, "ci", repo, now, "rc-00001")),
    )
    .await;
    assert!(
        l.last_reply(42).contains("receipt-replayed"),
        "{}",
        l.last_reply(42)
    );
    assert_eq!(l.log_len(), before + 1);
}
