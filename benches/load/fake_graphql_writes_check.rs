//! The self-test of `mutation BodyAndReaction`, sent as the app's own document: the body
//! as `GET pulls/{n}` then serves it, the +1 as the reactions route then sees it (its
//! repeat answers 200), and an id the fake never gave answered as GitHub answers it.

use auditloop::github::body_and_reaction::{BODY_AND_REACTION, ROUTE};
use axum::http::Method;
use serde_json::{json, Value};

use crate::fake;
use crate::fake_graphql_check::{Answer, Check, REPO};

const NUMBER: u64 = 12;
const COMMENT: u64 = 4_242;

async fn send(c: &Check, pull: &str, body: &str, comment: &str) -> Answer {
    let vars = json!({"pull": pull, "body": body, "comment": comment});
    let request = json!({"query": BODY_AND_REACTION, "variables": vars});
    c.call(Method::POST, "/graphql", &request).await
}

/// Runs the `BodyAndReaction` checks on the fake `c` holds.
pub async fn run(c: &mut Check) {
    c.fake.add_pull(REPO, NUMBER, &"c".repeat(40));
    let pull = fake::pull_node(REPO, NUMBER);
    let comment = fake::comment_node(COMMENT);
    let points = || c.fake.data.lock().unwrap().graphql_points;
    let before = points();
    let (status, answer) = send(c, &pull, "the new body", &comment).await;
    let spent = points() - before;
    c.equal(
        "BodyAndReaction",
        &json!([status, answer]),
        &json!([200, {"data": {"body": {"pullRequest": {"id": pull}},
            "reaction": {"reaction": {"content": "THUMBS_UP"}}}}]),
    );
    let call = c.last_call();
    c.expect(
        call.route == ROUTE && !call.unserved && !fake::reads(ROUTE) && spent == 1,
        || {
            format!(
                "BodyAndReaction logged as {}, unserved {}, {spent} point(s)",
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
}
