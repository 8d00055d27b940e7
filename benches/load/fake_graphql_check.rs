//! A self-test of the fake's GraphQL, run before every load or chaos run (`--self-test`
//! runs it alone): the answers the app's documents get, exactly as specified, and that a
//! GraphQL commit leaves the objects, moves and faults a REST commit does, and that
//! `FirstReads` (`fake_graphql_reads_check.rs`) and `BodyAndReaction`
//! (`fake_graphql_writes_check.rs`) agree with REST. It calls the fake's
//! handler directly, with no server and no latency (`fake_check.rs`).

use axum::http::Method;
use serde_json::{json, Value};

use auditloop_fake_github::faults::{Fault, Rates};

use crate::fake;
use crate::fake_check::{nonce, Check, REPO};
use crate::fake_graphql::{COMMIT, LANDED};
use crate::invariants;
use crate::payloads::BRANCH;

fn stale(expected: &str) -> Value {
    json!({"data": {"createCommitOnBranch": null}, "errors": [{"type": "STALE_DATA", "path": ["createCommitOnBranch"],
        "locations": [{"line": 2, "column": 3}],
        "message": format!("Expected branch to point to \"{expected}\" but it did not.  Pull and try again.")}]})
}

/// Runs the self-test; the checks that failed, or how many held.
pub async fn run() -> Result<usize, Vec<String>> {
    let mut c = Check::new();
    let root = c.create_branch().await;
    success(&mut c, &root).await;
    refusals(&mut c, &root).await;
    paging(&mut c).await;
    faults(&mut c).await;
    crate::fake_graphql_reads_check::run(&mut c).await;
    crate::fake_graphql_writes_check::run(&mut c).await;
    let (_, unknown) = c
        .call(
            Method::POST,
            "/graphql",
            &json!({"query": "query Viewer { viewer { login } }"}),
        )
        .await;
    c.expect(unknown["errors"][0]["message"].is_string(), || {
        format!("an unknown document: {unknown}")
    });
    c.expect(c.last_call().unserved, || {
        "an unknown document is not marked unserved".into()
    });
    let data = c.fake.data.lock().unwrap();
    let records = invariants::records(&data, REPO);
    let log = c.fake.log.lock().unwrap();
    let served = invariants::served(&log);
    let mut failed = std::mem::take(&mut c.failed);
    for o in [records.linear, records.chains] {
        failed.extend(o.violations.iter().map(|v| format!("{}: {v}", o.name)));
    }
    // Besides the unknown document, a file the fake does not hold, read through REST.
    let want = vec![
        "GET contents/{path}: 1 call(s)".to_owned(),
        "POST /graphql Viewer: 1 call(s)".to_owned(),
    ];
    if served.violations != want {
        failed.push(format!("unserved calls: {:?}", served.violations));
    }
    if failed.is_empty() {
        Ok(c.checks)
    } else {
        Err(failed)
    }
}

async fn success(c: &mut Check, root: &str) {
    let (status, answer) = c.commit("auditloop-records", root, "{\"next\": 2}\n").await;
    let head = c.head();
    let data = c.fake.data.lock().unwrap();
    let git = &data.git[REPO];
    let tree = git
        .commits
        .get(&head)
        .map(|c| c.tree.clone())
        .unwrap_or_default();
    let want = json!({"data": {"createCommitOnBranch": {"commit": {"oid": head, "tree": {"oid": tree}},
            // `pullRequest` is asked only `@include(if: $withPull)`: absent here.
            "ref": {"repository": {}}}}});
    let parents = git.commits.get(&head).map(|c| c.parents.clone());
    let message = git
        .commits
        .get(&head)
        .map(|c| c.message.clone())
        .unwrap_or_default();
    drop(data);
    c.equal(
        "RecordsCommit answer",
        &json!([status, answer]),
        &json!([200, want]),
    );
    c.expect(parents == Some(vec![root.to_owned()]), || {
        format!("the commit's parents are {parents:?}, not [{root}]")
    });
    c.expect(
        message
            == format!(
                "AUD-1: report run 1 [skip ci]\n\n{}",
                nonce("{\"next\": 2}\n")
            ),
        || format!("message {message:?}"),
    );
    let file = c.fake.data.lock().unwrap().git[REPO].file(BRANCH, "index.json");
    c.expect(file.as_deref() == Some("{\"next\": 2}\n"), || {
        format!("index.json at the head: {file:?}")
    });
    let route = c.last_call().route;
    c.expect(route == format!("POST /graphql {COMMIT}"), || {
        format!("logged as {route}")
    });
}

async fn refusals(c: &mut Check, root: &str) {
    let head = c.head();
    let (status, answer) = c.commit("auditloop-records", root, "{\"next\": 9}\n").await;
    c.equal(
        "STALE_DATA answer",
        &json!([status, answer]),
        &json!([200, stale(root)]),
    );
    c.expect(c.head() == head, || {
        "a stale commit moved the branch".into()
    });
    let (_, answer) = c.commit("nope", &head, "{\"next\": 9}\n").await;
    let want = json!({"data": {"createCommitOnBranch": null}, "errors": [{"type": "NOT_FOUND",
        "path": ["createCommitOnBranch"], "message": "Could not resolve to a Ref named \"refs/heads/nope\"."}]});
    c.equal("NOT_FOUND answer", &answer, &want);
    let (_, answer) = c.landed("nobody", None).await;
    c.equal(
        "RecordsLanded on no repository",
        &answer["data"]["repository"],
        &Value::Null,
    );
    c.equal(
        "its error",
        &answer["errors"][0]["type"],
        &json!("NOT_FOUND"),
    );
}

/// 61 more commits, then the branch read back in pages of 50.
async fn paging(c: &mut Check) {
    for n in 3..64 {
        let head = c.head();
        c.commit("auditloop-records", &head, &format!("{{\"next\": {n}}}\n"))
            .await;
    }
    let mut chain = Vec::new();
    {
        let data = c.fake.data.lock().unwrap();
        let git = &data.git[REPO];
        let mut at = git.refs.get(BRANCH).cloned();
        while let Some(oid) = at {
            let commit = &git.commits[&oid];
            chain
                .push(json!({"oid": oid, "message": commit.message, "tree": {"oid": commit.tree}}));
            at = commit.parents.first().cloned();
        }
    }
    c.expect(chain.len() == 63, || {
        format!("{} commits on the branch", chain.len())
    });
    let (_, first) = c.landed("octo-org", None).await;
    let history = &first["data"]["repository"]["ref"]["target"]["history"];
    c.equal(
        "target",
        &first["data"]["repository"]["ref"]["target"]["oid"],
        &chain[0]["oid"],
    );
    c.equal("page 1", &history["nodes"], &json!(chain[..50]));
    c.equal(
        "page 1 has a next",
        &history["pageInfo"]["hasNextPage"],
        &json!(true),
    );
    c.equal(
        "rate limit cost",
        &first["data"]["rateLimit"]["cost"],
        &json!(1),
    );
    c.expect(
        first["data"]["rateLimit"]["remaining"]
            .as_u64()
            .is_some_and(|r| r < 5000),
        || format!("rate limit {}", first["data"]["rateLimit"]),
    );
    let cursor = history["pageInfo"]["endCursor"]
        .as_str()
        .unwrap_or_default();
    let (_, second) = c.landed("octo-org", Some(cursor)).await;
    let history = &second["data"]["repository"]["ref"]["target"]["history"];
    c.equal("page 2", &history["nodes"], &json!(chain[50..]));
    c.equal(
        "page 2 is the last",
        &history["pageInfo"]["hasNextPage"],
        &json!(false),
    );
    let route = c.last_call().route;
    c.expect(route == format!("POST /graphql {LANDED}"), || {
        format!("logged as {route}")
    });
    c.expect(
        !fake::reads(&format!("POST /graphql {COMMIT}")) && fake::reads(&route),
        || "RecordsLanded not counted as a read".into(),
    );
}

/// Each fault, alone and certain, on one `RecordsCommit`.
async fn faults(c: &mut Check) {
    let zero = Rates::NONE;
    c.fake.faults.set(true);
    for (fault, rates, want_moves) in [
        (
            Fault::Before502,
            Rates {
                before: 1.0,
                ..zero
            },
            0,
        ),
        (Fault::After502, Rates { after: 1.0, ..zero }, 1),
        (Fault::Lost, Rates { lost: 1.0, ..zero }, 1),
        (
            Fault::Conflict,
            Rates {
                conflict: 1.0,
                ..zero
            },
            1,
        ),
        (
            Fault::RateLimited,
            Rates {
                rate_limit: 1.0,
                ..zero
            },
            0,
        ),
    ] {
        c.fake.faults.configure(rates, 1);
        let head = c.head();
        let moves = || c.fake.data.lock().unwrap().git[REPO].moves.len();
        let before = moves();
        let (status, answer) = c
            .commit("auditloop-records", &head, "{\"next\": 70}\n")
            .await;
        let moved = moves() - before;
        let call = c.last_call();
        let (want_status, logged) = match fault {
            Fault::Before502 | Fault::After502 => (502, 502),
            Fault::Lost => (200, 0),
            Fault::Conflict => (200, 200),
            Fault::RateLimited => (403, 403),
        };
        let name = fault.name();
        c.expect(
            call.fault == Some(name) && call.status == logged && status == want_status,
            || {
                format!(
                    "{name}: answered {status}, logged {} with {:?}",
                    call.status, call.fault
                )
            },
        );
        c.expect(moved == want_moves, || {
            format!("{name}: the branch moved {moved} time(s)")
        });
        if fault == Fault::Conflict {
            c.equal("conflict answer", &answer, &stale(&head));
        }
        if fault == Fault::RateLimited {
            let retry = c.retry_after.lock().unwrap().clone();
            c.expect(retry.as_deref() == Some("1"), || {
                format!("retry-after {retry:?}")
            });
        }
    }
    c.fake.faults.set(false);
}
