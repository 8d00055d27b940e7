//! A repository's routes beyond issues and git data: the repository itself, its files
//! through the contents API, a collaborator's permission, `repository_dispatch`, its pull
//! requests (listed, read, updated, and the files each changes), the pull requests and
//! check runs of a commit, and the App's check runs.

use serde_json::{json, Value};

use super::answers::{not_found, number, paged, repository};
use super::request::Request;
use super::site::Site;
use crate::{contents, objects, pulls, Reply};

pub fn route(site: &mut dyn Site, req: &Request, repo: &str, rest: &[&str]) -> Option<Reply> {
    Some(match (req.method.as_str(), rest) {
        ("GET", []) => Reply::json(200, repository(true, repo)),
        ("GET", ["contents", path @ ..]) => {
            // No `ref` is the default branch, as GitHub reads it.
            let git_ref = req.param("ref").unwrap_or_else(|| "main".to_owned());
            let files = site.files_at(repo, &git_ref);
            let read = contents::get(repo, &path.join("/"), &files, req.header("if-none-match"));
            if read.status == 404 && !site.holds_every_file() {
                return None;
            }
            read
        }
        ("GET", ["collaborators", login, "permission"]) => match site.permissions().role(login) {
            Some(role) => Reply::json(200, objects::permission(login, role)),
            None => not_found(),
        },
        ("POST", ["dispatches"]) => dispatch(site, &req.body),
        ("POST", ["check-runs"]) => {
            let id = site.next_id();
            let slug = site.app_slug().to_owned();
            let run = site.check_runs_mut().create(repo, id, &slug, &req.body);
            Reply::json(201, run)
        }
        ("PATCH", ["check-runs", id]) => {
            match site.check_runs_mut().update(repo, number(id), &req.body) {
                Some(run) => Reply::json(200, run),
                None => not_found(),
            }
        }
        ("GET", ["commits", sha, "check-runs"]) => {
            let latest = site.check_runs().latest(repo, sha);
            let total = latest.len();
            paged(
                req,
                latest,
                |page| json!({"total_count": total, "check_runs": page}),
            )
        }
        ("GET", ["commits", sha, "pulls"]) => {
            let listed = pulls::for_commit(site.pulls(repo).into_iter(), sha);
            paged(req, listed, Value::Array)
        }
        _ => return pull_route(site, req, repo, rest),
    })
}

/// The pull-request routes.
fn pull_route(site: &mut dyn Site, req: &Request, repo: &str, rest: &[&str]) -> Option<Reply> {
    Some(match (req.method.as_str(), rest) {
        ("GET", ["pulls"]) => {
            let state = req.param("state");
            let listed = pulls::listed(site.pulls(repo).into_iter(), state.as_deref());
            paged(req, listed, Value::Array)
        }
        ("GET", ["pulls", n]) => match site.pull(repo, number(n)) {
            Some(pull) => Reply::json(200, pull.clone()),
            None => not_found(),
        },
        ("PATCH", ["pulls", n]) => match site.pull_mut(repo, number(n)) {
            Some(pull) => {
                pulls::update(pull, &req.body);
                Reply::json(200, pull.clone())
            }
            None => not_found(),
        },
        ("GET", ["pulls", n, "files"]) => {
            let Some(pull) = site.pull(repo, number(n)) else {
                return Some(not_found());
            };
            let head = pull["head"]["sha"].as_str().unwrap_or_default().to_owned();
            let kept = site.pull_files(repo, number(n));
            paged(req, pulls::files_listed(repo, &head, &kept), Value::Array)
        }
        _ => return None,
    })
}

/// `POST /repos/{o}/{r}/dispatches`, within GitHub's limits: an event type of 1 to 100
/// characters, a payload of at most 10 properties.
fn dispatch(site: &mut dyn Site, body: &Value) -> Reply {
    let event_type = body["event_type"].as_str().unwrap_or_default();
    let props = body["client_payload"]
        .as_object()
        .map_or(0, serde_json::Map::len);
    if event_type.is_empty() || event_type.chars().count() > 100 || props > 10 {
        return Reply::json(422, json!({"message": "Invalid request."}));
    }
    site.dispatched(body.clone());
    Reply::empty(204)
}
