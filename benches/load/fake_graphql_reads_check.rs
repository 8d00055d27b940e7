//! The self-test of `query FirstReads`, sent as the app's own document: each part of the
//! answer against what the fake's REST routes answer for the same thing (the configuration
//! file, the records branch present and absent, the pull request, the check runs on its
//! head), a missing pull request or repository as GitHub answers them, and the faults a read
//! may meet.

use auditloop::engine::repo_config::CONFIG_PATH;
use auditloop::github::first_reads::{FIRST_READS, ROUTE};
use axum::http::Method;
use base64::Engine;
use serde_json::{json, Value};

use crate::fake;
use crate::fake_check::{Answer, Check, REPO};
use crate::payloads::BRANCH;
use auditloop_fake_github::faults::{Fault, Rates};

/// The pull request the reads are about, and its head.
const NUMBER: u64 = 7;
const HEAD: &str = "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a";

fn variables(owner: &str, number: u64, config: &str, records: &str) -> Value {
    json!({"owner": owner, "name": "hello", "number": number,
        "config": format!("main:{config}"), "records": format!("refs/{records}"),
        "files": false, "listing": false, "index": "", "record": "", "withRecord": false, "patterns": "", "withCommits": false, "withThreads": false, "withSharing": false})
}

async fn reads(c: &Check, vars: Value) -> Answer {
    let body = json!({"query": FIRST_READS, "variables": vars});
    c.call(Method::POST, "/graphql", &body).await
}

async fn get(c: &Check, path: &str) -> Answer {
    c.call(Method::GET, &format!("/repos/{REPO}/{path}"), &Value::Null)
        .await
}

/// Runs the `FirstReads` checks on the fake `c` holds (its records branch already made).
pub async fn run(c: &mut Check) {
    c.fake.add_pull(REPO, NUMBER, HEAD);
    seed_runs(c).await;
    let points = || c.fake.data.lock().unwrap().graphql_points;
    let before = points();
    let (status, answer) = reads(c, variables("octo-org", NUMBER, CONFIG_PATH, BRANCH)).await;
    let spent = points() - before;
    c.equal(
        "FirstReads status and errors",
        &json!([status, answer["errors"]]),
        &json!([200, null]),
    );
    let call = c.last_call();
    c.expect(
        call.route == ROUTE && !call.unserved && fake::reads(ROUTE),
        || {
            format!(
                "FirstReads logged as {}, unserved {}",
                call.route, call.unserved
            )
        },
    );
    c.expect(spent == 1, || format!("FirstReads cost {spent} point(s)"));
    let repository = &answer["data"]["repository"];
    config(c, &repository["config"]).await;
    records(c, &repository["records"]).await;
    records_files(c).await;
    let (_, rest) = get(c, &format!("pulls/{NUMBER}")).await;
    pull(c, "the pull request", &repository["pullRequest"], &rest);
    runs(c, HEAD, &repository["pullRequest"]).await;
    absent(c, repository).await;
    states(c).await;
    paging(c).await;
    faults(c, &answer).await;
}

/// Runs on the head through REST: one updated, one run again (only the latest counts), one
/// of another app, one on another commit.
async fn seed_runs(c: &Check) {
    let post = |body: Value| async move {
        c.call(Method::POST, &format!("/repos/{REPO}/check-runs"), &body)
            .await
    };
    let output = |summary: &str| json!({"title": "Audit", "summary": summary});
    post(json!({"name": "auditloop", "head_sha": HEAD, "status": "completed", "conclusion": "failure",
        "external_id": "AUD-1", "output": output("first try")}))
    .await;
    post(json!({"name": "auditloop", "head_sha": HEAD, "status": "completed", "conclusion": "success",
        "external_id": "AUD-1", "output": output("all good")}))
    .await;
    let (_, lint) = post(
        json!({"name": "lint", "head_sha": HEAD, "status": "in_progress",
        "external_id": "", "output": output("running")}),
    )
    .await;
    let id = lint["id"].as_u64().unwrap_or_default();
    let update =
        json!({"status": "completed", "conclusion": "action_required", "output": output("look")});
    c.call(
        Method::PATCH,
        &format!("/repos/{REPO}/check-runs/{id}"),
        &update,
    )
    .await;
    post(json!({"name": "elsewhere", "head_sha": "1".repeat(40), "status": "queued"})).await;
    let other = json!({"id": 5, "node_id": auditloop_fake_github::objects::node_id("CR", 5), "name": "ci/test", "head_sha": HEAD, "status": "queued",
        "app": {"slug": "other-ci"}});
    c.fake.data.lock().unwrap().runs.add(REPO, other);
}

async fn config(c: &mut Check, got: &Value) {
    let (status, rest) = get(c, &format!("contents/{CONFIG_PATH}?ref=main")).await;
    let text = base64::engine::general_purpose::STANDARD
        .decode(rest["content"].as_str().unwrap_or_default())
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    c.expect(status == 200 && text.is_some(), || {
        format!("REST contents: {status} {rest}")
    });
    let want =
        json!({"__typename": "Blob", "oid": rest["sha"], "text": text, "isTruncated": false});
    c.equal("config as REST serves it", got, &want);
}

async fn records(c: &mut Check, got: &Value) {
    let (_, rest) = get(c, &format!("git/ref/{BRANCH}")).await;
    let sha = rest["object"]["sha"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (_, commit) = get(c, &format!("git/commits/{sha}")).await;
    let parents: Vec<Value> = commit["parents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| json!({"oid": p["sha"]}))
        .collect();
    let want = json!({"target": {"__typename": "Commit", "oid": sha,
        "tree": {"oid": commit["tree"]["sha"]}, "parents": {"nodes": parents}}});
    c.equal(
        "records ref, tree and parents as REST serves them",
        got,
        &want,
    );
    let head = c.head();
    c.equal(
        "records ref at the head",
        &got["target"]["oid"],
        &json!(head),
    );
}

/// `got` (a `pullRequest`) against the REST body `rest`.
fn pull(c: &mut Check, what: &str, got: &Value, rest: &Value) {
    let merged = rest["merged"].as_bool().unwrap_or(false);
    let state = match (rest["state"].as_str(), merged) {
        (Some("open"), _) => "OPEN",
        (_, true) => "MERGED",
        _ => "CLOSED",
    };
    let want = json!({"id": rest["node_id"], "number": rest["number"], "state": state, "merged": merged, "title": rest["title"], "body": rest["body"],
        "headRefOid": rest["head"]["sha"], "baseRefName": rest["base"]["ref"],
        "author": {"__typename": "User", "login": rest["user"]["login"]}});
    let mut got = got.clone();
    if let Some(o) = got.as_object_mut() {
        o.remove("commits");
    }
    c.equal(what, &got, &want);
}

/// The runs of `pull`'s head against `GET commits/{head}/check-runs`, as `(app, run)` pairs.
async fn runs(c: &mut Check, head: &str, pull: &Value) {
    let (_, rest) = get(
        c,
        &format!("commits/{head}/check-runs?filter=latest&per_page=100"),
    )
    .await;
    let node = |r: &Value| {
        let upper = |v: &Value| v.as_str().map(str::to_ascii_uppercase);
        json!({"id": r["node_id"], "databaseId": r["id"], "name": r["name"], "status": upper(&r["status"]),
            "conclusion": upper(&r["conclusion"]),
            "externalId": r["external_id"].as_str().filter(|s| !s.is_empty()),
            "summary": r["output"]["summary"]})
    };
    let by_id = |v: &Value| v[1]["databaseId"].as_u64();
    let mut want: Vec<Value> = rest["check_runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| json!([r["app"]["slug"], node(r)]))
        .collect();
    want.sort_by_key(by_id);
    let commit = &pull["commits"]["nodes"][0]["commit"];
    let suites = &commit["checkSuites"];
    let mut got: Vec<Value> = Vec::new();
    let mut apps = Vec::new();
    for suite in suites["nodes"].as_array().into_iter().flatten() {
        apps.push(suite["app"]["slug"].clone());
        for r in suite["checkRuns"]["nodes"].as_array().into_iter().flatten() {
            got.push(json!([suite["app"]["slug"], r]));
        }
        c.equal(
            "a suite's hasNextPage",
            &suite["checkRuns"]["pageInfo"]["hasNextPage"],
            &json!(false),
        );
    }
    got.sort_by_key(by_id);
    c.equal("check runs as REST lists them", &json!(got), &json!(want));
    c.equal("the commit is the head", &commit["oid"], &json!(head));
    c.equal(
        "the suites' hasNextPage",
        &suites["pageInfo"]["hasNextPage"],
        &json!(false),
    );
    let mut slugs: Vec<Value> = want.iter().map(|w| w[0].clone()).collect();
    apps.sort_by_key(Value::to_string);
    slugs.sort_by_key(Value::to_string);
    slugs.dedup();
    c.equal("one suite per app", &json!(apps), &json!(slugs));
    c.expect(want.len() == 3, || {
        format!("{} latest runs on the head", want.len())
    });
}

/// An absent records branch, an unknown file, a missing pull request and repository.
async fn absent(c: &mut Check, full: &Value) {
    let (status, _) = get(c, "git/ref/heads/nope").await;
    let (_, answer) = reads(c, variables("octo-org", NUMBER, CONFIG_PATH, "heads/nope")).await;
    c.equal(
        "an absent ref, REST status and GraphQL",
        &json!([status, answer["data"]["repository"]["records"]]),
        &json!([404, null]),
    );
    let (status, _) = get(c, "contents/.github/other.yml").await;
    let rest_unserved = c.last_call().unserved;
    let (_, answer) = reads(
        c,
        variables("octo-org", NUMBER, ".github/other.yml", BRANCH),
    )
    .await;
    c.equal(
        "an unknown file, REST status and GraphQL",
        &json!([status, answer["data"]["repository"]["config"]]),
        &json!([404, null]),
    );
    // GitHub's answer for a file that is not there is null; only the REST route, which
    // the fake serves for the configuration file alone, marks the path unmodelled.
    c.expect(rest_unserved, || {
        "an unknown file is not marked unserved through REST".into()
    });
    let (status, _) = get(c, "pulls/999").await;
    let (_, answer) = reads(c, variables("octo-org", 999, CONFIG_PATH, BRANCH)).await;
    let mut want = full.clone();
    want["pullRequest"] = Value::Null;
    c.equal(
        "a missing pull request, REST status and GraphQL",
        &json!([status, answer["data"]["repository"]]),
        &json!([404, want]),
    );
    let mut errors = answer["errors"].clone();
    let located = errors[0]
        .as_object_mut()
        .and_then(|e| e.remove("locations"))
        .is_some_and(|at| at[0]["line"].is_u64());
    c.expect(located, || {
        format!("its error has no location: {}", answer["errors"])
    });
    let error = json!([{"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
        "message": "Could not resolve to a PullRequest with the number of 999."}]);
    c.equal("its error", &errors, &error);
    let (_, answer) = reads(c, variables("nobody", NUMBER, CONFIG_PATH, BRANCH)).await;
    c.equal(
        "no repository",
        &json!([
            answer["data"],
            answer["errors"][0]["type"],
            answer["errors"][0]["path"]
        ]),
        &json!([{"repository": null}, "NOT_FOUND", ["repository"]]),
    );
}

/// Closed and merged pull requests read as REST has them.
async fn states(c: &mut Check) {
    for (number, state, merged) in [(8, "closed", true), (9, "closed", false)] {
        c.fake.add_pull(REPO, number, HEAD);
        if let Some(p) = c
            .fake
            .data
            .lock()
            .unwrap()
            .pulls
            .get_mut(&(REPO.to_owned(), number))
        {
            p["state"] = json!(state);
            p["merged"] = json!(merged);
            p["body"] = Value::Null;
        }
        let (_, rest) = get(c, &format!("pulls/{number}")).await;
        let (_, answer) = reads(c, variables("octo-org", number, CONFIG_PATH, BRANCH)).await;
        let got = &answer["data"]["repository"]["pullRequest"];
        let mut rest = rest;
        rest["body"] = json!("");
        pull(c, &format!("pull request {number} ({state})"), got, &rest);
    }
}

/// With `$files`: the records tree nested as GraphQL lists it, flattened, is the blobs of
/// REST's recursive tree, and the files asked hold the texts of REST's blobs.
async fn records_files(c: &mut Check) {
    let files = [
        ("records/AUD-1.json", "{\"id\": \"AUD-1\"}"),
        ("reports/AUD-1/run-1.json", "{}"),
        ("deep/a/b/c.txt", "too deep for the query"),
    ];
    let owned: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
        .collect();
    // A branch of its own: the records branch's invariants stay the records'.
    let branch = "heads/listing-check";
    let mut owned = owned;
    owned.push(("index.json".into(), "{}".into()));
    c.fake
        .data
        .lock()
        .unwrap()
        .git
        .get_mut(REPO)
        .expect("the repository")
        .commit_files(branch, &owned);
    let mut vars = variables("octo-org", NUMBER, CONFIG_PATH, branch);
    for (k, v) in [
        ("files", json!(true)),
        ("listing", json!(true)),
        ("index", json!("index.json")),
        ("record", json!("records/AUD-1.json")),
        ("withRecord", json!(true)),
        ("patterns", json!("patterns.json")),
    ] {
        vars[k] = v;
    }
    let (_, answer) = reads(c, vars).await;
    let target = &answer["data"]["repository"]["records"]["target"];
    let mut listed = Vec::new();
    let mut deeper = false;
    flatten("", &target["tree"]["entries"], &mut listed, &mut deeper);
    let (_, rest) = get(
        c,
        &format!(
            "git/trees/{}?recursive=1",
            target["tree"]["oid"].as_str().unwrap_or_default()
        ),
    )
    .await;
    let mut want: Vec<(String, String)> = rest["tree"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            e["type"] == "blob" && !e["path"].as_str().unwrap_or_default().starts_with("deep/")
        })
        .map(|e| {
            (
                e["path"].as_str().unwrap_or_default().to_owned(),
                e["sha"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    want.sort();
    listed.sort();
    c.equal(
        "the records listing as REST's tree",
        &json!(listed),
        &json!(want),
    );
    c.expect(deeper, || {
        "a tree deeper than three levels is not expanded".into()
    });
    for (field, path) in [("index", "index.json"), ("record", "records/AUD-1.json")] {
        let oid = target[field]["oid"].as_str().unwrap_or_default().to_owned();
        let (_, blob) = get(c, &format!("git/blobs/{oid}")).await;
        let text = base64::engine::general_purpose::STANDARD
            .decode(
                blob["content"]
                    .as_str()
                    .unwrap_or_default()
                    .replace('\n', ""),
            )
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        c.equal(
            &format!("{path} as REST's blob"),
            &target[field]["object"],
            &json!({"__typename": "Blob", "text": text, "isTruncated": false}),
        );
    }
    c.equal("a file the branch lacks", &target["patterns"], &Value::Null);
}

/// The blobs of nested `entries`, by path; `deeper`: a tree was left unexpanded.
fn flatten(prefix: &str, entries: &Value, out: &mut Vec<(String, String)>, deeper: &mut bool) {
    for e in entries.as_array().into_iter().flatten() {
        let path = format!("{prefix}{}", e["name"].as_str().unwrap_or_default());
        let oid = e["oid"].as_str().unwrap_or_default().to_owned();
        match (e["type"].as_str(), e["object"].get("entries")) {
            (Some("blob"), _) => out.push((path, oid)),
            (Some("tree"), Some(inner)) => flatten(&format!("{path}/"), inner, out, deeper),
            _ => *deeper = true,
        }
    }
}

/// A head with 101 runs: the first page of 100, and a next one.
async fn paging(c: &mut Check) {
    let head = "5".repeat(40);
    c.fake.add_pull(REPO, 10, &head);
    {
        let mut data = c.fake.data.lock().unwrap();
        for n in 0..101 {
            let run = json!({"id": 20_000 + n, "name": format!("matrix {n}"), "head_sha": head,
                "status": "completed", "conclusion": "success", "app": {"slug": crate::fake_data::SLUG}});
            data.runs.add(REPO, run);
        }
    }
    let (_, answer) = reads(c, variables("octo-org", 10, CONFIG_PATH, BRANCH)).await;
    let suite = &answer["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]
        ["checkSuites"]["nodes"][0]["checkRuns"];
    let len = suite["nodes"].as_array().map_or(0, Vec::len);
    c.equal(
        "101 runs: a page of 100 and a next",
        &json!([len, suite["pageInfo"]["hasNextPage"]]),
        &json!([100, true]),
    );
}

/// Faults as on any read: 502s and the secondary limit, never a lost answer or a conflict.
async fn faults(c: &mut Check, full: &Value) {
    let zero = Rates::NONE;
    c.fake.faults.set(true);
    for (rates, want_status, want_fault) in [
        (
            Rates {
                before: 1.0,
                ..zero
            },
            502,
            Some(Fault::Before502),
        ),
        (Rates { after: 1.0, ..zero }, 502, Some(Fault::After502)),
        (
            Rates {
                rate_limit: 1.0,
                ..zero
            },
            403,
            Some(Fault::RateLimited),
        ),
        (
            Rates {
                lost: 1.0,
                conflict: 1.0,
                ..zero
            },
            200,
            None,
        ),
    ] {
        c.fake.faults.configure(rates, 1);
        let answer = reads(c, variables("octo-org", NUMBER, CONFIG_PATH, BRANCH)).await;
        let call = c.last_call();
        let fault = want_fault.map(Fault::name);
        c.expect(
            answer.0 == want_status && call.status == want_status && call.fault == fault,
            || {
                format!(
                    "FirstReads under {fault:?}: answered {}, logged {} with {:?}",
                    answer.0, call.status, call.fault
                )
            },
        );
        if want_fault.is_none() {
            c.equal("FirstReads unfaulted", &answer.1, full);
        }
    }
    c.fake.faults.set(false);
}
