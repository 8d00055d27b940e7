//! Faults a fake injects while chaos is on, each as GitHub shows it, as a layer over the
//! routes (REST or GraphQL, whatever the transport):
//! - a 502 before the effect (nothing done) or after it (done, answer lost as a 502);
//! - a lost answer: the effect applied, then the connection dropped in the middle of the
//!   answer (the client sees a transport error, as after a timeout); a transport that
//!   cannot break a connection answers 502 instead;
//! - a ref-update conflict: 422 "Update is not a fast forward", the answer GitHub gives a
//!   non-forced update whose base moved; for a GraphQL commit, someone else's commit lands
//!   on the branch first, so the mutation answers `STALE_DATA`;
//! - a secondary rate limit: 403 with `retry-after` and GitHub's message (nothing done).
//!
//! Only `/repos/...` routes and the GraphQL operations the caller names are faulted (the
//! App's own routes and tokens stay up). Picks are drawn from a seeded generator, so a run
//! with the same seed and calls meets the same faults.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::Reply;

#[derive(Debug, Clone, Copy)]
pub struct Rates {
    pub before: f64,
    pub after: f64,
    /// Of ref writes (updates and creates, and GraphQL commits).
    pub lost: f64,
    /// Of ref updates (GraphQL commits included).
    pub conflict: f64,
    pub rate_limit: f64,
}

impl Rates {
    /// No fault at all: the base a self-test sets one rate on.
    pub const NONE: Rates = Rates {
        before: 0.0,
        after: 0.0,
        lost: 0.0,
        conflict: 0.0,
        rate_limit: 0.0,
    };
}

/// The rates of the soak the load tool's chaos runs follow.
impl Default for Rates {
    fn default() -> Self {
        Rates {
            before: 0.05,
            after: 0.05,
            lost: 0.05,
            conflict: 0.20,
            rate_limit: 0.02,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Before502,
    After502,
    Lost,
    Conflict,
    RateLimited,
}

/// A call as the faults see it.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub method: &'a str,
    /// The path under the API's root.
    pub path: &'a str,
    /// For a GraphQL call the caller faults: whether it commits (moves a ref). `None`
    /// for REST, and for a GraphQL call left alone.
    pub graphql: Option<Graphql>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Graphql {
    Read,
    Commit,
}

/// A call's answer once the layer has been through it, and the fault it met.
#[derive(Debug, Clone)]
pub struct Faulted {
    pub reply: Reply,
    pub fault: Option<Fault>,
}

pub struct Faults {
    on: AtomicBool,
    rates: Mutex<Rates>,
    rng: Mutex<StdRng>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            on: AtomicBool::new(false),
            rates: Mutex::new(Rates::default()),
            rng: Mutex::new(StdRng::seed_from_u64(0)),
        }
    }
}

impl Faults {
    pub fn configure(&self, rates: Rates, seed: u64) {
        *self.rates.lock().unwrap() = rates;
        *self.rng.lock().unwrap() = StdRng::seed_from_u64(seed);
    }

    pub fn set(&self, on: bool) {
        self.on.store(on, Ordering::SeqCst);
    }

    pub fn pick(&self, target: &Target<'_>) -> Option<Fault> {
        let Target {
            method,
            path,
            graphql,
        } = *target;
        let in_repo = path.trim_start_matches('/').starts_with("repos/");
        if !self.on.load(Ordering::SeqCst) || !(in_repo || graphql.is_some()) {
            return None;
        }
        let rates = *self.rates.lock().unwrap();
        let mut rng = self.rng.lock().unwrap();
        let commit = graphql == Some(Graphql::Commit);
        let ref_write = commit || path.contains("/git/refs") && matches!(method, "PATCH" | "POST");
        let ref_update = commit || method == "PATCH" && path.contains("/git/refs/");
        if ref_update && rng.gen_bool(rates.conflict) {
            return Some(Fault::Conflict);
        }
        if ref_write && rng.gen_bool(rates.lost) {
            return Some(Fault::Lost);
        }
        let roll: f64 = rng.gen();
        if roll < rates.before {
            Some(Fault::Before502)
        } else if roll < rates.before + rates.after {
            Some(Fault::After502)
        } else if roll < rates.before + rates.after + rates.rate_limit {
            Some(Fault::RateLimited)
        } else {
            None
        }
    }

    /// The layer: picks `target`'s fault, then answers in the call's place or carries it
    /// out through `route`, which is told whether someone else's commit must land first
    /// (the conflict of a GraphQL commit, which is no canned answer).
    pub fn serve(&self, target: &Target<'_>, route: impl FnOnce(bool) -> Reply) -> Faulted {
        let fault = self.pick(target);
        let someone_first = target.graphql.is_some() && fault == Some(Fault::Conflict);
        let instead = fault.filter(|_| !someone_first).and_then(Fault::instead);
        let reply = match (instead, fault) {
            (Some(instead), _) => instead,
            (None, Some(fault)) => fault.after(route(someone_first)),
            (None, None) => route(false),
        };
        Faulted { reply, fault }
    }
}

fn server_error() -> Reply {
    Reply::json(502, json!({"message": "Server Error"}))
}

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::Before502 => "502 before the effect",
            Fault::After502 => "502 after the effect",
            Fault::Lost => "answer lost after the effect",
            Fault::Conflict => "ref update conflict (422, or STALE_DATA)",
            Fault::RateLimited => "secondary rate limit (403)",
        }
    }

    /// The answer given instead of carrying the call out, for faults that do nothing.
    pub fn instead(self) -> Option<Reply> {
        match self {
            Fault::Before502 => Some(server_error()),
            Fault::Conflict => Some(Reply::json(
                422,
                json!({"message": "Update is not a fast forward",
                    "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference", "status": "422"}),
            )),
            Fault::RateLimited => Some(
                Reply::json(
                    403,
                    json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
                        "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": "403"}),
                )
                .with_header("retry-after", "1".to_owned()),
            ),
            Fault::After502 | Fault::Lost => None,
        }
    }

    /// The answer once the call was carried out. A lost answer keeps the call's own: the
    /// transport breaks it off (see [`Fault::Lost`]).
    pub fn after(self, done: Reply) -> Reply {
        match self {
            Fault::After502 => server_error(),
            _ => done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(method: &'static str, path: &'static str) -> Target<'static> {
        Target {
            method,
            path,
            graphql: None,
        }
    }

    #[test]
    fn nothing_is_faulted_while_chaos_is_off_nor_the_apps_own_routes() {
        let faults = Faults::default();
        let rates = Rates {
            before: 1.0,
            ..Rates::NONE
        };
        faults.configure(rates, 1);
        assert_eq!(faults.pick(&target("GET", "/repos/o/r/pulls/1")), None);
        faults.set(true);
        assert_eq!(
            faults.pick(&target("POST", "/app/installations/1/access_tokens")),
            None
        );
        let served = faults.serve(&target("GET", "/repos/o/r/pulls/1"), |_| unreachable!());
        assert_eq!(
            (served.fault, served.reply.status),
            (Some(Fault::Before502), 502)
        );
    }

    #[test]
    fn a_graphql_commit_conflict_lets_someone_else_commit_first() {
        let faults = Faults::default();
        faults.configure(
            Rates {
                conflict: 1.0,
                ..Rates::NONE
            },
            1,
        );
        faults.set(true);
        let commit = Target {
            method: "POST",
            path: "/graphql",
            graphql: Some(Graphql::Commit),
        };
        let served = faults.serve(&commit, |first| Reply::json(200, json!(first)));
        assert_eq!(served.reply.body, Some(json!(true)));
        let update = target("PATCH", "/repos/o/r/git/refs/heads/b");
        let served = faults.serve(&update, |_| unreachable!());
        assert_eq!(served.reply.status, 422);
    }
}
