//! Every request the app sends during a whole loop is one GitHub documents: its method and
//! path match a route of GitHub's REST description, its query parameters and request-body
//! fields are ones that route declares (tests/fixtures/github-routes.json); the
//! fake's answers are checked against the same description as they are sent (`support::openapi`).
//! GraphQL requests are validated against GitHub's GraphQL schema by the fake itself.

use crate::support;

use serde_json::Value;
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::openapi;

/// Body fields must be declared; `allowed` null means the schema does not go deeper.
fn undeclared(body: &Value, allowed: &Value, at: &str, out: &mut Vec<String>) {
    let Some(allowed) = allowed.as_object() else {
        return;
    };
    let items: Vec<&Value> = match body {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    for item in items {
        if let Some(obj) = item.as_object() {
            for (k, v) in obj {
                match allowed.get(k) {
                    None => out.push(format!("{at}.{k}")),
                    Some(sub) => undeclared(v, sub, &format!("{at}.{k}"), out),
                }
            }
        }
    }
}

#[tokio::test]
async fn every_request_of_a_whole_loop_is_documented() {
    let mut l = Loop::start(42).await;
    // The app starts the auditor too, so the dispatch is checked with the rest.
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", "/audit new --goal \"Refuse replayed deliveries\" --oracle \"A replay has no second effect\" --evidence \"CI green\"").await;
    l.comment(
        42,
        "auditor",
        &report_comment(&report("AUD-1", 42, SHA1, "ci-1", "needs_remediation")),
    )
    .await;
    l.comment(
        42,
        "maint",
        "/audit waive A-02 --basis triage-threshold --reason \"below the bar\"",
    )
    .await;
    // Filed before the veto: a vetoed key takes `fix` only.
    l.comment(42, "maint", "/audit dispose A-01 file --note \"tracked\"")
        .await;
    l.comment(
        42,
        "maint",
        "/audit veto webhook-replay --reason \"must be fixed\"",
    )
    .await;
    l.comment(42, "reader", "/audit override --budget 9 --note \"more\"")
        .await;
    assert!(l.last_reply(42).starts_with("auditloop: refused"));
    l.comment(42, "alice", "/audit status").await;
    assert!(l.last_reply(42).starts_with("auditloop: status"));
    l.comment(42, "alice", "/audit help").await;
    assert!(l.last_reply(42).starts_with("auditloop: help"));
    l.gh.set_pull_head(42, SHA2);
    l.pull_event("synchronize", 42, SHA2).await;
    l.comment(42, "alice", "/audit gate").await;

    assert_eq!(l.gh.dispatches().len(), 1, "the loop dispatched");
    let requests = l.gh.requests();
    assert!(
        requests.len() > 40,
        "a real loop was exercised: {}",
        requests.len()
    );
    let mut problems = Vec::new();
    // GraphQL requests are checked against GitHub's GraphQL schema (`support::fake_graphql`).
    for r in requests.iter().filter(|r| r.graphql.is_none()) {
        let Some(route) = openapi::route_of(&r.method, &r.path) else {
            problems.push(format!("undocumented route: {} {}", r.method, r.path));
            continue;
        };
        for pair in r.query.split('&').filter(|p| !p.is_empty()) {
            let name = pair.split('=').next().unwrap_or_default();
            if !route.query.iter().any(|q| q == name) {
                problems.push(format!(
                    "{} {}: undeclared query parameter {name}",
                    r.method, r.path
                ));
            }
        }
        if !r.body.is_null() {
            let mut bad = Vec::new();
            undeclared(&r.body, &route.body, "body", &mut bad);
            for b in bad {
                problems.push(format!("{} {}: undeclared field {b}", r.method, route.path));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
