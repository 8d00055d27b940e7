//! The fake GitHub's GraphQL endpoint: it validates every request against GitHub's
//! published schema and fails the test on one that does not validate or that asks for what
//! it does not serve; it answers the app's records documents (`RecordsCommit`,
//! `RecordsLanded`) from the same git data as the REST routes, as GitHub answers them
//! (`FirstReads`: `kit_strict_first_reads.rs`).

use crate::support;

use base64::Engine;
use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::FakeGitHub;

const BRANCH: &str = "auditloop-records";

// The app's own documents, as it sends them.
use auditloop::records::{RECORDS_COMMIT, RECORDS_LANDED};

fn index(next: u64) -> String {
    json!({"next": next, "work_units": {}, "pulls": {}, "invocations": {}, "receipts": {}})
        .to_string()
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

async fn graphql(gh: &FakeGitHub, query: &str, variables: Value) -> Value {
    let response = reqwest::Client::new()
        .post(gh.graphql_url())
        .bearer_auth("ghs_faketoken1")
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "GitHub answers GraphQL with 200");
    assert_eq!(response.headers()["x-ratelimit-remaining"], "4999");
    response.json().await.unwrap()
}

async fn rest(gh: &FakeGitHub, path: &str) -> Value {
    let url = format!("{}/repos/{REPO}/{path}", gh.api_url());
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

fn commit_input(expected: &str, contents: &str) -> Value {
    json!({"input": {
        "branch": {"repositoryNameWithOwner": REPO, "branchName": BRANCH},
        "expectedHeadOid": expected,
        "message": {"headline": "AUD-1: report run 1 [skip ci]", "body": "Auditloop-Write: 0123456789abcdef0123456789abcdef"},
        "fileChanges": {"additions": [{"path": "index.json", "contents": b64(contents)}]}
    }})
}

fn landed_input(after: Option<&str>) -> Value {
    json!({"owner": "octo-org", "name": "hello", "ref": format!("refs/heads/{BRANCH}"), "after": after})
}

/// The records branch with its first commit, as the app makes it over REST.
fn records_branch(gh: &FakeGitHub) -> String {
    gh.commit_files(REPO, BRANCH, &[("index.json", &index(1))], "init")
}

#[tokio::test]
#[should_panic(
    expected = "GraphQL requests GitHub's schema rejects or the fake GitHub does not serve"
)]
async fn a_graphql_document_that_does_not_parse_fails_the_test() {
    let gh = FakeGitHub::start().await;
    let answer = graphql(&gh, "query { repository(owner: \"o\" {", json!({})).await;
    assert!(answer["errors"][0]["message"].is_string(), "{answer}");
}

#[tokio::test]
async fn the_fake_names_what_the_schema_rejects() {
    let gh = FakeGitHub::start().await;
    let answer = graphql(&gh, "query { repository(owner: \"o\" {", json!({})).await;
    assert!(answer.get("data").is_none() && answer["errors"][0]["locations"].is_array());
    let query = "query { repository(owner: \"octo-org\", name: \"hello\") { nosuchfield } }";
    let answer = graphql(&gh, query, json!({})).await;
    let errors = answer["errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("`nosuchfield`"))),
        "{answer}"
    );
    // A variable of the wrong type is refused too.
    let answer = graphql(&gh, RECORDS_LANDED, json!({"owner": 1})).await;
    assert!(answer.get("data").is_none(), "{answer}");
    let found = std::mem::take(&mut gh.state().graphql_problems);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].starts_with("invalid GraphQL request: "),
        "{found:?}"
    );
    assert!(found[1].contains("nosuchfield") && found[1].contains("Repository"));
    assert!(found[2].contains("owner"), "{found:?}");
    let requests = gh.requests();
    assert!(requests
        .iter()
        .all(|r| r.path == "/graphql" && r.is_write()));
    assert_eq!(requests[0].graphql, Some("invalid"));
}

#[tokio::test]
async fn an_unused_fragment_or_variable_is_refused_as_github_refuses_it() {
    // The specification's "Fragments Must Be Used" and "All Variables Used": GitHub answers
    // such a document with errors and no data, so the fake does too.
    let gh = FakeGitHub::start().await;
    let fragment =
        "query Q { viewer { login } }\n\nfragment Task on IssueOrPullRequest {\n  __typename\n}";
    let answer = graphql(&gh, fragment, json!({})).await;
    assert!(answer.get("data").is_none(), "{answer}");
    let variable = "query Q($n: Int!) { viewer { login } }";
    let answer = graphql(&gh, variable, json!({"n": 1})).await;
    assert!(answer.get("data").is_none(), "{answer}");
    let found = std::mem::take(&mut gh.state().graphql_problems);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("fragment `Task` must be used"),
        "{found:?}"
    );
    assert!(found[1].contains("unused variable: `$n`"), "{found:?}");
}

#[tokio::test]
async fn a_schema_field_the_fake_does_not_serve_is_recorded() {
    let gh = FakeGitHub::start().await;
    let sha = records_branch(&gh);
    let query = "query { repository(owner: \"octo-org\", name: \"hello\") { description } }";
    let answer = graphql(&gh, query, json!({})).await;
    assert_eq!(answer["data"], json!({"repository": {"description": null}}));
    assert_eq!(
        answer["errors"][0]["path"],
        json!(["repository", "description"])
    );
    let query = format!("query {{ repository(owner: \"octo-org\", name: \"hello\") {{ ref(qualifiedName: \"refs/heads/{BRANCH}\") {{ target {{ ... on Commit {{ history(first: 5, path: \"x\") {{ nodes {{ oid }} }} }} }} }} }} }}");
    let answer = graphql(&gh, &query, json!({})).await;
    // `history` is non-null: its null reaches `target`, the nearest nullable field.
    assert_eq!(answer["data"]["repository"]["ref"]["target"], Value::Null);
    let found = std::mem::take(&mut gh.state().graphql_problems);
    assert_eq!(
        found,
        [
            "the fake GitHub does not serve Repository.description",
            "the fake GitHub does not serve Commit.history(path:)"
        ]
    );
    assert_eq!(gh.branch_head(REPO, BRANCH), Some(sha));
}

#[tokio::test]
async fn the_fake_executes_aliases_fragments_and_typename() {
    let gh = FakeGitHub::start().await;
    let sha = records_branch(&gh);
    let query = format!(
        "query {{ limits: rateLimit {{ __typename cost }}
          repository(owner: \"octo-org\", name: \"hello\") {{ records: ref(qualifiedName: \"refs/heads/{BRANCH}\") {{
            target {{ __typename ... on Tree {{ treeOid: oid }} ...head }} }}
            gone: ref(qualifiedName: \"refs/heads/nope\") {{ target {{ oid }} }} }} }}
        fragment head on Commit {{ oid }}"
    );
    let answer = graphql(&gh, &query, json!({})).await;
    assert_eq!(
        answer,
        json!({"data": {"limits": {"__typename": "RateLimit", "cost": 1}, "repository": {
            "records": {"target": {"__typename": "Commit", "oid": sha}}, "gone": null}}})
    );
    assert_eq!(gh.requests()[0].path, "/graphql/rateLimit,repository");
}

#[tokio::test]
async fn records_commit_commits_what_rest_then_shows() {
    let gh = FakeGitHub::start().await;
    let head = records_branch(&gh);
    let text = index(2);
    let answer = graphql(&gh, RECORDS_COMMIT, commit_input(&head, &text)).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let commit = &answer["data"]["createCommitOnBranch"]["commit"];
    let oid = commit["oid"].as_str().unwrap();
    let tree = commit["tree"]["oid"].as_str().unwrap();
    let git_ref = rest(&gh, &format!("git/ref/heads/{BRANCH}")).await;
    assert_eq!(git_ref["object"]["sha"], oid);
    let rest_commit = rest(&gh, &format!("git/commits/{oid}")).await;
    assert_eq!(rest_commit["parents"][0]["sha"], head.as_str());
    assert_eq!(rest_commit["tree"]["sha"], tree);
    assert_eq!(
        rest_commit["message"],
        "AUD-1: report run 1 [skip ci]\n\nAuditloop-Write: 0123456789abcdef0123456789abcdef"
    );
    let entries = rest(&gh, &format!("git/trees/{tree}")).await;
    let blob = entries["tree"][0]["sha"].as_str().unwrap();
    let content = rest(&gh, &format!("git/blobs/{blob}")).await["content"]
        .as_str()
        .unwrap()
        .replace('\n', "");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(content)
        .unwrap();
    assert_eq!(String::from_utf8(decoded).unwrap(), text);
    // The same tree made over REST has the same content-derived SHA.
    let base = rest(&gh, &format!("git/commits/{head}")).await["tree"]["sha"].clone();
    let made: Value = reqwest::Client::new()
        .post(format!("{}/repos/{REPO}/git/trees", gh.api_url()))
        .json(&json!({"base_tree": base, "tree": [{"path": "index.json", "mode": "100644", "type": "blob", "content": text}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(made["sha"], tree);
    let call = &gh.requests()[0];
    assert_eq!(call.path, "/graphql/createCommitOnBranch");
    assert!(call.is_write() && call.graphql == Some("mutation"));
}

#[tokio::test]
async fn records_commit_on_a_moved_head_answers_stale_data() {
    let gh = FakeGitHub::start().await;
    let head = records_branch(&gh);
    gh.move_ref_once(REPO, BRANCH, &[("other.txt", "theirs")], "someone else");
    let answer = graphql(&gh, RECORDS_COMMIT, commit_input(&head, &index(2))).await;
    let message =
        format!("Expected branch to point to \"{head}\" but it did not.  Pull and try again.");
    assert_eq!(
        answer,
        json!({"data": {"createCommitOnBranch": null}, "errors": [{"type": "STALE_DATA",
            "path": ["createCommitOnBranch"], "locations": [{"line": 2, "column": 3}],
            "message": message}]})
    );
    assert_eq!(gh.branch_log(REPO, BRANCH), ["someone else", "init"]);
}

#[tokio::test]
async fn records_commit_on_a_missing_branch_answers_not_found() {
    let gh = FakeGitHub::start().await;
    let answer = graphql(
        &gh,
        RECORDS_COMMIT,
        commit_input(&"a".repeat(40), &index(2)),
    )
    .await;
    let message = format!("Could not resolve to a Ref named \"refs/heads/{BRANCH}\".");
    assert_eq!(
        answer,
        json!({"data": {"createCommitOnBranch": null}, "errors": [{"type": "NOT_FOUND",
            "path": ["createCommitOnBranch"], "message": message}]})
    );
}

#[tokio::test]
async fn a_records_commit_whose_answer_is_lost_lands() {
    let gh = FakeGitHub::start().await;
    let head = records_branch(&gh);
    gh.lose_next_answer("POST", "/graphql/createCommitOnBranch");
    let status = reqwest::Client::new()
        .post(gh.graphql_url())
        .json(&json!({"query": RECORDS_COMMIT, "variables": commit_input(&head, &index(2))}))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 502);
    assert_eq!(gh.branch_files(REPO, BRANCH)["index.json"], index(2));
}

#[tokio::test]
async fn a_records_file_committed_over_graphql_is_checked_against_its_schema() {
    let gh = FakeGitHub::start().await;
    let head = records_branch(&gh);
    graphql(&gh, RECORDS_COMMIT, commit_input(&head, "{}")).await;
    let found = std::mem::take(&mut gh.state().schema_violations);
    assert!(
        found.len() == 1 && found[0].starts_with("index.json (index_v1):"),
        "{found:?}"
    );
}

#[tokio::test]
async fn records_landed_pages_through_the_history() {
    let gh = FakeGitHub::start().await;
    records_branch(&gh);
    for n in 2..=60 {
        gh.commit_files(
            REPO,
            BRANCH,
            &[("index.json", &index(n))],
            &format!("commit {n}"),
        );
    }
    let head = gh.branch_head(REPO, BRANCH).unwrap();
    let first = graphql(&gh, RECORDS_LANDED, landed_input(None)).await;
    assert!(first.get("errors").is_none(), "{first}");
    assert_eq!(
        first["data"]["rateLimit"],
        json!({"cost": 1, "remaining": 4999})
    );
    let target = &first["data"]["repository"]["ref"]["target"];
    assert_eq!(target["oid"], head.as_str());
    let history = &target["history"];
    let nodes = history["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 50);
    assert_eq!(nodes[0]["oid"], head.as_str());
    assert_eq!(nodes[0]["message"], "commit 60");
    assert!(nodes[0]["tree"]["oid"].is_string());
    assert_eq!(history["pageInfo"]["hasNextPage"], true);
    let cursor = history["pageInfo"]["endCursor"].as_str().unwrap();
    let second = graphql(&gh, RECORDS_LANDED, landed_input(Some(cursor))).await;
    let history = &second["data"]["repository"]["ref"]["target"]["history"];
    let messages: Vec<&str> = history["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 10);
    assert_eq!((messages[0], messages[9]), ("commit 10", "init"));
    assert_eq!(history["pageInfo"]["hasNextPage"], false);
    let call = &gh.requests()[0];
    assert_eq!(call.path, "/graphql/repository,rateLimit");
    assert!(!call.is_write());
}

#[tokio::test]
async fn records_landed_without_the_branch_or_the_repository() {
    let gh = FakeGitHub::start().await;
    let answer = graphql(&gh, RECORDS_LANDED, landed_input(None)).await;
    assert_eq!(answer["data"]["repository"], json!({"ref": null}));
    let mut vars = landed_input(None);
    vars["name"] = json!("nope");
    let answer = graphql(&gh, RECORDS_LANDED, vars).await;
    assert_eq!(answer["data"]["repository"], Value::Null);
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(answer["errors"][0]["path"], json!(["repository"]));
}

#[tokio::test]
async fn github_enterprise_server_serves_graphql_beside_its_rest_prefix() {
    let gh = FakeGitHub::start_with_prefix("/api/v3").await;
    assert_eq!(gh.graphql_url(), format!("{}/api/graphql", gh.server.uri()));
    let head = records_branch(&gh);
    let answer = graphql(&gh, RECORDS_LANDED, landed_input(None)).await;
    assert_eq!(
        answer["data"]["repository"]["ref"]["target"]["oid"],
        head.as_str()
    );
    assert_eq!(gh.requests()[0].path, "/api/graphql/repository,rateLimit");
}
