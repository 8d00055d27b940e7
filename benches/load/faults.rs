//! Faults the fake injects while chaos is on, each as GitHub shows it:
//! - a 502 before the effect (nothing done) or after it (done, answer lost as a 502);
//! - a lost answer: the effect applied, then the connection dropped in the middle of the
//!   answer (the client sees a transport error, as after a timeout);
//! - a ref-update conflict: 422 "Update is not a fast forward", the answer GitHub gives a
//!   non-forced update whose base moved; for the GraphQL `RecordsCommit`, someone else's
//!   commit lands on the branch first, so the mutation answers `STALE_DATA`;
//! - a secondary rate limit: 403 with `retry-after` and GitHub's message (nothing done).
//!
//! Rates follow the soak of issue 22 by default; only `/repos/...` routes and the GraphQL
//! documents the fake serves are faulted (the App's own routes and tokens stay up).
//! `RecordsCommit` moves a ref, so it is faulted as a ref update; the queries
//! (`RecordsLanded`, `FirstReads`, `RecordsByPath`) are reads, which the app may retry,
//! faulted as any read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::fake::reply;
use crate::fake_graphql::{BODY, BY_PATH, COMMIT, LANDED, READS};

#[derive(Debug, Clone, Copy)]
pub struct Rates {
    pub before: f64,
    pub after: f64,
    /// Of ref writes (updates and creates, claims included, and GraphQL commits).
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

    /// `operation`: the GraphQL operation of a `POST /graphql`.
    pub fn pick(&self, method: &str, path: &str, operation: Option<&str>) -> Option<Fault> {
        let graphql = matches!(operation, Some(COMMIT | LANDED | READS | BY_PATH | BODY));
        if !self.on.load(Ordering::SeqCst) || !(path.starts_with("/repos/") || graphql) {
            return None;
        }
        let rates = *self.rates.lock().unwrap();
        let mut rng = self.rng.lock().unwrap();
        let commit = operation == Some(COMMIT);
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
    pub fn instead(self) -> Option<Response> {
        match self {
            Fault::Before502 => Some(reply(502, &json!({"message": "Server Error"}))),
            Fault::Conflict => Some(reply(
                422,
                &json!({"message": "Update is not a fast forward",
                    "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference", "status": "422"}),
            )),
            Fault::RateLimited => {
                let mut r = reply(
                    403,
                    &json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
                        "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": "403"}),
                );
                r.headers_mut().insert("retry-after", "1".parse().unwrap());
                Some(r)
            }
            Fault::After502 | Fault::Lost => None,
        }
    }

    /// The answer sent once the call was carried out.
    pub fn after(self, done: Response) -> Response {
        match self {
            Fault::After502 => reply(502, &json!({"message": "Server Error"})),
            Fault::Lost => {
                // The status line goes out, then the connection breaks inside the body.
                let broken = futures::stream::once(async {
                    Err::<Bytes, _>(std::io::Error::other("connection reset"))
                });
                (
                    StatusCode::OK,
                    [("content-type", "application/json")],
                    Body::from_stream(broken),
                )
                    .into_response()
            }
            _ => done,
        }
    }
}
