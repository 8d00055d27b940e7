//! The fake GitHub carries out the app's `BodyAndReaction` mutation on the same state as
//! REST's body update and reaction routes, finds the PR and the comment by the node ids
//! their REST objects carry, answers an id it never gave as GitHub does (that part null,
//! the other still done), and refuses input it does not serve.

use crate::support;

use auditloop::github::body_and_reaction::{set_body_and_react, BODY_AND_REACTION};
use auditloop::ids::NodeId;
use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::FakeGitHub;
use support::github_objects::node_id;

const PR: u64 = 7;
const COMMENT: u64 = 4_242;

async fn graphql(gh: &FakeGitHub, query: &str, variables: Value) -> Value {
    gh.post_graphql(query, variables).await
}

/// The PR's node id as its REST object gives it.
async fn pull_node(gh: &FakeGitHub) -> String {
    let url = format!("{}/repos/{REPO}/pulls/{PR}", gh.api_url());
    let pr: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
    pr["node_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_body_and_the_reaction_land_as_rest_makes_them() {
    let gh = FakeGitHub::start().await;
    gh.add_pull(PR, &"c".repeat(40), "Before.", "alice");
    let api = gh.installation_api("d-body-reaction").await;
    let pull = NodeId::new(pull_node(&gh).await).unwrap();
    let comment = NodeId::new(node_id("IC", COMMENT)).unwrap();
    set_body_and_react(&api, &pull, "After.", &comment)
        .await
        .unwrap();
    assert_eq!(gh.pull_body(PR), "After.");
    assert_eq!(gh.state().reactions, [(COMMENT, "+1".to_owned())]);
    // Sent again (a lost answer), nothing more: GitHub keeps one reaction per content.
    set_body_and_react(&api, &pull, "After.", &comment)
        .await
        .unwrap();
    assert_eq!(gh.state().reactions.len(), 1);
    let url = format!(
        "{}/repos/{REPO}/issues/comments/{COMMENT}/reactions",
        gh.api_url()
    );
    let again = reqwest::Client::new()
        .post(url)
        .json(&json!({"content": "+1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200, "REST sees the reaction GraphQL gave");
    assert!(gh.state().graphql_problems.is_empty());
}

#[tokio::test]
async fn an_id_github_never_gave_fails_its_part_and_the_call() {
    let gh = FakeGitHub::start().await;
    gh.add_pull(PR, &"c".repeat(40), "Before.", "alice");
    let pull = pull_node(&gh).await;
    let vars = json!({"pull": pull, "body": "After.", "comment": "MDEyOklzc3VlQ29tbWVudDE="});
    let answer = graphql(&gh, BODY_AND_REACTION, vars).await;
    assert_eq!(answer["data"]["reaction"], Value::Null, "{answer}");
    assert_eq!(answer["data"]["body"]["pullRequest"]["id"], json!(pull));
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(answer["errors"][0]["path"], json!(["reaction"]));
    assert_eq!(gh.pull_body(PR), "After.", "the other part is still done");
    // The app's call fails as a whole, so the delivery is retried.
    let api = gh.installation_api("d-body-reaction-bad").await;
    let unknown = NodeId::new("MDEyOklzc3VlQ29tbWVudDE=").unwrap();
    let err = set_body_and_react(&api, &NodeId::new(pull).unwrap(), "After.", &unknown)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("NOT_FOUND"), "{err}");
    assert!(gh.state().graphql_problems.is_empty());
}

#[tokio::test]
async fn input_the_fake_does_not_serve_is_refused() {
    let gh = FakeGitHub::start().await;
    gh.add_pull(PR, &"c".repeat(40), "Before.", "alice");
    let pull = pull_node(&gh).await;
    let comment = node_id("IC", COMMENT);
    let sent = [
        format!("mutation {{ updatePullRequest(input: {{pullRequestId: \"{pull}\", title: \"T\"}}) {{ pullRequest {{ id }} }} }}"),
        format!("mutation {{ addReaction(input: {{subjectId: \"{comment}\", content: HEART}}) {{ reaction {{ content }} }} }}"),
    ];
    for query in &sent {
        graphql(&gh, query, json!({})).await;
    }
    let found = std::mem::take(&mut gh.state().graphql_problems);
    assert_eq!(
        found,
        ["the fake GitHub does not serve UpdatePullRequestInput.title"],
        "a HEART is served like any content REST has"
    );
    assert_eq!(gh.state().reactions, [(COMMENT, "heart".to_owned())]);
    assert_eq!(gh.pull_body(PR), "Before.");
}
