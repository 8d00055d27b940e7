//! Check and merge-queue deliveries, from the official examples, aimed at our repository.

use serde_json::{json, Value};

use super::deliveries::{fixture, retarget};

/// `check_run.<action>` for the run `name` on `sha`, with `pull_requests: []` as a fork
/// PR's payload carries.
pub fn check_run(action: &str, name: &str, sha: &str, conclusion: Option<&str>) -> Value {
    let fixture_name = match action {
        "rerequested" => "check_run.rerequested",
        "requested_action" => "check_run.requested_action",
        _ => "check_run.completed",
    };
    let mut v = retarget(fixture(fixture_name));
    v["action"] = json!(action);
    v["check_run"]["name"] = json!(name);
    v["check_run"]["head_sha"] = json!(sha);
    v["check_run"]["status"] = json!("completed");
    v["check_run"]["conclusion"] = json!(conclusion);
    v["check_run"]["pull_requests"] = json!([]);
    v["sender"]["type"] = json!("User");
    // A re-run or a button is asked of the run's own App: ours, in the kit, is App 1.
    if action != "completed" {
        v["check_run"]["app"]["id"] = json!(1);
    }
    v
}

/// `check_run.requested_action` with `identifier` on our run `name` on `sha`.
pub fn requested_action(name: &str, sha: &str, identifier: &str) -> Value {
    let mut v = check_run("requested_action", name, sha, Some("failure"));
    v["requested_action"] = json!({ "identifier": identifier });
    v
}

/// `check_suite.rerequested` on `sha`.
pub fn check_suite_rerequested(sha: &str) -> Value {
    let mut v = retarget(fixture("check_suite.rerequested"));
    v["check_suite"]["head_sha"] = json!(sha);
    v["check_suite"]["after"] = json!(sha);
    v["check_suite"]["pull_requests"] = json!([]);
    v["sender"]["type"] = json!("User");
    v["check_suite"]["app"]["id"] = json!(1);
    v
}

/// `merge_group.checks_requested` whose group head `group_sha` last queued PR `pr` at
/// `pr_sha` onto `main`.
pub fn merge_group(pr: u64, pr_sha: &str, group_sha: &str) -> Value {
    let mut v = retarget(fixture("merge_group.checks_requested"));
    v["merge_group"]["head_sha"] = json!(group_sha);
    v["merge_group"]["head_ref"] = json!(format!(
        "refs/heads/gh-readonly-queue/main/pr-{pr}-{pr_sha}"
    ));
    v["merge_group"]["base_ref"] = json!("refs/heads/main");
    v["sender"]["type"] = json!("User");
    v
}
