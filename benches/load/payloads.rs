//! The deliveries the load tool sends: example payloads from `tests/fixtures/webhooks/`
//! pointed at a load repository, and the command texts.

use serde_json::{json, Value};

use crate::fake_data::INSTALLATION;

pub const SECRET: &str = "load-webhook-secret";
pub const BRANCH: &str = "heads/auditloop-records";

pub const NEW: &str = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run green\"";

pub fn manifest(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(manifest(&format!("tests/fixtures/webhooks/{name}.json")))
        .expect("example payload");
    serde_json::from_str(&text).expect("JSON")
}

pub fn repo_name(k: u64) -> String {
    format!("octo-org/repo-{k}")
}

fn retarget(mut v: Value, repo: &str) -> Value {
    let (owner, name) = repo.split_once('/').unwrap();
    v["repository"]["full_name"] = json!(repo);
    v["repository"]["name"] = json!(name);
    v["repository"]["owner"]["login"] = json!(owner);
    v["repository"]["default_branch"] = json!("main");
    v["repository"]["html_url"] = json!(format!("https://github.com/{repo}"));
    v["installation"] = json!({"id": INSTALLATION});
    v
}

/// The head a PR is opened with.
pub fn head_of(repo: &str, pr: u64) -> String {
    auditloop_fake_github::git::sha_of("head", &format!("{repo}#{pr}"))
}

/// The head of a PR after its `n`th push.
pub fn pushed_head(repo: &str, pr: u64, n: u64) -> String {
    auditloop_fake_github::git::sha_of("head", &format!("{repo}#{pr}@{n}"))
}

pub fn pr_body(pr: u64) -> String {
    format!("Change {pr}.\n\nCloses #{}\n", 100_000 + pr)
}

fn pull_event(fixture_name: &str, repo: &str, pr: u64, head: &str) -> Value {
    let mut v = retarget(fixture(fixture_name), repo);
    v["number"] = json!(pr);
    v["pull_request"]["number"] = json!(pr);
    v["pull_request"]["head"]["sha"] = json!(head);
    v["pull_request"]["base"]["ref"] = json!("main");
    v["pull_request"]["body"] = json!(pr_body(pr));
    v["pull_request"]["user"]["login"] = json!("alice");
    v["sender"]["login"] = json!("alice");
    v
}

pub fn opened(repo: &str, pr: u64) -> Value {
    pull_event("pull_request.opened", repo, pr, &head_of(repo, pr))
}

/// A push to `head` from `before`, as GitHub sends it once the PR shows the new head.
pub fn synchronize(repo: &str, pr: u64, before: &str, head: &str) -> Value {
    let mut v = pull_event("pull_request.synchronize", repo, pr, head);
    v["before"] = json!(before);
    v["after"] = json!(head);
    v
}

/// As GitHub sends a comment's event: with the PR's description as it is now.
pub fn with_description(payload: &mut Value, fake: &crate::fake::Fake, repo: &str, pr: u64) {
    let data = fake.data.lock().unwrap();
    if let Some(p) = data.pulls.get(&(repo.to_owned(), pr)) {
        payload["issue"]["body"] = p["body"].clone();
    }
}

/// A comment by `auditor`, who neither wrote the PRs (`alice` did) nor set their
/// candidates, so its reports are independent (docs/reference.md#independence-of-the-auditor).
pub fn comment(repo: &str, pr: u64, id: u64, body: &str) -> Value {
    comment_by(repo, pr, id, body, "auditor")
}

pub fn comment_by(repo: &str, pr: u64, id: u64, body: &str, login: &str) -> Value {
    let mut v = retarget(fixture("issue_comment.created"), repo);
    v["issue"]["number"] = json!(pr);
    v["issue"]["pull_request"] =
        json!({"url": format!("https://api.github.com/repos/{repo}/pulls/{pr}")});
    v["comment"]["id"] = json!(id);
    v["comment"]["node_id"] = json!(crate::fake_data::comment_node(id));
    v["comment"]["body"] = json!(body);
    v["comment"]["html_url"] = json!(format!(
        "https://github.com/{repo}/pull/{pr}#issuecomment-{id}"
    ));
    v["comment"]["user"]["login"] = json!(login);
    v["comment"]["user"]["type"] = json!("User");
    v["sender"]["login"] = json!(login);
    v
}

/// A `/audit report` on `head`, with the findings of `valid.json` whose ids `keep` selects.
pub fn report_on(
    pr: u64,
    head: &str,
    audit: &str,
    invocation: &str,
    keep: impl Fn(&str) -> bool,
) -> String {
    let text = std::fs::read_to_string(manifest("tests/fixtures/reports/valid.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["audit_id"] = json!(audit);
    v["work_unit"] = json!(format!("pr:{pr}"));
    v["candidate_artifact"] = json!(format!("commit:{head}"));
    v["covered_tasks"] = json!([format!("#{}", 100_000 + pr)]);
    v["invocation"]["ref"] = json!(invocation);
    v["verdict"] = json!("needs_remediation");
    if let Some(findings) = v["findings"].as_array_mut() {
        findings.retain(|f| f["id"].as_str().is_some_and(&keep));
    }
    format!(
        "/audit report\n\n```json\n{}\n```\n",
        serde_json::to_string_pretty(&v).unwrap()
    )
}

pub fn report_body(repo: &str, pr: u64, audit: &str, invocation: &str) -> String {
    report_on(pr, &head_of(repo, pr), audit, invocation, |_| true)
}
