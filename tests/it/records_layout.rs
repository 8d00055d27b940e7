//! Layout version 2 (docs/reference.md#layout-version-2): a version-1 branch converted by
//! the first write in one commit that changes no record, a branch of a later layout never
//! written, uniqueness kept by two replicas whose keys share a shard or not, and the bytes
//! a report sends at 100,000 records.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::{
    record_md_path, record_path, report_path, shard_path, v1, IndexMap, INDEX_PATH, LAYOUT_PATH,
    NEXT_PATH,
};
use auditloop::engine::record::shards::{layout_json, split};
use auditloop::engine::record::{load_record, verify_chain, Index};
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, BRANCH, SHA1};
use support::deliveries::{pr_comment, REPO};
use support::harness::TestApp;
use support::layouts::whole_index;
use support::steps::new_command;

fn id(n: u64) -> AuditId {
    AuditId::from_number(n)
}

/// The files of the records branch at `commit`.
fn files_at(l: &Loop, commit: &str) -> BTreeMap<String, String> {
    let state = l.gh.state();
    let git = &state.git[REPO];
    git.trees[&git.commits[commit].tree]
        .iter()
        .map(|(path, blob)| (path.clone(), git.blobs[blob].clone()))
        .collect()
}

/// The commits of the records branch, newest first.
fn commits(l: &Loop) -> Vec<String> {
    let mut next = l.gh.branch_head(REPO, BRANCH);
    let state = l.gh.state();
    let mut out = Vec::new();
    while let Some(sha) = next {
        next = state.git[REPO].commits[&sha].parents.first().cloned();
        out.push(sha);
    }
    out
}

/// A record with one run, as the app wrote it, and its stored report: what a version-1
/// branch is seeded with.
async fn template() -> (String, String) {
    let mut t = Loop::start(42).await;
    t.with_run("needs_remediation").await;
    let report = t.files()[&report_path(&id(1), 1)].clone();
    (t.record_text("AUD-1"), report)
}

/// A version-1 branch of `n` records (AUD-1..n on PRs 10001.., none on PR 42): flat
/// `records/` and `reports/`, one `index.json`.
async fn seed_version_1(l: &Loop, n: u64) -> BTreeMap<String, String> {
    let (record, stored) = template().await;
    let mut index = Index {
        next: n + 1,
        ..Index::default()
    };
    let mut files = BTreeMap::new();
    for i in 1..=n {
        let aud = id(i);
        let pr = 10_000 + i;
        // The record's own fields, and the newest event's report path (as version 1 named
        // it): no earlier event changes, so each copy's chain holds.
        let mut copy: Value = serde_json::from_str(&record).unwrap();
        copy["id"] = json!(aud);
        copy["pull_request"] = json!(pr);
        let last = copy["history"].as_array().unwrap().len() - 1;
        copy["history"][last]["report"] = json!(format!("reports/{aud}/run-1.json"));
        let text = serde_json::to_string_pretty(&copy).unwrap() + "\n";
        files.insert(v1::record_path(&aud), text);
        files.insert(format!("records/{aud}.md"), format!("# {aud}\n"));
        files.insert(format!("reports/{aud}/run-1.json"), stored.clone());
        index.pulls.insert(pr.to_string(), aud.clone());
        index.work_units.insert(format!("pr:{pr}"), aud.clone());
        index.invocations.insert(format!("ci-run-{pr}"), aud);
    }
    files.insert(INDEX_PATH.to_owned(), index.to_json());
    let seeded: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    l.gh.written_by_the_test("a version-1 branch as an older auditloop wrote it");
    l.gh.commit_files(REPO, BRANCH, &seeded, "version 1 [skip ci]");
    files
}

#[tokio::test]
async fn a_version_1_branch_of_2000_records_is_converted_in_one_commit_that_changes_no_record() {
    let mut l = Loop::start(42).await;
    let before = seed_version_1(&l, 2_000).await;
    let seeded = l.gh.branch_head(REPO, BRANCH).unwrap();
    // Read as it is: the PR's event writes nothing (no record), the branch stays version 1.
    l.pull_event("opened", 42, SHA1).await;
    assert_eq!(l.gh.branch_head(REPO, BRANCH).unwrap(), seeded);
    // The first write converts it, then writes on version 2.
    l.comment(42, "alice", &new_command("")).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let log = commits(&l);
    assert_eq!(log.len(), 3, "{:?}", l.gh.branch_log(REPO, BRANCH));
    assert_eq!(log[2], seeded);
    let messages = l.gh.branch_log(REPO, BRANCH);
    assert!(messages[1].starts_with("Records layout 2:"), "{messages:?}");
    assert!(messages[1].ends_with("[skip ci]"), "{messages:?}");

    // The conversion moved every file as it was, and changed nothing else.
    let converted = files_at(&l, &log[1]);
    let mut moved = 0;
    for (path, text) in &before {
        if path == INDEX_PATH {
            continue;
        }
        let to = v1::moved(path).unwrap_or_else(|| panic!("{path} has no new path"));
        assert_eq!(converted.get(&to), Some(text), "{path} -> {to}");
        assert!(!converted.contains_key(path), "{path} left behind");
        moved += 1;
    }
    assert_eq!(moved, 6_000);
    assert!(!converted.contains_key(INDEX_PATH));
    assert_eq!(converted[LAYOUT_PATH], layout_json());
    let old = Index::parse(&before[INDEX_PATH]).unwrap();
    assert_eq!(
        whole_index(&converted),
        old,
        "the index, split, holds what it held"
    );
    let shards = converted.keys().filter(|p| p.starts_with("index/")).count();
    assert_eq!(
        shards,
        split(&old).len() - 1,
        "next.json and the shards, no more"
    );
    assert_eq!(converted.len(), 6_000 + shards + 2);
    // Every record loads, and its chain holds, from its new path.
    for i in [1, 999, 1_000, 2_000] {
        let text = &converted[&record_path(&id(i))];
        let record: Value = serde_json::from_str(text).unwrap();
        verify_chain(record["history"].as_array().unwrap()).unwrap();
        assert!(converted.contains_key(&record_md_path(&id(i))));
        // A run recorded on version 1 still names its report's old path.
        let run = &record["history"][1]["report"];
        assert_eq!(run, &json!(format!("reports/AUD-{i}/run-1.json")));
        assert!(converted.contains_key(&report_path(&id(i), 1)));
    }

    // The write after it: AUD-2001, in the shards of its keys.
    let after = l.files();
    let index = whole_index(&after);
    assert_eq!(index.next, 2_002);
    assert_eq!(
        index.record_for_pull(auditloop::engine::ids::PrNumber(42)),
        Some(&id(2_001))
    );
    assert_eq!(index.pulls.len(), 2_001);
    assert!(load_record(&after[&record_path(&id(2_001))]).is_ok());
    let title = l.gate(SHA1)["output"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        title.starts_with("Open — waiting for the first report"),
        "{title}"
    );
}

#[tokio::test]
async fn a_run_recorded_on_version_1_is_verified_against_its_report_after_the_conversion() {
    // A certified record as version 1 held it: flat paths, one index.json, the run naming
    // its report's flat path (the newest event, so the chain holds).
    let mut t = Loop::start(42).await;
    t.with_run("certified").await;
    let files = t.files();
    let mut old: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in &files {
        let flat = match path.as_str() {
            p if p == record_path(&id(1)) => v1::record_path(&id(1)),
            p if p == record_md_path(&id(1)) => "records/AUD-1.md".to_owned(),
            p if p == report_path(&id(1), 1) => "reports/AUD-1/run-1.json".to_owned(),
            p if p.starts_with("index/") || p == NEXT_PATH || p == LAYOUT_PATH => continue,
            p => p.to_owned(),
        };
        let text = text.replace("reports/000/AUD-1/run-1.json", "reports/AUD-1/run-1.json");
        old.insert(flat, text);
    }
    old.insert(INDEX_PATH.to_owned(), whole_index(&files).to_json());
    let mut l = Loop::start(42).await;
    let seeded: Vec<(&str, &str)> = old.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    l.gh.written_by_the_test("the branch as version 1 held it");
    l.gh.commit_files(REPO, BRANCH, &seeded, "version 1 [skip ci]");
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "success", "read as version 1: {gate:#}");
    assert!(
        !l.files().contains_key(LAYOUT_PATH),
        "reading converts nothing"
    );
    // A write converts it; the certification still verifies its stored report, moved.
    // (A delivery id of its own: the copied history holds the template's.)
    let over = "/audit override --budget 5 --note \"more runs\"";
    let r = l
        .app
        .deliver(
            "issue_comment",
            "v1-override",
            &pr_comment(42, "maint", over),
        )
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let now = l.files();
    assert!(now.contains_key(LAYOUT_PATH));
    assert_eq!(
        now[&report_path(&id(1), 1)],
        old["reports/AUD-1/run-1.json"],
        "the report moved as it was"
    );
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(
        gate["conclusion"], "success",
        "after the conversion: {gate:#}"
    );
}

#[tokio::test]
async fn a_branch_of_a_later_layout_is_never_written_and_the_delivery_fails_to_be_retried() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let later = json!({"version": 3}).to_string();
    l.gh.commit_files(
        REPO,
        BRANCH,
        &[(LAYOUT_PATH, later.as_str())],
        "a newer auditloop",
    );
    let head = l.gh.branch_head(REPO, BRANCH);
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let r = l
        .app
        .deliver(
            "issue_comment",
            "later-layout",
            &pr_comment(42, "maint", veto),
        )
        .await;
    assert_eq!(
        r.status(),
        502,
        "a 5xx, so GitHub's redelivery comes back after the upgrade"
    );
    assert_eq!(l.gh.branch_head(REPO, BRANCH), head, "nothing written");
    assert!(l.refusals(42).is_empty(), "not the user's mistake");
    let layout = l.files()[LAYOUT_PATH].clone();
    assert_eq!(layout, later, "never written over");
}

/// The smallest PR number above 42 whose `pulls` entry lands in PR 42's shard (`same`), or
/// in another.
fn another_pr(same: bool) -> u64 {
    let at = shard_path(IndexMap::Pulls, "42");
    (43..100_000)
        .find(|n| (shard_path(IndexMap::Pulls, &n.to_string()) == at) == same)
        .expect("a PR number")
}

/// Comments `(pr, login, body)` on two replicas at the same moment (each reads the branch
/// before either writes); both must be answered 200.
async fn at_once(l: &Loop, b: &TestApp, name: &str, a: (u64, &str, &str), z: (u64, &str, &str)) {
    l.gh.set_delay(Duration::from_millis(150));
    let (pa, pz) = (pr_comment(a.0, a.1, a.2), pr_comment(z.0, z.1, z.2));
    let (ids, idz) = (format!("{name}-a"), format!("{name}-b"));
    let (ra, rz) = futures::join!(
        l.app.deliver("issue_comment", &ids, &pa),
        b.deliver("issue_comment", &idz, &pz),
    );
    l.gh.set_delay(Duration::ZERO);
    assert_eq!(
        (ra.status().as_u16(), rz.status().as_u16()),
        (200, 200),
        "{name}"
    );
}

#[tokio::test]
async fn two_replicas_creating_records_at_once_keep_both_whether_their_keys_share_a_shard_or_not() {
    for same in [true, false] {
        let mut l = Loop::start(42).await;
        let other = another_pr(same);
        l.gh.add_pull(other, SHA1, "Other work.\n\nCloses #13\n", "alice");
        l.pull_event("opened", 42, SHA1).await;
        l.pull_event("opened", other, SHA1).await;
        // A first record, so both replicas read a branch that exists.
        let third = another_pr(!same) + 1;
        l.gh.add_pull(third, SHA1, "Third.\n\nCloses #14\n", "alice");
        l.new_record(third).await;
        let b = TestApp::start(&l.gh).await;
        // Both read the branch before either writes.
        let new = new_command("");
        let race = format!("race-{same}");
        at_once(&l, &b, &race, (42, "alice", &new), (other, "alice", &new)).await;
        let index = whole_index(&l.files());
        let (a, b) = (
            index
                .record_for_pull(auditloop::engine::ids::PrNumber(42))
                .cloned(),
            index
                .record_for_pull(auditloop::engine::ids::PrNumber(other))
                .cloned(),
        );
        let (Some(a), Some(b)) = (a, b) else {
            panic!("same shard {same}: both kept: {index:?}");
        };
        assert_ne!(a, b);
        assert_eq!(index.next, 4, "same shard {same}");
        assert_eq!(index.work_units[&format!("pr:{other}")], b);
        assert_eq!(l.record(a.as_str())["pull_request"], 42);
        assert_eq!(l.record(b.as_str())["pull_request"], other);
        assert_eq!(l.gh.branch_log(REPO, BRANCH).len(), 3, "one commit each");
    }
}

#[tokio::test]
async fn one_invocation_reported_on_two_prs_at_once_is_accepted_once() {
    let mut l = Loop::start(42).await;
    let other = another_pr(false);
    l.gh.add_pull(other, SHA1, "Other work.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 42, SHA1).await;
    l.pull_event("opened", other, SHA1).await;
    l.new_record(42).await;
    l.new_record(other).await;
    let b = TestApp::start(&l.gh).await;
    let index = whole_index(&l.files());
    let on = |pr: u64| {
        index
            .record_for_pull(auditloop::engine::ids::PrNumber(pr))
            .unwrap()
            .to_string()
    };
    let mut first = report(&on(42), 42, SHA1, "ci-run-shared", "needs_remediation");
    let mut second = report(
        &on(other),
        other,
        SHA1,
        "ci-run-shared",
        "needs_remediation",
    );
    first["covered_tasks"] = json!(["#12"]);
    second["covered_tasks"] = json!(["#13"]);
    let (a, z) = (report_comment(&first), report_comment(&second));
    at_once(
        &l,
        &b,
        "shared",
        (42, "auditor", &a),
        (other, "auditor", &z),
    )
    .await;
    let runs = |id: &str| {
        l.history(id)
            .iter()
            .filter(|e| e["type"] == "report")
            .count()
    };
    assert_eq!(runs(&on(42)) + runs(&on(other)), 1, "accepted once");
    let index = whole_index(&l.files());
    assert_eq!(index.invocations.len(), 1);
    let refused: Vec<String> = [42, other]
        .into_iter()
        .flat_map(|pr| l.refusals(pr))
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("ci-run-shared"), "{}", refused[0]);
}

/// A version-2 branch of `records` records (AUD-1.. on PRs 100,001..), each with its keys
/// in their shards, as a busy repository's would be before PR 42's record (with none, a
/// branch with no record yet).
fn seed(l: &Loop, records: u64) {
    let mut index = Index {
        next: records + 1,
        ..Index::default()
    };
    let mut seeded: BTreeMap<String, String> = BTreeMap::new();
    for i in 1..=records {
        let (aud, pr) = (id(i), 100_000 + i);
        index.pulls.insert(pr.to_string(), aud.clone());
        index.work_units.insert(format!("pr:{pr}"), aud.clone());
        index
            .invocations
            .insert(format!("ci-run-{pr}"), aud.clone());
        index.receipts.insert(format!("r-{pr}"), aud.clone());
        seeded.insert(record_path(&aud), format!("{{\"id\": \"{aud}\"}}\n"));
    }
    seeded.extend(split(&index));
    seeded.insert(LAYOUT_PATH.to_owned(), layout_json());
    let seeded: Vec<(&str, &str)> = seeded
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    l.gh.written_by_the_test("records of other pull requests, seeded");
    l.gh.commit_files(REPO, BRANCH, &seeded, "records [skip ci]");
}

/// The calls and the bytes sent (request line and body) of a report on PR 42 whose record
/// was made beside `others` records, the branch moved by someone else since.
async fn report_at(others: u64) -> (usize, usize) {
    let mut l = Loop::start(42).await;
    // With none, a branch that holds no record yet: the process knows both alike.
    seed(&l, others);
    l.with_record().await;
    let aud = id(others + 1);
    let moved = [("moved.txt", "someone else's commit\n")];
    l.gh.commit_files(REPO, BRANCH, &moved, "moved [skip ci]");
    let r = report(aud.as_str(), 42, SHA1, "ci-run-1", "needs_remediation");
    let delivery = l.comment(42, "auditor", &report_comment(&r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.history(aud.as_str()).len(), 2, "the run was recorded");
    let requests = l.gh.requests();
    let of: Vec<_> = requests
        .iter()
        .filter(|r| r.headers.get("x-github-delivery") == Some(&delivery))
        .filter(|r| !r.path.ends_with("/access_tokens"))
        .collect();
    let bytes = of
        .iter()
        .map(|r| r.method.len() + r.path.len() + r.query.len() + r.body.to_string().len())
        .sum();
    (of.len(), bytes)
}

/// Bytes, not time: a report's writes and reads stay the size they are at one record.
#[tokio::test]
async fn a_report_at_100000_records_sends_less_than_twice_the_bytes_of_one_at_one() {
    let (calls_1, bytes_1) = report_at(0).await;
    let (calls_n, bytes_n) = report_at(99_999).await;
    eprintln!(
        "1 record: {calls_1} calls, {bytes_1} bytes; 100,000: {calls_n} calls, {bytes_n} bytes"
    );
    assert!(
        bytes_n < 2 * bytes_1,
        "{bytes_n} bytes at 100,000 records, {bytes_1} at one"
    );
    assert_eq!(calls_n, calls_1, "the same calls");
}

#[tokio::test]
async fn two_replicas_writing_first_on_a_version_1_branch_convert_it_once_and_keep_both() {
    let mut l = Loop::start(42).await;
    seed_version_1(&l, 20).await;
    let other = another_pr(false);
    l.gh.add_pull(other, SHA1, "Other work.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 42, SHA1).await;
    l.pull_event("opened", other, SHA1).await;
    let b = TestApp::start(&l.gh).await;
    let new = new_command("");
    at_once(
        &l,
        &b,
        "v1-race",
        (42, "alice", &new),
        (other, "alice", &new),
    )
    .await;
    let log = l.gh.branch_log(REPO, BRANCH);
    let conversions = log
        .iter()
        .filter(|m| m.starts_with("Records layout 2:"))
        .count();
    assert_eq!(conversions, 1, "{log:?}");
    assert_eq!(
        log.len(),
        4,
        "the seed, the conversion, one commit each: {log:?}"
    );
    let index = whole_index(&l.files());
    assert_eq!(index.next, 23);
    for pr in [42, other] {
        let id = index.record_for_pull(auditloop::engine::ids::PrNumber(pr));
        assert!(id.is_some(), "#{pr} kept: {index:?}");
    }
}
