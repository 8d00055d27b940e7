//! The fake GitHub answers the app's `FirstReads` query from the same state as its REST
//! routes: the configuration file (contents), the records branch (git refs), the pull
//! request (pulls) and the latest check runs on its head (check-runs), as GitHub does; it
//! bounds pages as GitHub does and refuses what it does not serve.

use crate::support;

use auditloop::engine::ids::{CommitSha, PrNumber, RepoName};
use auditloop::github::first_reads::{first_reads, ConfigBlob, Extra, FIRST_READS};
use auditloop::github::rest::{check_runs, get_pull, read_file, FileRead};
use base64::Engine;
use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::{FakeGitHub, APP_SLUG};

const CONFIG: &str = ".github/auditloop.yml";
const RECORDS: &str = "auditloop-records";
const PR: u64 = 7;

fn head() -> String {
    "c".repeat(40)
}

fn variables(number: u64) -> Value {
    json!({"owner": "octo-org", "name": "hello", "number": number,
           "config": format!("main:{CONFIG}"), "records": format!("refs/heads/{RECORDS}"),
           "files": false, "listing": false, "index": "", "record": "", "withRecord": false, "patterns": "", "withCommits": false, "withThreads": false, "withSharing": false})
}

async fn graphql(gh: &FakeGitHub, query: &str, variables: Value) -> Value {
    gh.post_graphql(query, variables).await
}

async fn rest(gh: &FakeGitHub, path: &str) -> Value {
    let url = format!("{}/repos/{REPO}/{path}", gh.api_url());
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// The configuration file, the records branch, pull request 7, and on its head the latest
/// runs of three Apps (CI's `build` twice), plus a run on another commit.
async fn world(gh: &FakeGitHub) {
    gh.set_file(CONFIG, "version: 1\n");
    gh.commit_files(REPO, RECORDS, &[("index.json", "{}")], "init");
    gh.add_pull(PR, &head(), "Covers AUD-1.", "alice");
    gh.add_ci_check(&head(), "build", "in_progress", None);
    gh.add_ci_check(&head(), "build", "completed", Some("success"));
    gh.add_ci_check(&head(), "test", "queued", None);
    gh.add_foreign_check(&head(), "lint", "linter", "failure");
    let ours = json!({"name": "auditloop", "head_sha": head(), "external_id": "AUD-1",
        "status": "in_progress", "output": {"title": "Auditing", "summary": "Auditing AUD-1."}});
    let status = reqwest::Client::new()
        .post(format!("{}/repos/{REPO}/check-runs", gh.api_url()))
        .json(&ours)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 201);
    gh.add_ci_check(&"d".repeat(40), "build", "queued", None);
}

/// A check run in one shape from either API: GraphQL's enums lower-cased, REST's `""`
/// external id as none.
fn run(id: &Value, name: &Value, status: &Value, conclusion: &Value, external: &Value) -> Value {
    let lower = |v: &Value| v.as_str().map(str::to_ascii_lowercase);
    let external = external.as_str().filter(|s| !s.is_empty());
    json!([id, name, lower(status), lower(conclusion), external])
}

#[tokio::test]
async fn first_reads_answers_what_rest_answers() {
    let gh = FakeGitHub::start().await;
    world(&gh).await;
    let answer = graphql(&gh, FIRST_READS, variables(PR)).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let repo = &answer["data"]["repository"];
    let file = rest(&gh, &format!("contents/{CONFIG}?ref=main")).await;
    let packed = file["content"].as_str().unwrap().replace('\n', "");
    let text = base64::engine::general_purpose::STANDARD
        .decode(packed)
        .unwrap();
    let config = json!({"__typename": "Blob", "oid": file["sha"],
        "text": String::from_utf8(text).unwrap(), "isTruncated": false});
    assert_eq!(repo["config"], config);
    let git_ref = rest(&gh, &format!("git/ref/heads/{RECORDS}")).await;
    let sha = git_ref["object"]["sha"].as_str().unwrap().to_owned();
    let commit = rest(&gh, &format!("git/commits/{sha}")).await;
    let parents: Vec<Value> = commit["parents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"oid": p["sha"]}))
        .collect();
    let target = json!({"__typename": "Commit", "oid": sha,
        "tree": {"oid": commit["tree"]["sha"]}, "parents": {"nodes": parents}});
    assert_eq!(repo["records"], json!({"target": target}));
    let pull = rest(&gh, &format!("pulls/{PR}")).await;
    let pr = &repo["pullRequest"];
    let fields = json!({"number": pull["number"], "state": "OPEN", "merged": pull["merged"],
        "body": pull["body"], "headRefOid": pull["head"]["sha"],
        "baseRefName": pull["base"]["ref"], "author": {"__typename": "User", "login": pull["user"]["login"]}});
    for (key, value) in fields.as_object().unwrap() {
        assert_eq!(&pr[key], value, "{key}");
    }
    let nodes = pr["commits"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1);
    let commit = &nodes[0]["commit"];
    assert_eq!(commit["oid"], head());
    // The runs REST lists, each App's in one suite.
    let suites = &commit["checkSuites"];
    assert_eq!(suites["pageInfo"]["hasNextPage"], false);
    let mut from_graphql = Vec::new();
    let mut slugs = Vec::new();
    for suite in suites["nodes"].as_array().unwrap() {
        slugs.push(suite["app"]["slug"].as_str().unwrap());
        assert_eq!(suite["checkRuns"]["pageInfo"]["hasNextPage"], false);
        for r in suite["checkRuns"]["nodes"].as_array().unwrap() {
            let shape = run(
                &r["databaseId"],
                &r["name"],
                &r["status"],
                &r["conclusion"],
                &r["externalId"],
            );
            from_graphql.push((shape, suite["app"]["slug"].clone(), r["summary"].clone()));
        }
    }
    assert_eq!(slugs, [APP_SLUG, "linter", "ci"]);
    let listed = rest(&gh, &format!("commits/{}/check-runs?filter=latest", head())).await;
    let mut from_rest: Vec<(Value, Value, Value)> = listed["check_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let shape = run(
                &r["id"],
                &r["name"],
                &r["status"],
                &r["conclusion"],
                &r["external_id"],
            );
            (
                shape,
                r["app"]["slug"].clone(),
                r["output"]["summary"].clone(),
            )
        })
        .collect();
    let by_id = |r: &(Value, Value, Value)| r.0[0].as_u64();
    from_graphql.sort_by_key(by_id);
    from_rest.sort_by_key(by_id);
    assert_eq!(from_graphql, from_rest);
    assert_eq!(from_rest.len(), 4, "{from_rest:?}");
    let ours = &suites["nodes"][0]["checkRuns"]["nodes"][0];
    assert_eq!(
        (&ours["status"], &ours["externalId"], &ours["summary"]),
        (
            &json!("IN_PROGRESS"),
            &json!("AUD-1"),
            &json!("Auditing AUD-1.")
        )
    );
    let build = &suites["nodes"][2]["checkRuns"]["nodes"][1];
    assert_eq!(
        (&build["name"], &build["status"], &build["conclusion"]),
        (&json!("build"), &json!("COMPLETED"), &json!("SUCCESS"))
    );
    assert_eq!(build["externalId"], Value::Null);
    let call = gh.requests().into_iter().find(|r| r.graphql.is_some());
    let call = call.unwrap();
    assert_eq!(call.path, "/graphql/repository");
    assert!(!call.is_write());
}

#[tokio::test]
async fn first_reads_gives_null_for_what_is_missing() {
    let gh = FakeGitHub::start().await;
    let answer = graphql(&gh, FIRST_READS, variables(8)).await;
    let repo = &answer["data"]["repository"];
    assert_eq!(
        repo,
        &json!({"id": auditloop_fake_github::graphql::repository_id(support::deliveries::REPO),
            "config": null, "records": null, "pullRequest": null})
    );
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{answer}");
    assert_eq!(errors[0]["type"], "NOT_FOUND");
    assert_eq!(errors[0]["path"], json!(["repository", "pullRequest"]));
    assert_eq!(
        errors[0]["message"],
        "Could not resolve to a PullRequest with the number of 8."
    );
    // A merged pull request without a description, by a bot; a directory is no file.
    gh.set_file(".github/auditloop.yml/x", "nested");
    gh.add_pull(PR, &head(), "", "dependabot[bot]");
    gh.close_pull(PR, true);
    gh.state().pulls.get_mut(&PR).unwrap()["body"] = Value::Null;
    let answer = graphql(&gh, FIRST_READS, variables(PR)).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let repo = &answer["data"]["repository"];
    assert_eq!(repo["config"], json!({"__typename": "Tree"}));
    let pr = &repo["pullRequest"];
    assert_eq!(
        (&pr["state"], &pr["merged"], &pr["body"]),
        (&json!("MERGED"), &json!(true), &json!(""))
    );
    // GraphQL names a bot by its App's slug, REST as `<slug>[bot]`.
    assert_eq!(
        pr["author"],
        json!({"__typename": "Bot", "login": "dependabot"})
    );
    let suites = &pr["commits"]["nodes"][0]["commit"]["checkSuites"];
    assert_eq!(
        suites,
        &json!({"pageInfo": {"hasNextPage": false}, "nodes": []})
    );
}

#[tokio::test]
async fn first_reads_pages_are_bounded_and_the_unserved_refused() {
    let gh = FakeGitHub::start().await;
    world(&gh).await;
    let query = FIRST_READS.replacen("checkRuns(first: 100", "checkRuns(first: 101", 1);
    assert_ne!(query, FIRST_READS);
    let answer = graphql(&gh, &query, variables(PR)).await;
    let suites = &answer["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]
        ["checkSuites"]["nodes"];
    assert_eq!(suites[0]["checkRuns"], Value::Null);
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 3, "one per suite: {answer}");
    assert_eq!(errors[0]["type"], "EXCESSIVE_PAGINATION");
    assert_eq!(errors[0]["message"], "Requesting 101 records on the `checkRuns` connection exceeds the `first` limit of 100 records.");
    let path = json!([
        "repository",
        "pullRequest",
        "commits",
        "nodes",
        0,
        "commit",
        "checkSuites",
        "nodes",
        0,
        "checkRuns"
    ]);
    assert_eq!(errors[0]["path"], path);
    // Short pages say that more follow.
    let query = FIRST_READS
        .replacen("checkSuites(first: 100", "checkSuites(first: 2", 1)
        .replacen("checkRuns(first: 100", "checkRuns(first: 1", 1);
    let answer = graphql(&gh, &query, variables(PR)).await;
    let suites = &answer["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]
        ["checkSuites"];
    assert_eq!(suites["pageInfo"]["hasNextPage"], true);
    let nodes = suites["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0]["checkRuns"]["pageInfo"]["hasNextPage"], false);
    assert_eq!(nodes[1]["app"]["slug"], "linter");
    assert!(gh.state().graphql_problems.is_empty());
    let unserved = [
        "pullRequest(number: 7) { additions }",
        "object(expression: \"main~1:.github/auditloop.yml\") { oid }",
        "pullRequest(number: 7) { commits(last: 2) { totalCount } }",
    ];
    for part in unserved {
        let query =
            format!("query {{ repository(owner: \"octo-org\", name: \"hello\") {{ {part} }} }}");
        graphql(&gh, &query, json!({})).await;
    }
    let found = std::mem::take(&mut gh.state().graphql_problems);
    assert_eq!(
        found,
        [
            "the fake GitHub does not serve PullRequest.additions",
            "the fake GitHub does not serve Repository.object(expression: \"main~1:.github/auditloop.yml\"): only `<branch>:<path>` and `<commit SHA>:<path>` are served",
            "the fake GitHub does not serve PullRequest.commits(last:) other than 1",
        ]
    );
}

#[tokio::test]
async fn the_app_decodes_first_reads_as_it_reads_rest() {
    let gh = FakeGitHub::start().await;
    world(&gh).await;
    let api = gh.installation_api("d-first-reads").await;
    let repo = RepoName::new(REPO).unwrap();
    let reads = first_reads(
        &api,
        &repo,
        PrNumber(PR),
        "main",
        RECORDS,
        CONFIG,
        (None, Extra::default()),
    )
    .await
    .unwrap();
    let FileRead::Found { text, .. } = read_file(&api, &repo, CONFIG, "main", None).await.unwrap()
    else {
        panic!("the configuration file is there");
    };
    let sha = rest(&gh, &format!("contents/{CONFIG}?ref=main")).await["sha"].clone();
    let oid = sha.as_str().unwrap().to_owned();
    assert_eq!(reads.config, Some(ConfigBlob::Found { oid, text }));
    let records = CommitSha::new(gh.branch_head(REPO, RECORDS).unwrap()).unwrap();
    let at = reads.records.clone().flatten().expect("the records head");
    assert_eq!(at.commit, records);
    let commit = rest(&gh, &format!("git/commits/{records}")).await;
    assert_eq!(at.tree.as_str(), commit["tree"]["sha"]);
    let parents: Vec<&str> = at.parents.iter().map(CommitSha::as_str).collect();
    let listed: Vec<&str> = commit["parents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["sha"].as_str())
        .collect();
    assert_eq!(parents, listed);
    let pull = get_pull(&api, &repo, PrNumber(PR)).await.unwrap();
    assert_eq!(reads.pull.as_ref(), Some(&pull));
    let (sha, mut runs) = reads.runs.expect("every run of the head");
    assert_eq!(sha, pull.head_sha);
    let mut listed = check_runs(&api, &repo, &sha).await.unwrap();
    runs.sort_by_key(|r| r.id);
    listed.sort_by_key(|r| r.id);
    assert_eq!(format!("{runs:?}"), format!("{listed:?}"));
    assert_eq!(runs.len(), 4);
    // What is missing is told apart from what was not read.
    let reads = first_reads(
        &api,
        &repo,
        PrNumber(8),
        "main",
        "nope",
        "missing.yml",
        (None, Extra::default()),
    )
    .await
    .unwrap();
    assert_eq!(reads.config, Some(ConfigBlob::Missing));
    assert_eq!(reads.records, Some(None));
    assert!(reads.pull.is_none() && reads.runs.is_none());
    // A bot's pull request names its author as REST does, `[bot]` and all.
    gh.add_pull(8, &head(), "", "dependabot[bot]");
    let reads = first_reads(
        &api,
        &repo,
        PrNumber(8),
        "main",
        RECORDS,
        CONFIG,
        (None, Extra::default()),
    )
    .await
    .unwrap();
    let pull = get_pull(&api, &repo, PrNumber(8)).await.unwrap();
    assert_eq!(pull.author, "dependabot[bot]");
    assert_eq!(reads.pull.as_ref(), Some(&pull));
    let calls: Vec<_> = gh
        .requests()
        .into_iter()
        .filter(|r| r.graphql.is_some())
        .collect();
    assert_eq!(calls.len(), 3);
    assert!(calls
        .iter()
        .all(|c| c.path == "/graphql/repository" && !c.is_write()));
}

#[tokio::test]
async fn the_open_prs_on_the_head_answer_what_rest_lists() {
    let gh = FakeGitHub::start().await;
    world(&gh).await;
    gh.add_pull(8, &head(), "Also on c.", "bob");
    let mut v = variables(PR);
    v["withSharing"] = json!(true);
    let answer = graphql(&gh, FIRST_READS, v).await;
    assert!(answer.get("errors").is_none(), "{answer}");
    let commit = &answer["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"];
    let listed: Vec<u64> = commit["sharing"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect();
    let rest: Vec<u64> = rest(&gh, &format!("commits/{}/pulls", head()))
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, rest);
    assert_eq!(listed.len(), 2, "{listed:?}");
}
