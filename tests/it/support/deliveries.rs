//! Deliveries shaped like GitHub's: payloads from the official examples
//! (`@octokit/webhooks-examples`, committed under tests/fixtures/webhooks), adjusted per test,
//! signed as GitHub signs them.

use serde_json::{json, Value};

pub const REPO: &str = "octo-org/hello";
pub const INSTALLATION: u64 = 42;

pub fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/webhooks/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// The example payload moved to our repository and installation.
pub fn retarget(mut v: Value) -> Value {
    let (owner, name) = REPO.split_once('/').unwrap();
    v["repository"]["full_name"] = json!(REPO);
    v["repository"]["name"] = json!(name);
    v["repository"]["owner"]["login"] = json!(owner);
    v["repository"]["default_branch"] = json!("main");
    v["installation"] =
        json!({"id": INSTALLATION, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI="});
    v
}

/// `pull_request.<action>` for PR `number` with head `sha`.
pub fn pull_request(action: &str, number: u64, sha: &str) -> Value {
    let mut v = retarget(fixture("pull_request.opened"));
    v["action"] = json!(action);
    v["number"] = json!(number);
    v["pull_request"]["number"] = json!(number);
    v["pull_request"]["head"]["sha"] = json!(sha);
    v
}

/// `issue_comment.created` on PR `number` by `login`.
pub fn pr_comment(number: u64, login: &str, body: &str) -> Value {
    let mut v = retarget(fixture("issue_comment.created"));
    v["issue"]["number"] = json!(number);
    v["issue"]["pull_request"] =
        json!({"url": format!("https://api.github.com/repos/{REPO}/pulls/{number}")});
    v["comment"]["body"] = json!(body);
    // Every comment is a new one, as on GitHub (reactions are kept per comment); the same
    // payload delivered again keeps its id.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(3_000_000);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    v["comment"]["id"] = json!(id);
    v["comment"]["node_id"] = json!(auditloop_fake_github::objects::node_id("IC", id));
    v["comment"]["user"]["login"] = json!(login);
    v["comment"]["user"]["type"] = json!("User");
    v["sender"]["login"] = json!(login);
    v
}

pub fn sign(secret: &str, body: &[u8]) -> String {
    auditloop::server::signature::sign(secret.as_bytes(), body)
}

/// `issues.reopened` of issue `number` (not a pull request) by `login`.
pub fn issue_reopened(number: u64, login: &str) -> Value {
    let mut v = retarget(fixture("issues.reopened"));
    v["issue"]["number"] = json!(number);
    v["issue"]["url"] = json!(format!(
        "https://api.github.com/repos/{REPO}/issues/{number}"
    ));
    if let Some(issue) = v["issue"].as_object_mut() {
        issue.remove("pull_request");
    }
    v["sender"]["login"] = json!(login);
    v
}
