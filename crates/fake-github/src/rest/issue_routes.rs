//! Issues (opened, updated, listed), their comments, and the reactions on a comment.

use serde_json::Value;

use super::answers::{not_found, number, paged};
use super::request::Request;
use super::site::Site;
use crate::{issues, objects, Reply};

/// Where this fake starts numbering the issues the App opens, clear of the pull requests
/// runs open by hand.
const FIRST_ISSUE: u64 = 500;

pub fn route(site: &mut dyn Site, req: &Request, repo: &str, rest: &[&str]) -> Option<Reply> {
    let slug = site.app_slug().to_owned();
    Some(match (req.method.as_str(), rest) {
        ("GET", ["issues"]) => {
            let listed = issues::listed(repo, &slug, site.issues(repo).into_iter(), &req.query);
            paged(req, listed, Value::Array)
        }
        ("POST", ["issues"]) => {
            let number = next_number(site, repo);
            let (kept, shown) = issues::open(repo, number, &slug, &req.body);
            site.add_issue(repo, kept);
            Reply::json(201, shown)
        }
        ("PATCH", ["issues", n]) => match site.issue_mut(repo, number(n)) {
            Some(issue) => Reply::json(200, issues::update(repo, &slug, issue, &req.body)),
            None => not_found(),
        },
        ("GET", ["issues", n, "comments"]) => {
            let listed = site.comments().listed(repo, number(n));
            paged(req, listed, Value::Array)
        }
        ("POST", ["issues", n, "comments"]) => {
            let id = site.next_id();
            let text = req.body["body"].as_str().unwrap_or_default();
            let bot = format!("{slug}[bot]");
            let posted = site.comments_mut().post(repo, id, number(n), text, &bot);
            Reply::json(201, posted)
        }
        ("GET", ["issues", "comments", id, "reactions"]) => {
            let content = req.param("content");
            let listed = site
                .reactions()
                .listed(number(id), content.as_deref(), &slug);
            paged(req, listed, Value::Array)
        }
        ("POST", ["issues", "comments", id, "reactions"]) => {
            // One reaction per user and content: a repeat answers 200 with the one there.
            let content = req.body["content"].as_str().unwrap_or_default();
            let new = !site.reactions().has(number(id), content);
            site.react(number(id), content);
            let reaction = objects::reaction(site.last_id(), content, &slug);
            Reply::json(if new { 201 } else { 200 }, reaction)
        }
        _ => return None,
    })
}

/// GitHub numbers a repository's issues and pull requests in one sequence: one past the
/// highest either holds.
fn next_number(site: &dyn Site, repo: &str) -> u64 {
    let issues = site.issues(repo).into_iter();
    let taken = issues
        .chain(site.pulls(repo))
        .filter_map(|v| v["number"].as_u64());
    taken.max().map_or(FIRST_ISSUE, |n| n + 1).max(FIRST_ISSUE)
}
