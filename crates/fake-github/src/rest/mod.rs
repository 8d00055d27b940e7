//! GitHub's REST API as both fakes serve it: one router over the state a side keeps
//! ([`Site`]), answering a transport-free [`Request`] with a [`Reply`]. The tests carry it
//! over wiremock and the load tool over axum; neither routes a REST call itself.
//!
//! - [`app_routes`]: the App's own routes (the App, its tokens, installations, manifest
//!   conversions, webhook deliveries).
//! - [`repo_routes`]: a repository, its contents, collaborators, pull requests, commits
//!   and check runs.
//! - [`issue_routes`]: issues, their comments and the comments' reactions.
//! - [`git_routes`]: the Git Data API and `compare`, with a side's hooks around writes.
//! - [`request`] and [`answers`]: the call as the routes read it, and what every route
//!   answers with.

mod answers;
mod app_routes;
mod git_routes;
mod issue_routes;
mod repo_routes;
mod request;
mod site;

pub use answers::not_found;
pub use request::Request;
pub use site::Site;

use crate::Reply;

/// The answer to `req`, or `None` when no route of the fake knows it (each side reports
/// that as a problem: a 404 would read as "absent" to the app).
pub fn route(site: &mut dyn Site, req: &Request) -> Option<Reply> {
    let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
    let reply = match segs.as_slice() {
        ["repos", owner, name, rest @ ..] => {
            let repo = format!("{owner}/{name}");
            repo_routes::route(site, req, &repo, rest)
                .or_else(|| issue_routes::route(site, req, &repo, rest))
                .or_else(|| git_routes::route(site, req, &repo, rest))
        }
        _ => app_routes::route(site, req, &segs),
    }?;
    Some(answers::with_rate_limit(reply))
}
