//! The self-test of `mutation Views`, sent as the app's own document: the body as
//! `GET pulls/{n}` then serves it, the +1 as the reactions route then sees it (its repeat
//! answers 200), a check run as `GET commits/{sha}/check-runs` then lists it, and an id
//! the fake never gave answered as GitHub answers it.

use auditloop::engine::ids::NodeId;
use auditloop::github::views_mutation::{document, RunWrite, Threads, Views, ROUTE};
use axum::http::Method;
use serde_json::{json, Value};

use crate::fake_check::{Answer, Check, REPO};
use crate::{fake, fake_data};

const NUMBER: u64 = 12;
const COMMENT: u64 = 4_242;

async fn send(c: &Check, pull: &str, body: &str, comment: &str) -> Answer {
    let (p, k) = (NodeId::new(pull).unwrap(), NodeId::new(comment).unwrap());
    let (text, vars) = document(&Views {
        body: Some((&p, body)),
        reaction: Some(&k),
        run: None,
        threads: Threads::default(),
    });
    let request = json!({"query": text, "variables": vars});
    c.call(Method::POST, "/graphql", &request).await
}

async fn send_run(c: &Check, run: RunWrite) -> Answer {
    let (text, vars) = document(&Views {
        run: Some(run),
        threads: Threads::default(),
        ..Views::default()
    });
    let request = json!({"query": text, "variables": vars});
    c.call(Method::POST, "/graphql", &request).await
}

/// Runs the `Views` checks on the fake `c` holds.
pub async fn run(c: &mut Check) {
    c.fake.add_pull(REPO, NUMBER, &"c".repeat(40));
    let pull = fake_data::pull_node(REPO, NUMBER);
    let comment = fake_data::comment_node(COMMENT);
    let points = || c.fake.data.lock().unwrap().graphql_points;
    let before = points();
    let (status, answer) = send(c, &pull, "the new body", &comment).await;
    let spent = points() - before;
    c.equal(
        "Views",
        &json!([status, answer]),
        &json!([200, {"data": {"body": {"pullRequest": {"id": pull}},
            "reaction": {"reaction": {"content": "THUMBS_UP"}}}}]),
    );
    let call = c.last_call();
    c.expect(
        call.route == ROUTE && !call.unserved && !fake::reads(ROUTE) && spent == 1,
        || {
            format!(
                "Views logged as {}, unserved {}, {spent} point(s)",
                call.route, call.unserved
            )
        },
    );
    let path = format!("/repos/{REPO}/pulls/{NUMBER}");
    let (_, rest) = c.call(Method::GET, &path, &Value::Null).await;
    c.equal(
        "the body as REST serves it",
        &rest["body"],
        &json!("the new body"),
    );
    let reactions = format!("/repos/{REPO}/issues/comments/{COMMENT}/reactions");
    let (again, _) = c
        .call(Method::POST, &reactions, &json!({"content": "+1"}))
        .await;
    c.expect(again == 200, || {
        format!("the +1 given through GraphQL, asked again through REST: {again}")
    });
    let (status, answer) = send(c, "PR_never_given", "other", &comment).await;
    c.equal(
        "an unknown pull request",
        &json!([
            status,
            answer["data"]["body"],
            answer["errors"][0]["type"],
            answer["errors"][0]["path"]
        ]),
        &json!([200, null, "NOT_FOUND", ["body"]]),
    );
    c.equal(
        "its reaction still given",
        &answer["data"]["reaction"],
        &json!({"reaction": {"content": "THUMBS_UP"}}),
    );
    let head = "d".repeat(40);
    let create = json!({"repositoryId": fake_data::repo_node(REPO), "headSha": head,
        "name": "audit-gate", "status": "COMPLETED", "conclusion": "SUCCESS",
        "output": {"title": "Certified", "summary": "S", "text": "T"}});
    let (status, answer) = send_run(c, RunWrite::Create(create)).await;
    let node = answer["data"]["run"]["checkRun"]["id"].clone();
    c.expect(status == 200 && node.is_string(), || {
        format!("createCheckRun: {status} {answer}")
    });
    let listed = format!("/repos/{REPO}/commits/{head}/check-runs");
    let (_, runs) = c.call(Method::GET, &listed, &Value::Null).await;
    c.equal(
        "the run GraphQL created, as REST lists it",
        &json!([
            runs["check_runs"][0]["node_id"],
            runs["check_runs"][0]["conclusion"]
        ]),
        &json!([node, "success"]),
    );
    let update = json!({"repositoryId": fake_data::repo_node(REPO), "checkRunId": node,
        "status": "IN_PROGRESS", "output": {"title": "Waiting", "summary": "S2"}});
    let (_, answer) = send_run(c, RunWrite::Update(update)).await;
    let (_, runs) = c.call(Method::GET, &listed, &Value::Null).await;
    c.equal(
        "the run GraphQL updated, as REST lists it",
        &json!([
            answer["data"]["run"]["checkRun"]["id"],
            runs["check_runs"][0]["status"]
        ]),
        &json!([node, "in_progress"]),
    );
}
