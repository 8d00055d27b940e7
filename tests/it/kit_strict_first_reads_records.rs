//! The records part of the app's `FirstReads` query, asked with its files: the fake lists
//! the records commit's tree (nested `Tree.entries`) with the blob SHAs REST's recursive
//! tree gives, and the files asked (`Commit.file(path:)`) with the texts REST's blobs hold;
//! `@include` leaves out what was not asked. The app flattens that answer to the listing
//! and texts the records layer reads.

use crate::support;

use std::collections::BTreeMap;

use auditloop::engine::ids::{PrNumber, RepoName};
use auditloop::github::first_reads::{first_reads, Extra, RecordFiles, FIRST_READS};
use base64::Engine;
use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::FakeGitHub;

const RECORDS: &str = "auditloop-records";
const INDEX: &str = "{\"next\": 2, \"pulls\": {\"7\": \"AUD-1\"}}";
const RECORD: &str = "{\"id\": \"AUD-1\"}";

async fn rest(gh: &FakeGitHub, path: &str) -> Value {
    let url = format!("{}/repos/{REPO}/{path}", gh.api_url());
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

fn world(gh: &FakeGitHub) {
    gh.set_file(".github/auditloop.yml", "version: 1\n");
    gh.add_pull(7, &"c".repeat(40), "", "alice");
    gh.commit_files(
        REPO,
        RECORDS,
        &[
            ("index.json", INDEX),
            ("records/AUD-1.json", RECORD),
            ("records/AUD-1.md", "# AUD-1\n"),
            ("reports/AUD-1/run-1.json", "{}"),
        ],
        "records",
    );
}

fn variables(files: bool, record: Option<&str>) -> Value {
    json!({"owner": "octo-org", "name": "hello", "number": 7,
           "config": "main:.github/auditloop.yml", "records": format!("refs/heads/{RECORDS}"),
           "files": files, "listing": files, "index": "index.json", "record": record.unwrap_or_default(),
           "withRecord": record.is_some(), "patterns": "patterns.json", "withCommits": false, "withThreads": false, "withSharing": false})
}

async fn graphql(gh: &FakeGitHub, variables: Value) -> Value {
    gh.post_graphql(FIRST_READS, variables).await
}

/// The blobs of REST's recursive tree of the records head, by path.
async fn rest_listing(gh: &FakeGitHub) -> BTreeMap<String, String> {
    let head = gh.branch_head(REPO, RECORDS).unwrap();
    let commit = rest(gh, &format!("git/commits/{head}")).await;
    let tree = commit["tree"]["sha"].as_str().unwrap().to_owned();
    let listing = rest(gh, &format!("git/trees/{tree}?recursive=1")).await;
    listing["tree"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "blob")
        .map(|e| {
            let path = e["path"].as_str().unwrap().to_owned();
            (path, e["sha"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[tokio::test]
async fn the_records_listing_and_files_are_what_rest_lists_and_holds() {
    let gh = FakeGitHub::start().await;
    world(&gh);
    let answer = graphql(&gh, variables(true, Some("records/AUD-1.json"))).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let target = &answer["data"]["repository"]["records"]["target"];
    // The tree, nested as GraphQL lists it, flattened here by hand.
    let mut listed = BTreeMap::new();
    for top in target["tree"]["entries"].as_array().unwrap() {
        let name = top["name"].as_str().unwrap();
        if top["type"] == "blob" {
            listed.insert(name.to_owned(), top["oid"].as_str().unwrap().to_owned());
            continue;
        }
        for mid in top["object"]["entries"].as_array().unwrap() {
            let path = format!("{name}/{}", mid["name"].as_str().unwrap());
            if mid["type"] == "blob" {
                listed.insert(path, mid["oid"].as_str().unwrap().to_owned());
                continue;
            }
            for low in mid["object"]["entries"].as_array().unwrap() {
                assert_eq!(low["type"], "blob");
                let path = format!("{path}/{}", low["name"].as_str().unwrap());
                listed.insert(path, low["oid"].as_str().unwrap().to_owned());
            }
        }
    }
    assert_eq!(listed, rest_listing(&gh).await);
    for (field, path, text) in [
        ("index", "index.json", INDEX),
        ("record", "records/AUD-1.json", RECORD),
    ] {
        let file = &target[field];
        let sha = listed[path].clone();
        assert_eq!(file["oid"], json!(sha), "{field}");
        assert_eq!(file["object"]["__typename"], "Blob");
        assert_eq!(file["object"]["text"], json!(text), "{field}");
        assert_eq!(file["object"]["isTruncated"], false);
        let blob = rest(&gh, &format!("git/blobs/{sha}")).await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob["content"].as_str().unwrap().replace('\n', ""))
            .unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            text,
            "REST's blob of {path}"
        );
    }
    assert_eq!(target["patterns"], Value::Null, "no such file");
    assert!(gh.state().graphql_problems.is_empty());
}

#[tokio::test]
async fn what_was_not_asked_is_left_out() {
    let gh = FakeGitHub::start().await;
    world(&gh);
    let answer = graphql(&gh, variables(false, None)).await;
    let target = &answer["data"]["repository"]["records"]["target"];
    let keys: Vec<&str> = target
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["__typename", "oid", "parents", "tree"], "{target}");
    assert_eq!(target["tree"].as_object().unwrap().len(), 1, "only its oid");
    let answer = graphql(&gh, variables(true, None)).await;
    let target = &answer["data"]["repository"]["records"]["target"];
    assert!(target.get("record").is_none() && target.get("index").is_some());
    let mut files_only = variables(true, None);
    files_only["listing"] = json!(false);
    let answer = graphql(&gh, files_only).await;
    let target = &answer["data"]["repository"]["records"]["target"];
    assert_eq!(target["tree"].as_object().unwrap().len(), 1, "only its oid");
    assert_eq!(target["index"]["object"]["text"], json!(INDEX));
    assert!(gh.state().graphql_problems.is_empty());
}

#[tokio::test]
async fn the_app_reads_the_listing_and_texts_from_the_answer() {
    let gh = FakeGitHub::start().await;
    world(&gh);
    let api = gh.installation_api("d-first-records").await;
    let repo = RepoName::new(REPO).unwrap();
    let files = RecordFiles {
        listing: true,
        index: "index.json",
        record: Some("records/AUD-1.json"),
        patterns: "patterns.json",
        more: &[],
    };
    let reads = first_reads(
        &api,
        &repo,
        PrNumber(7),
        "main",
        RECORDS,
        ".github/auditloop.yml",
        (Some(files), Extra::default()),
    )
    .await
    .unwrap();
    let head = reads.records.flatten().expect("the records head");
    let listing: BTreeMap<String, String> = head
        .listing
        .expect("the whole listing")
        .into_iter()
        .map(|(p, s)| (p, s.as_str().to_owned()))
        .collect();
    assert_eq!(listing, rest_listing(&gh).await);
    let texts: Vec<(&str, &str)> = head
        .texts
        .iter()
        .map(|(p, (_, t))| (p.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        texts,
        [("index.json", INDEX), ("records/AUD-1.json", RECORD)]
    );
    // Not asked: neither comes.
    let reads = first_reads(
        &api,
        &repo,
        PrNumber(7),
        "main",
        RECORDS,
        ".github/auditloop.yml",
        (None, Extra::default()),
    )
    .await
    .unwrap();
    let head = reads.records.flatten().unwrap();
    assert!(head.listing.is_none() && head.texts.is_empty());
}
