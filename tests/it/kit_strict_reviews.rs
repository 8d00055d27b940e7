//! The fake GitHub's pull-request diff and review threads: `GET …/pulls/{n}/files` paged
//! with `Link` headers and checked against GitHub's REST description; review threads made
//! with `addPullRequestReview`, refused whole when a thread is off the diff, read back
//! through `reviewThreads` with the App's `Bot` as author, resolved and unresolved; and
//! `Repository.object(expression: "<commit SHA>:<path>")`. Every document is validated
//! against GitHub's GraphQL schema by the fake.

use crate::support;

use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::{FakeGitHub, APP_SLUG};

const HEAD: &str = "1234567890abcdef1234567890abcdef12345678";
/// Two hunks: new lines 80–88 (`@@ +80,9`), then 120–123.
const PATCH: &str = "@@ -80,6 +80,9 @@ fn verify() {\n a\n b\n+c\n+d\n+e\n f\n g\n h\n i\n@@ -117,3 +120,4 @@ fn reply() {\n x\n-y\n+Y\n+Z\n z";

const ADD_REVIEW: &str = "mutation AddReview($input: AddPullRequestReviewInput!) {
  addPullRequestReview(input: $input) { pullRequestReview { id databaseId state } }
}";

const THREADS: &str = "query Threads($first: Int, $last: Int, $after: String) {
  repository(owner: \"octo-org\", name: \"hello\") {
    pullRequest(number: 42) {
      reviewThreads(first: $first, last: $last, after: $after) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        nodes {
          id isResolved isOutdated path line startLine diffSide
          resolvedBy { login }
          comments(first: 5) { totalCount nodes { id databaseId body url author { __typename login } } }
        }
      }
    }
  }
}";

async fn graphql(gh: &FakeGitHub, query: &str, variables: Value) -> Value {
    let response = reqwest::Client::new()
        .post(gh.graphql_url())
        .bearer_auth("ghs_faketoken1")
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "GitHub answers GraphQL with 200");
    response.json().await.unwrap()
}

/// PR 42 at `HEAD`, changing `src/webhook.rs` (two hunks) and adding `README.md`.
async fn pull() -> (FakeGitHub, String) {
    let gh = FakeGitHub::start().await;
    gh.add_pull(42, HEAD, "Fix replays", "alice");
    gh.set_pull_files(
        42,
        &[
            ("src/webhook.rs", "modified", PATCH),
            ("README.md", "added", "@@ -0,0 +1,2 @@\n+# hello\n+world"),
        ],
    );
    let query = "query { repository(owner: \"octo-org\", name: \"hello\") { pullRequest(number: 42) { id } } }";
    let answer = graphql(&gh, query, json!({})).await;
    let id = answer["data"]["repository"]["pullRequest"]["id"].as_str();
    (gh, id.unwrap().to_owned())
}

fn review(pull: &str, threads: Value) -> Value {
    json!({"input": {"pullRequestId": pull, "commitOID": HEAD, "event": "COMMENT",
                     "body": "auditloop: 2 findings", "threads": threads}})
}

fn thread(path: &str, line: u64, start: Option<u64>) -> Value {
    json!({"path": path, "line": line, "startLine": start, "body": format!("{path}:{line}")})
}

async fn get(gh: &FakeGitHub, path_and_query: &str) -> (u16, Option<String>, Value) {
    let url = format!("{}/repos/{REPO}/{path_and_query}", gh.api_url());
    let response = reqwest::get(url).await.unwrap();
    let link = response
        .headers()
        .get("link")
        .map(|v| v.to_str().unwrap().to_owned());
    (
        response.status().as_u16(),
        link,
        response.json().await.unwrap(),
    )
}

#[tokio::test]
async fn a_pulls_files_page_with_link_headers_as_github_describes_them() {
    let gh = FakeGitHub::start().await;
    gh.add_pull(42, HEAD, "", "alice");
    let many: Vec<(String, &str, &str)> = (0..34)
        .map(|n| {
            (
                format!("src/f{n:02}.rs"),
                "modified",
                "@@ -1,2 +1,2 @@\n-a\n+b\n c",
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str, &str)> =
        many.iter().map(|(p, s, d)| (p.as_str(), *s, *d)).collect();
    gh.set_pull_files(42, &borrowed);
    gh.add_renamed_pull_file(42, "docs/old name.md", "docs/new name.md", "");
    let (status, link, first) = get(&gh, "pulls/42/files").await;
    assert_eq!((status, first.as_array().unwrap().len()), (200, 30));
    let link = link.expect("a next page");
    assert!(link.contains("page=2>; rel=\"next\""), "{link}");
    assert_eq!(first[0]["filename"], "src/f00.rs");
    assert_eq!(
        (&first[0]["additions"], &first[0]["deletions"]),
        (&json!(1), &json!(1))
    );
    assert_eq!(first[0]["sha"].as_str().map(str::len), Some(40));
    assert_eq!(
        first[0]["contents_url"],
        format!("https://api.github.com/repos/{REPO}/contents/src/f00.rs?ref={HEAD}")
    );
    let (_, link, last) = get(&gh, "pulls/42/files?per_page=10&page=4").await;
    assert!(link.is_none(), "{link:?}");
    let last = last.as_array().unwrap().clone();
    assert_eq!(last.len(), 5);
    let renamed = &last[4];
    assert_eq!(
        (&renamed["status"], &renamed["previous_filename"]),
        (&json!("renamed"), &json!("docs/old name.md"))
    );
    assert!(renamed.get("patch").is_none(), "{renamed}");
    let (_, link, all) = get(&gh, "pulls/42/files?per_page=100").await;
    assert!(link.is_none() && all.as_array().unwrap().len() == 35);
    let (_, _, pr) = get(&gh, "pulls/42").await;
    assert_eq!(
        (&pr["changed_files"], &pr["additions"]),
        (&json!(35), &json!(34))
    );
    assert_eq!(get(&gh, "pulls/7/files").await.0, 404);
    assert!(gh.state().invalid_answers.is_empty());
}

#[tokio::test]
async fn a_review_inside_the_diff_is_kept_and_read_back_with_the_bot_as_author() {
    let (gh, pull) = pull().await;
    let threads = json!([
        thread("src/webhook.rs", 82, None),
        thread("src/webhook.rs", 121, Some(120)),
        thread("README.md", 2, Some(1))
    ]);
    let answer = graphql(&gh, ADD_REVIEW, review(&pull, threads)).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let made = &answer["data"]["addPullRequestReview"]["pullRequestReview"];
    assert_eq!(made["state"], "COMMENTED");
    assert!(made["id"].as_str().unwrap().starts_with("PRR_kwDO"));
    let write = gh.requests().into_iter().last().unwrap();
    assert!(write.is_write() && write.graphql == Some("mutation"));
    let reviews = gh.reviews(42);
    assert_eq!(reviews.len(), 1);
    assert_eq!(
        (
            &reviews[0]["event"],
            &reviews[0]["commit_oid"],
            &reviews[0]["threads"]
        ),
        (&json!("COMMENT"), &json!(HEAD), &json!(3))
    );
    let kept = gh.review_threads(42);
    assert_eq!(kept[1]["start_line"], 120);
    assert_eq!(kept[1]["author"], format!("{APP_SLUG}[bot]"));
    let answer = graphql(&gh, THREADS, json!({"first": 10})).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let connection = &answer["data"]["repository"]["pullRequest"]["reviewThreads"];
    assert_eq!(connection["totalCount"], 3);
    let first = &connection["nodes"][0];
    assert_eq!(first["id"], kept[0]["id"]);
    assert!(first["id"].as_str().unwrap().starts_with("PRRT_kwDO"));
    assert_eq!(
        (
            &first["path"],
            &first["line"],
            &first["startLine"],
            &first["diffSide"]
        ),
        (
            &json!("src/webhook.rs"),
            &json!(82),
            &Value::Null,
            &json!("RIGHT")
        )
    );
    assert_eq!(
        (&first["isResolved"], &first["isOutdated"]),
        (&json!(false), &json!(false))
    );
    let comment = &first["comments"]["nodes"][0];
    // GraphQL's `Bot.login` is the App's slug, without REST's `[bot]`.
    assert_eq!(
        comment["author"],
        json!({"__typename": "Bot", "login": APP_SLUG})
    );
    assert_eq!(comment["body"], "src/webhook.rs:82");
    let url = comment["url"].as_str().unwrap();
    assert!(url.starts_with("https://github.com/octo-org/hello/pull/42#discussion_r"));
}

#[tokio::test]
async fn review_threads_page_both_ways() {
    let (gh, pull) = pull().await;
    let threads: Vec<Value> = (80..=84)
        .map(|l| thread("src/webhook.rs", l, None))
        .collect();
    graphql(&gh, ADD_REVIEW, review(&pull, json!(threads))).await;
    let page = |answer: Value| answer["data"]["repository"]["pullRequest"]["reviewThreads"].clone();
    let one = page(graphql(&gh, THREADS, json!({"first": 2})).await);
    let lines = |c: &Value| -> Vec<Value> {
        c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["line"].clone())
            .collect()
    };
    assert_eq!(lines(&one), [json!(80), json!(81)]);
    assert_eq!(one["pageInfo"]["hasNextPage"], true);
    let after = one["pageInfo"]["endCursor"].clone();
    let two = page(graphql(&gh, THREADS, json!({"first": 2, "after": after})).await);
    assert_eq!(lines(&two), [json!(82), json!(83)]);
    assert_eq!(two["pageInfo"]["hasPreviousPage"], true);
    let last = page(graphql(&gh, THREADS, json!({"last": 1})).await);
    assert_eq!(lines(&last), [json!(84)]);
    assert_eq!(last["pageInfo"]["hasNextPage"], false);
    let answer = graphql(&gh, THREADS, json!({})).await;
    assert_eq!(answer["errors"][0]["type"], "MISSING_PAGINATION_BOUNDARIES");
}

#[tokio::test]
async fn a_thread_off_the_diff_refuses_the_whole_review_and_keeps_nothing() {
    let (gh, pull) = pull().await;
    let good = thread("src/webhook.rs", 82, None);
    let cases = [
        (
            thread("src/other.rs", 82, None),
            "Pull request review thread path is invalid and Pull request review thread diff hunk can't be blank",
        ),
        (
            thread("src/webhook.rs", 100, None),
            "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank",
        ),
        (
            thread("src/webhook.rs", 121, Some(85)),
            "Pull request review thread start line must be part of the same hunk as the line.",
        ),
    ];
    for (bad, message) in cases {
        let answer = graphql(&gh, ADD_REVIEW, review(&pull, json!([good, bad]))).await;
        assert_eq!(
            answer["data"],
            json!({"addPullRequestReview": null}),
            "{answer}"
        );
        let error = &answer["errors"][0];
        assert_eq!(
            (&error["type"], &error["message"]),
            (&json!("UNPROCESSABLE"), &json!(message))
        );
        assert_eq!(error["path"], json!(["addPullRequestReview"]));
    }
    let unknown = review("PR_kwDO0000000001", json!([good]));
    let answer = graphql(&gh, ADD_REVIEW, unknown).await;
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND");
    assert!(gh.reviews(42).is_empty() && gh.review_threads(42).is_empty());
}

const RESOLVE: &str = "mutation Resolve($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}";
const UNRESOLVE: &str = "mutation Unresolve($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}";

#[tokio::test]
async fn a_thread_resolves_and_unresolves_through_the_app() {
    let (gh, pull) = pull().await;
    graphql(
        &gh,
        ADD_REVIEW,
        review(&pull, json!([thread("README.md", 1, None)])),
    )
    .await;
    let id = gh.review_threads(42)[0]["id"].clone();
    let answer = graphql(&gh, RESOLVE, json!({"id": id})).await;
    let done = &answer["data"]["resolveReviewThread"]["thread"];
    assert_eq!(*done, json!({"id": id, "isResolved": true}));
    let kept = &gh.review_threads(42)[0];
    assert_eq!(kept["resolved_by"], format!("{APP_SLUG}[bot]"));
    let answer = graphql(&gh, UNRESOLVE, json!({"id": id})).await;
    assert_eq!(
        answer["data"]["unresolveReviewThread"]["thread"]["isResolved"],
        false
    );
    assert_eq!(gh.review_threads(42)[0]["resolved"], false);
    let answer = graphql(&gh, RESOLVE, json!({"id": "PRRT_kwDO0000000001"})).await;
    assert_eq!(answer["data"]["resolveReviewThread"], Value::Null);
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND");
    assert!(gh
        .requests()
        .iter()
        .filter(|r| r.graphql == Some("mutation"))
        .all(super::support::fake::Recorded::is_write));
}

#[tokio::test]
async fn a_thread_resolved_by_hand_reads_as_resolved_by_that_person() {
    let (gh, pull) = pull().await;
    graphql(
        &gh,
        ADD_REVIEW,
        review(&pull, json!([thread("README.md", 2, None)])),
    )
    .await;
    let id = gh.review_threads(42)[0]["id"].as_str().unwrap().to_owned();
    gh.resolve_thread_by_hand(&id);
    let answer = graphql(&gh, THREADS, json!({"last": 5})).await;
    let read = &answer["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][0];
    assert_eq!(read["isResolved"], true);
    assert_eq!(
        read["resolvedBy"],
        json!({"login": support::fake_reviews::HAND})
    );
    let kept = &gh.review_threads(42)[0];
    assert_eq!(
        (&kept["resolved"], &kept["resolved_by"]),
        (&json!(true), &json!("maint"))
    );
    // Only the App's own writes are GitHub calls: a person's resolution is not one.
    assert_eq!(gh.requests().iter().filter(|r| r.is_write()).count(), 1);
}

const AT: &str = "query At($file: String!, $missing: String!, $dir: String!, $oid: GitObjectID!) {
  repository(owner: \"octo-org\", name: \"hello\") {
    file: object(expression: $file) { ... on Blob { oid text isTruncated } }
    missing: object(expression: $missing) { __typename }
    dir: object(expression: $dir) { ... on Tree { entries { name } } }
    commit: object(oid: $oid) { ... on Commit { file(path: \"src/a.rs\") { oid } none: file(path: \"src/b.rs\") { oid } } }
  }
}";

#[tokio::test]
async fn an_object_at_a_commit_sha_is_the_blob_that_commit_holds() {
    let gh = FakeGitHub::start().await;
    let one = gh.commit_files(REPO, "work", &[("src/a.rs", "one")], "first");
    let two = gh.commit_files(REPO, "work", &[("src/a.rs", "two")], "second");
    let blob = |text: &str| auditloop_fake_github::contents::blob_sha(text);
    for (sha, text) in [(&one, "one"), (&two, "two")] {
        let vars = json!({"file": format!("{sha}:src/a.rs"), "missing": format!("{sha}:src/b.rs"),
                          "dir": format!("{sha}:src"), "oid": sha});
        let answer = graphql(&gh, AT, vars).await;
        assert!(answer.get("errors").is_none(), "{answer}");
        let repo = &answer["data"]["repository"];
        assert_eq!(
            repo["file"],
            json!({"oid": blob(text), "text": text, "isTruncated": false})
        );
        assert_eq!(repo["missing"], Value::Null);
        assert_eq!(repo["dir"], json!({"entries": [{"name": "a.rs"}]}));
        assert_eq!(
            repo["commit"],
            json!({"file": {"oid": blob(text)}, "none": null})
        );
    }
    let unknown = "f".repeat(40);
    let vars = json!({"file": format!("{unknown}:src/a.rs"), "missing": "work:src/b.rs",
                      "dir": "work:src", "oid": unknown});
    let answer = graphql(&gh, AT, vars).await;
    let repo = &answer["data"]["repository"];
    assert_eq!(
        (&repo["file"], &repo["commit"]),
        (&Value::Null, &Value::Null)
    );
}
