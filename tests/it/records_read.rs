//! Reading the records branch: constant cost however many records, only the blobs asked for.

use crate::support;

use std::collections::BTreeMap;

use auditloop::engine::ids::{AuditId, RepoName};
use auditloop::engine::layout::{record_md_path, record_path, report_path};
use auditloop::records::{read, Files};
use support::fake::FakeGitHub;

const REPO: &str = "octo/widgets";
const BRANCH: &str = "auditloop-records";

fn repo() -> RepoName {
    RepoName::new(REPO).unwrap()
}

/// Every file.
fn all(_: &str, _: &Files) -> bool {
    true
}

/// Record `n`'s path as the reader names it (version 2's, whichever layout holds it).
fn record(n: u64) -> String {
    record_path(&AuditId::from_number(n))
}

/// The index, then the record it names for PR 42 (these tests seed version-1 branches,
/// which the reader shows under version 2's paths).
fn index_then_record(path: &str, files: &Files) -> bool {
    if path == "index.json" {
        return true;
    }
    let named = files
        .get("index.json")
        .and_then(|i| serde_json::from_str::<serde_json::Value>(i).ok())
        .and_then(|i| {
            i["pulls"]["42"]
                .as_str()
                .and_then(|id| AuditId::new(id).ok())
                .map(|id| record_path(&id))
        });
    named.as_deref() == Some(path)
}

fn seed(gh: &FakeGitHub, records: u64) {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for n in 1..=records {
        files.insert(
            format!("records/AUD-{n}.json"),
            format!("{{\"id\": \"AUD-{n}\"}}"),
        );
        files.insert(format!("records/AUD-{n}.md"), format!("# AUD-{n}"));
        files.insert(format!("reports/AUD-{n}/run-1.json"), "{}".into());
    }
    let index = serde_json::json!({"next": records + 1, "pulls": {"42": format!("AUD-{records}")}});
    files.insert("index.json".into(), index.to_string());
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    gh.commit_files(REPO, BRANCH, &files, "seed [skip ci]");
}

#[tokio::test]
async fn an_absent_branch_reads_as_empty_in_one_call() {
    let gh = FakeGitHub::start().await;
    let api = gh.installation_api("d-read-absent").await;
    let snap = read(&api, &repo(), BRANCH, all).await.unwrap();
    assert_eq!(snap.commit, None);
    assert!(snap.files.is_empty());
    assert_eq!(gh.git_requests().len(), 1);
}

#[tokio::test]
async fn the_read_costs_the_same_with_1_or_50_records() {
    let mut costs = Vec::new();
    for records in [1, 50] {
        let gh = FakeGitHub::start().await;
        seed(&gh, records);
        let api = gh.installation_api("d-read-cost").await;
        let snap = read(&api, &repo(), BRANCH, index_then_record)
            .await
            .unwrap();
        let record = record(records);
        assert_eq!(
            snap.files.keys().cloned().collect::<Vec<_>>(),
            vec!["index.json".to_owned(), record.clone()]
        );
        assert_eq!(
            snap.file(&record),
            Some(format!("{{\"id\": \"AUD-{records}\"}}").as_str())
        );
        assert!(
            snap.contains(&record_md_path(&AuditId::from_number(1))),
            "every path is known, read or not"
        );
        assert!(!snap.contains("records"), "directories are not files");
        assert_eq!(
            snap.commit.as_ref().map(std::string::ToString::to_string),
            gh.branch_head(REPO, BRANCH)
        );
        let requests = gh.git_requests();
        assert!(requests.iter().all(|r| r.method == "GET"));
        let blobs = requests
            .iter()
            .filter(|r| r.path.contains("/git/blobs/"))
            .count();
        assert_eq!(blobs, 2, "only the index and the record it names");
        costs.push(requests.len());
    }
    assert_eq!(costs, [5, 5], "ref, commit, tree, index, record");
}

#[tokio::test]
async fn blobs_of_one_round_are_all_read() {
    let gh = FakeGitHub::start().await;
    seed(&gh, 3);
    let api = gh.installation_api("d-read-many").await;
    let snap = read(&api, &repo(), BRANCH, |p: &str, _: &Files| {
        std::path::Path::new(p)
            .extension()
            .is_some_and(|e| e == "md")
    })
    .await
    .unwrap();
    assert_eq!(snap.files.len(), 3);
    let md = record_md_path(&AuditId::from_number(2));
    assert_eq!(snap.file(&md), Some("# AUD-2"));
    assert_eq!(gh.git_requests().len(), 6);
}

#[tokio::test]
async fn large_and_multiline_content_survives_the_round_trip() {
    let gh = FakeGitHub::start().await;
    let text = (0..500)
        .map(|i| format!("line {i} — ünïcode\n"))
        .collect::<Vec<_>>()
        .concat();
    gh.commit_files(REPO, BRANCH, &[("records/AUD-1.md", text.as_str())], "m");
    let api = gh.installation_api("d-read-big").await;
    let snap = read(&api, &repo(), BRANCH, all).await.unwrap();
    let md = record_md_path(&AuditId::from_number(1));
    assert_eq!(snap.file(&md), Some(text.as_str()));
}

#[tokio::test]
async fn failures_of_github_are_errors_not_empty_snapshots() {
    for (method_path, status) in [
        ("/git/ref/", 500),
        ("/git/trees/", 404),
        ("/git/blobs/", 403),
    ] {
        let gh = FakeGitHub::start().await;
        seed(&gh, 1);
        let api = gh.installation_api("d-read-fail").await;
        for _ in 0..3 {
            gh.fail_next("GET", method_path, status, &[]);
        }
        let got = read(&api, &repo(), BRANCH, all).await;
        assert!(got.is_err(), "{method_path} {status}: {got:?}");
    }
}

#[tokio::test]
async fn a_hostile_branch_name_is_refused_before_any_call() {
    let gh = FakeGitHub::start().await;
    let api = gh.installation_api("d-read-bad").await;
    assert!(read(&api, &repo(), "../../pulls", all).await.is_err());
    assert!(gh.git_requests().is_empty());
}

/// At a commit another process made, whose tree and parents another read brought: the
/// tree is read (the commit is not), and the record the index named at the commit before
/// is fetched with the index, in one round. The snapshot is the one a fresh read gives.
#[tokio::test]
async fn a_commit_made_elsewhere_costs_its_tree_and_one_round_of_blobs() {
    use auditloop::engine::ids::{CommitSha, ObjectSha};
    use auditloop::github::first_reads::RecordsHead;
    use auditloop::records::{read_with, RecordsCache, Reuse};
    let gh = FakeGitHub::start().await;
    seed(&gh, 3);
    let api = gh.installation_api("d-read-elsewhere").await;
    let cache = RecordsCache::new();
    let new = read_then_moved_elsewhere(&gh, &api, &cache).await;
    let commit = gh.state().git[REPO].commits[&new].clone();
    let (head, tree) = (
        CommitSha::new(new.clone()).unwrap(),
        ObjectSha::new(commit.tree.clone()).unwrap(),
    );
    let parents: Vec<CommitSha> = commit
        .parents
        .iter()
        .map(|p| CommitSha::new(p.clone()).unwrap())
        .collect();
    let before = gh.git_requests().len();
    // Long enough that two calls sent together overlap at the fake.
    gh.set_delay(std::time::Duration::from_millis(100));
    let seen = RecordsHead {
        commit: head.clone(),
        tree,
        parents,
        listing: None,
        texts: BTreeMap::new(),
        absent: Vec::new(),
    };
    let reuse = Reuse {
        cache: Some(&cache),
        head: Some(Some(&head)),
        objects: Some(&seen),
    };
    let snap = read_with(&api, &repo(), BRANCH, &index_then_record, reuse)
        .await
        .unwrap();
    let calls: Vec<_> = gh.git_requests().into_iter().skip(before).collect();
    let paths: Vec<&str> = calls.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        calls.len(),
        3,
        "the tree, then the index and the record: {paths:?}"
    );
    assert!(paths[0].contains("/git/trees/"), "{paths:?}");
    let blobs = &calls[1..];
    assert!(
        blobs
            .iter()
            .all(|b| blobs.iter().all(|o| b.started < o.answered)),
        "the two blobs in one round"
    );
    gh.set_delay(std::time::Duration::ZERO);
    let fresh = read(&api, &repo(), BRANCH, index_then_record)
        .await
        .unwrap();
    assert_eq!(snap.files, fresh.files);
    assert_eq!(snap.commit, fresh.commit);
    assert_eq!(snap.parents, fresh.parents);
    assert_eq!(
        snap.file(&record(3)),
        Some("{\"id\": \"AUD-3\", \"round\": 2}")
    );
}

/// As above, with the first reads' query asked for the branch's listing and files (what a
/// replica does when the branch moved under it last time): the commit another process made
/// is read in that one query, and nothing else is asked. The snapshot is a fresh read's.
#[tokio::test]
async fn a_commit_made_elsewhere_costs_nothing_more_when_the_first_reads_list_it() {
    let calls = read_elsewhere_with_first_reads(true).await;
    assert_eq!(calls.len(), 1, "the query alone: {calls:?}");
    assert!(calls[0].contains("/graphql"), "{calls:?}");
    // A branch too large to list in the query: its tree through REST, the texts still
    // from the query.
    let calls = read_elsewhere_with_first_reads(false).await;
    assert_eq!(calls.len(), 2, "the query, then the tree: {calls:?}");
    assert!(calls[1].contains("/git/trees/"), "{calls:?}");
}

/// The calls of a first reads' query (with the listing or not) and the read after it, at a
/// commit made elsewhere; the snapshot is checked against a fresh read's.
async fn read_elsewhere_with_first_reads(listing: bool) -> Vec<String> {
    use auditloop::engine::ids::PrNumber;
    use auditloop::github::first_reads::{first_reads, RecordFiles};
    use auditloop::records::{read_with, RecordsCache, Reuse};
    let gh = FakeGitHub::start().await;
    seed(&gh, 3);
    gh.set_file(".github/auditloop.yml", "version: 1\n");
    gh.add_pull(42, &"c".repeat(40), "", "alice");
    let api = gh.installation_api("d-read-listed").await;
    let cache = RecordsCache::new();
    read_then_moved_elsewhere(&gh, &api, &cache).await;
    let before = gh.git_requests().len();
    let files = RecordFiles {
        listing,
        index: "index.json",
        record: Some("records/AUD-3.json"),
        patterns: "patterns.json",
        more: &[],
    };
    let reads = first_reads(
        &api,
        &repo(),
        PrNumber(42),
        "main",
        BRANCH,
        ".github/auditloop.yml",
        (
            Some(files),
            auditloop::github::first_reads::Extra::default(),
        ),
    )
    .await
    .unwrap();
    let seen = reads.records.flatten().expect("the records head");
    let reuse = Reuse {
        cache: Some(&cache),
        head: Some(Some(&seen.commit)),
        objects: Some(&seen),
    };
    let snap = read_with(&api, &repo(), BRANCH, &index_then_record, reuse)
        .await
        .unwrap();
    let calls: Vec<String> = gh
        .git_requests()
        .into_iter()
        .skip(before)
        .map(|r| r.path)
        .collect();
    let fresh = read(&api, &repo(), BRANCH, index_then_record)
        .await
        .unwrap();
    assert_eq!(snap.files, fresh.files);
    assert_eq!(snap.commit, fresh.commit);
    assert_eq!(snap.parents, fresh.parents);
    let paths: Vec<&str> = snap.paths().collect();
    assert_eq!(paths, fresh.paths().collect::<Vec<_>>());
    assert!(snap.contains(&report_path(&AuditId::from_number(3), 2)));
    assert_eq!(
        snap.file(&record(3)),
        Some("{\"id\": \"AUD-3\", \"round\": 2}")
    );
    calls
}

/// Reads the branch through `cache`, then commits on it as another process would (the
/// index, the PR's record and a new run); the new commit.
async fn read_then_moved_elsewhere(
    gh: &FakeGitHub,
    api: &auditloop::github::Api,
    cache: &auditloop::records::RecordsCache,
) -> String {
    use auditloop::records::{read_with, Reuse};
    let cached = Reuse {
        cache: Some(cache),
        ..Reuse::default()
    };
    read_with(api, &repo(), BRANCH, &index_then_record, cached)
        .await
        .unwrap();
    let index = serde_json::json!({"next": 4, "pulls": {"42": "AUD-3", "7": "AUD-1"}});
    gh.commit_files(
        REPO,
        BRANCH,
        &[
            ("index.json", &index.to_string()),
            ("records/AUD-3.json", "{\"id\": \"AUD-3\", \"round\": 2}"),
            ("reports/AUD-3/run-2.json", "{}"),
        ],
        "elsewhere [skip ci]",
    )
}
