//! The fake's routes beyond one command's: what the reconcile sweep walks (installations,
//! their repositories, open pull requests), the issues a `file` disposition opens, and a
//! pull request's files.

use auditloop_fake_github::{issues, objects};
use serde_json::{json, Value};

use crate::fake::{not_found, reply, Data, SLUG};
use crate::payloads::INSTALLATION;

/// A repository in GitHub's shape, with the GraphQL id this fake's GraphQL knows it by.
fn repository(full_name: &str) -> Value {
    let mut repo = objects::repository(full_name);
    repo["node_id"] = json!(crate::fake::repo_node(full_name));
    repo
}

/// Routes outside `/repos/...`, or `None`.
pub fn route(data: &Data, m: &str, segs: &[&str]) -> Option<axum::response::Response> {
    Some(match (m, segs) {
        ("GET", ["app", "installations"]) => reply(
            200,
            &json!([objects::installation(INSTALLATION, "octo-org", SLUG)]),
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
    (rest, query): (&[&str], &str),
    body: &Value,
) -> Option<axum::response::Response> {
    Some(match (m, rest) {
        ("GET", []) => {
            let mut full = objects::full_repository(repo);
            full["node_id"] = json!(crate::fake::repo_node(repo));
            reply(200, &full)
        }
        // The load's pull requests change no file; the loop simulator's do.
        ("GET", ["pulls", n, "files"]) => {
            let key = (repo.to_owned(), n.parse().unwrap_or(0));
            let Some(pr) = data.pulls.get(&key) else {
                return Some(not_found());
            };
            let head = pr["head"]["sha"].as_str().unwrap_or_default();
            let kept = data.pull_files.get(&key).map_or(&[][..], Vec::as_slice);
            let files = auditloop_fake_github::pulls::files_listed(repo, head, kept);
            reply(200, &Value::Array(files))
        }
        ("GET", ["pulls"]) => {
            let in_repo = data.pulls.iter().filter(|((r, _), _)| r == repo);
            let open = auditloop_fake_github::pulls::listed(in_repo.map(|(_, p)| p), None);
            reply(200, &Value::Array(open))
        }
        ("GET", ["issues"]) => {
            let kept = data.issues.get(repo).map_or(&[][..], Vec::as_slice);
            reply(
                200,
                &Value::Array(issues::listed(repo, SLUG, kept.iter(), query)),
            )
        }
        ("POST", ["issues"]) => {
            let kept = data.issues.entry(repo.to_owned()).or_default();
            let number = kept.len() as u64 + 900;
            let (issue, shown) = issues::open(repo, number, SLUG, body);
            kept.push(issue);
            reply(201, &shown)
        }
        ("PATCH", ["issues", n]) => {
            let number: u64 = n.parse().unwrap_or(0);
            let kept = data.issues.get_mut(repo).into_iter().flatten();
            match kept.into_iter().find(|i| i["number"] == number) {
                Some(issue) => reply(200, &issues::update(repo, SLUG, issue, body)),
                None => return None,
            }
        }
        _ => return None,
    })
}
