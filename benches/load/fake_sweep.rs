//! The fake's routes beyond one command's: what the reconcile sweep walks (installations,
//! their repositories, open pull requests) and the issues a `file` disposition opens.

use serde_json::{json, Value};

use crate::fake::{reply, Data, SLUG};
use crate::payloads::INSTALLATION;

fn repository(full_name: &str) -> Value {
    json!({"full_name": full_name, "name": full_name.split_once('/').map_or(full_name, |(_, n)| n),
        "default_branch": "main", "html_url": format!("https://github.com/{full_name}"),
        "archived": false, "private": false})
}

/// Routes outside `/repos/...`, or `None`.
pub fn route(data: &Data, m: &str, segs: &[&str]) -> Option<axum::response::Response> {
    Some(match (m, segs) {
        ("GET", ["app", "installations"]) => reply(
            200,
            &json!([{"id": INSTALLATION, "account": {"login": "octo-org", "type": "Organization"},
                "app_slug": SLUG}]),
        ),
        ("GET", ["installation", "repositories"]) => {
            let mut names: Vec<&str> = data.pulls.keys().map(|(r, _)| r.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            let list: Vec<Value> = names.into_iter().map(repository).collect();
            reply(
                200,
                &json!({"total_count": list.len(), "repositories": list}),
            )
        }
        _ => return None,
    })
}

/// Routes under `/repos/{owner}/{repo}/` the command routes do not keep, or `None`.
pub fn repo_route(
    data: &mut Data,
    repo: &str,
    m: &str,
    rest: &[&str],
    body: &Value,
) -> Option<axum::response::Response> {
    Some(match (m, rest) {
        ("GET", []) => reply(200, &repository(repo)),
        ("GET", ["pulls"]) => {
            let in_repo = data.pulls.iter().filter(|((r, _), _)| r == repo);
            let open = auditloop_fake_github::pulls::listed(in_repo.map(|(_, p)| p), None);
            reply(200, &Value::Array(open))
        }
        // Newest first, as `sort=created&direction=desc` asks.
        ("GET", ["issues"]) => {
            let list = data.issues.get(repo).cloned().unwrap_or_default();
            reply(200, &Value::Array(list.into_iter().rev().collect()))
        }
        ("POST", ["issues"]) => {
            let number = data.issues.get(repo).map_or(0, Vec::len) as u64 + 900;
            let issue = json!({"number": number, "title": body["title"], "body": body["body"],
                "labels": body["labels"], "state": "open",
                "html_url": format!("https://github.com/{repo}/issues/{number}"),
                "user": {"login": format!("{SLUG}[bot]"), "type": "Bot"}});
            data.issues
                .entry(repo.to_owned())
                .or_default()
                .push(issue.clone());
            reply(201, &issue)
        }
        _ => return None,
    })
}
