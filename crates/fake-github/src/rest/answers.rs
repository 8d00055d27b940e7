//! What the routes answer with, whatever the route: GitHub's headers, a missing object, a
//! listing's page, a repository, a path's number.

use serde_json::{json, Value};

use super::request::Request;
use crate::Reply;

/// GitHub's rate-limit headers, which every REST answer with a body carries here.
pub fn with_rate_limit(reply: Reply) -> Reply {
    if reply.body.is_none() {
        return reply;
    }
    reply
        .with_header("x-ratelimit-limit", "5000".to_owned())
        .with_header("x-ratelimit-remaining", "4999".to_owned())
}

/// GitHub's answer to a missing object.
pub fn not_found() -> Reply {
    Reply::json(404, json!({"message": "Not Found"}))
}

/// A listing answered a page at a time (`crate::pages`), each page shaped by `shape`.
pub fn paged(req: &Request, items: Vec<Value>, shape: impl FnOnce(Vec<Value>) -> Value) -> Reply {
    let (items, link) = crate::pages::page(items, &req.url(), &req.query);
    let reply = Reply::json(200, shape(items));
    match link {
        Some(link) => reply.with_header("link", link),
        None => reply,
    }
}

/// A repository in GitHub's REST shape, with the node id its GraphQL knows it by.
pub fn repository(full: bool, repo: &str) -> Value {
    let mut shown = if full {
        crate::objects::full_repository(repo)
    } else {
        crate::objects::repository(repo)
    };
    shown["node_id"] = json!(crate::graphql::repository_id(repo));
    shown
}

/// Segment `n` as a number (`0`, which no object has, when it is not one).
pub fn number(n: &str) -> u64 {
    n.parse().unwrap_or(0)
}
