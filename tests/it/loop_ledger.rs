//! The finding ledger end to end (reference: "The finding ledger"): a finding first raised
//! in a later run on a file no push changed since an earlier audited candidate is late, and
//! the check run, the body and the record say so.

use crate::support;

use crate::loop_threads::{post, run_on};
use serde_json::Value;
use support::audit::Loop;
use support::deliveries::REPO;

const FILE: &str = "src/server/webhook.rs";

/// The findings of run `n` (1-based) as the record keeps them.
fn findings_of(l: &Loop, n: usize) -> Vec<Value> {
    let record = l.record("AUD-1");
    let runs: Vec<&Value> = record["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "report")
        .collect();
    runs[n - 1]["findings"].as_array().unwrap().clone()
}

fn summary(l: &Loop, sha: &str) -> String {
    l.gate(sha)["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Round 1 on commit A raises A-01; the fixer's commit B changes only the README; round 2
/// raises `late` on the webhook, which A already held as it is.
async fn drip() -> (Loop, String, String) {
    let mut l = Loop::start(42).await;
    let old = "fn verify() {}\n";
    let a =
        l.gh.commit_files(REPO, "feature", &[(FILE, old), ("README.md", "# a\n")], "a");
    l.gh.set_pull_head(42, &a);
    l.pull_event("opened", 42, &a).await;
    l.new_record(42).await;
    post(&mut l, &run_on(&a, 1, &["A-01"])).await;
    let b =
        l.gh.commit_files(REPO, "feature", &[("README.md", "# b\n")], "b");
    l.gh.set_pull_head(42, &b);
    l.pull_event("synchronize", 42, &b).await;
    (l, a, b)
}

#[tokio::test]
async fn a_finding_raised_late_on_an_unchanged_file_is_marked_and_the_loop_is_not_converging() {
    let (mut l, _a, b) = drip().await;
    post(&mut l, &run_on(&b, 2, &["A-01", "A-02"])).await;
    let second = findings_of(&l, 2);
    let late: Vec<_> = second
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["late_since"].as_u64()))
        .collect();
    assert!(late.contains(&("A-02", Some(1))), "{late:?}");
    assert!(
        late.contains(&("A-01", None)),
        "carried, not late: {late:?}"
    );
    let s = summary(&l, &b);
    assert!(
        s.contains("round 2: 1 new, all late on files unchanged since round 1; 1 carried")
            && s.contains("not converging"),
        "{s}"
    );
    let body = l.gh.pull_body(42);
    assert!(
        body.contains("late: its files were unchanged since round 1"),
        "{body}"
    );
}

#[tokio::test]
async fn a_finding_on_a_file_the_fixer_changed_is_new_not_late() {
    let (mut l, _a, b) = drip().await;
    let mut r = run_on(&b, 2, &["A-01", "A-02"]);
    r["findings"][0]["evidence_refs"] = serde_json::json!(["README.md:1"]);
    post(&mut l, &r).await;
    let findings = findings_of(&l, 2);
    assert!(
        findings.iter().all(|f| f["late_since"].is_null()),
        "{findings:#?}"
    );
    // New on a file the push changed: counted, not late (the count did not fall, though).
    let s = summary(&l, &b);
    assert!(s.contains("round 2: 1 new, 1 carried, 0 resolved"), "{s}");
}

#[tokio::test]
async fn status_json_and_the_packet_carry_the_ledger() {
    let (mut l, _a, b) = drip().await;
    post(&mut l, &run_on(&b, 2, &["A-01", "A-02"])).await;
    let dir = tempfile::tempdir().unwrap();
    let args = ["status", "--repo", REPO, "--pr", "42", "--json"];
    let out = crate::cli_remote::auditloop(&l.gh.api_url(), dir.path(), &args).await;
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let record = &status["record"];
    let runs = record["convergence"]
        .as_array()
        .unwrap_or_else(|| panic!("{status:#}"));
    assert_eq!(runs.len(), 2, "{runs:#?}");
    let second = &runs[1];
    let counts: Vec<_> = ["new", "late", "carried", "resolved", "regressed"]
        .iter()
        .map(|k| second[k].as_u64())
        .collect();
    assert_eq!(
        counts,
        [Some(1), Some(1), Some(1), Some(0), Some(0)],
        "{second:#}"
    );
    assert_eq!(record["converging"], false);

    let (packet, _) = crate::cli_packet_delta::packet_counting(&l, |_| false).await;
    let ledger = &packet["ledger"];
    assert!(
        ledger["note"].as_str().unwrap().contains("late"),
        "{ledger:#}"
    );
    // The fixer's push changed only the README: the webhook is unchanged since round 2's
    // candidate, which is the current one.
    assert!(
        ledger["settled"].as_array().unwrap().is_empty(),
        "{ledger:#}"
    );
}
