//! The Git Data API and `compare` (`crate::git`), with the side's hooks around them: a
//! branch write announced before it lands and logged once it moved, the files of a tree
//! shown as they are written, and the comparisons a side sets by hand.

use serde_json::Value;

use super::request::Request;
use super::site::Site;
use crate::git::{self, ref_name};
use crate::{objects, Reply};

pub fn route(site: &mut dyn Site, req: &Request, repo: &str, rest: &[&str]) -> Option<Reply> {
    let method = req.method.as_str();
    let body = &req.body;
    if let ("GET", ["compare", basehead]) = (method, rest) {
        if let Some(paths) = site.comparison(repo, basehead) {
            return Some(Reply::json(
                200,
                objects::code_comparison(repo, basehead, &paths),
            ));
        }
    }
    if let ("POST", ["git", "trees"]) = (method, rest) {
        for entry in body["tree"].as_array().into_iter().flatten() {
            if let (Some(path), Some(content)) = (entry["path"].as_str(), entry["content"].as_str())
            {
                site.file_written(path, content);
            }
        }
    }
    let moving = moving_ref(method, rest, body);
    if let Some(branch) = moving.as_deref().and_then(|n| n.strip_prefix("heads/")) {
        site.before_ref_write(repo, branch);
    }
    // A pull request's head is in the base repository too (`refs/pull/N/head`), and stays
    // there after a push moves the head on: a new ref may point at it.
    let target = body["sha"].as_str().unwrap_or_default();
    let kept =
        site.left_head(repo, target) || site.pulls(repo).iter().any(|p| p["head"]["sha"] == target);
    let elsewhere = |sha: &str| kept && sha == target;
    let git = site.git_mut(repo);
    let was = moving.as_ref().and_then(|name| git.refs.get(name).cloned());
    let call = git::Call {
        method,
        rest,
        query: &req.query,
        body,
        if_none_match: req.header("if-none-match"),
    };
    let answer = git::route(git, repo, &call, &elsewhere)?;
    if let (Some(name), 200 | 201) = (moving, answer.status) {
        let now = git.refs.get(&name).cloned().unwrap_or_default();
        site.ref_moved(repo, &name, was, now);
    }
    Some(answer)
}

/// The branch (`heads/...`) a call creates or updates, if it writes one.
fn moving_ref(method: &str, rest: &[&str], body: &Value) -> Option<String> {
    let name = match (method, rest) {
        ("POST", ["git", "refs"]) => body["ref"].as_str()?.strip_prefix("refs/")?.to_owned(),
        ("PATCH", ["git", "refs", name @ ..]) => ref_name(name),
        _ => return None,
    };
    name.starts_with("heads/").then_some(name)
}
