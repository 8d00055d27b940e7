//! The fake GitHub carries out the app's `Views` mutation on the same state as REST's body
//! update, reaction and check-run routes, finds the PR, the comment and the run by the node
//! ids their REST objects carry, answers an id it never gave as GitHub does (that part
//! null, the other still done), and refuses input it does not serve.

use crate::support;

use auditloop::engine::ids::NodeId;
use auditloop::github::views_mutation::{document, publish, RunWrite, Views};
use auditloop::github::Api;
use auditloop_fake_github::objects::node_id;
use serde_json::{json, Value};
use support::deliveries::REPO;
use support::fake::FakeGitHub;

const PR: u64 = 7;
const COMMENT: u64 = 4_242;

async fn graphql(gh: &FakeGitHub, query: &str, variables: Value) -> Value {
    gh.post_graphql(query, variables).await
}

async fn set_body_and_react(
    api: &Api,
    pull: &NodeId,
    body: &str,
    comment: &NodeId,
) -> Result<(), auditloop::github::GitHubError> {
    let views = Views {
        body: Some((pull, body)),
        reaction: Some(comment),
        run: None,
        threads: auditloop::github::views_mutation::Threads::default(),
    };
    publish(api, &views).await.map(drop)
}

fn body_and_reaction_document() -> String {
    let (pull, comment) = (NodeId::new("PR_x").unwrap(), NodeId::new("IC_x").unwrap());
    document(&Views {
        body: Some((&pull, "b")),
        reaction: Some(&comment),
        run: None,
        threads: auditloop::github::views_mutation::Threads::default(),
    })
    .0
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
    let answer = graphql(&gh, &body_and_reaction_document(), vars).await;
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

#[tokio::test]
async fn a_check_run_created_and_updated_through_graphql_is_the_run_rest_lists() {
    let gh = FakeGitHub::start().await;
    let api = gh.installation_api("d-views-run").await;
    let head = "d".repeat(40);
    let repository = auditloop_fake_github::graphql::repository_id(REPO);
    let create = json!({
        "repositoryId": repository, "headSha": head, "name": "audit-gate",
        "externalId": "e".repeat(40), "status": "COMPLETED", "conclusion": "FAILURE",
        "completedAt": "2026-12-03T10:00:00Z",
        "actions": [{"label": "Re-run gate", "description": "Evaluate again", "identifier": "rerun"}],
        "output": {"title": "Needs remediation", "summary": "S", "text": "T",
            "annotations": [{"path": "src/a.rs", "location": {"startLine": 3, "endLine": 4},
                "annotationLevel": "FAILURE", "title": "A-01", "message": "m"}]},
    });
    let views = Views {
        run: Some(RunWrite::Create(create)),
        threads: auditloop::github::views_mutation::Threads::default(),
        ..Views::default()
    };
    let (id, node) = publish(&api, &views).await.unwrap().unwrap();
    let runs = gh.gate_runs(&head);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    let run = &runs[0];
    assert_eq!(run["id"], json!(id.0));
    assert_eq!(run["node_id"], json!(node.as_str()));
    assert_eq!(
        (run["status"].as_str(), run["conclusion"].as_str()),
        (Some("completed"), Some("failure"))
    );
    assert_eq!(run["external_id"], json!("e".repeat(40)));
    assert_eq!(run["output"]["annotations"][0]["start_line"], 3);
    assert_eq!(
        run["output"]["annotations"][0]["annotation_level"],
        "failure"
    );
    assert_eq!(run["actions"][0]["identifier"], "rerun");
    let update = json!({
        "repositoryId": repository, "checkRunId": node.as_str(), "name": "audit-gate",
        "status": "IN_PROGRESS", "output": {"title": "Waiting", "summary": "S2", "text": "T2"},
    });
    let views = Views {
        run: Some(RunWrite::Update(update)),
        threads: auditloop::github::views_mutation::Threads::default(),
        ..Views::default()
    };
    let (again, _) = publish(&api, &views).await.unwrap().unwrap();
    assert_eq!(again, id);
    let run = &gh.gate_runs(&head)[0];
    assert_eq!(run["status"], "in_progress");
    assert_eq!(run["conclusion"], Value::Null);
    assert_eq!(run["output"]["summary"], "S2");
    // A run GitHub never gave fails the call.
    let views = Views {
        run: Some(RunWrite::Update(
            json!({"repositoryId": repository, "checkRunId": "CR_never",
            "output": {"title": "t", "summary": "s"}}),
        )),
        ..Views::default()
    };
    let err = publish(&api, &views).await.unwrap_err();
    assert!(err.to_string().contains("NOT_FOUND"), "{err}");
    assert!(
        gh.state().graphql_problems.is_empty(),
        "{:?}",
        gh.state().graphql_problems
    );
}
