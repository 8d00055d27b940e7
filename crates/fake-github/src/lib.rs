//! GitHub as auditloop's tests (`tests/it`, through wiremock) and its load tool
//! (`benches/load`, through axum) play it. One fake, two transports: what GitHub answers
//! lives here once, in GitHub's shapes, routes included; each side adapts its transport
//! and adds only what its own runs need (the tests' recorded requests and injected
//! failures, the load tool's latency and call log).
//!
//! - [`rest`]: the REST routes, over the state a side keeps ([`rest::Site`]).
//! - [`pages`]: GitHub's pagination of a REST listing.
//! - [`permissions`]: collaborators' roles.
//! - [`faults`]: 5xx, lost answers, conflicts and secondary rate limits, as a layer over
//!   the routes.
//!
//! - [`objects`]: GitHub's REST objects, with every field its description says it always
//!   sends (the tests check them against GitHub's `OpenAPI` description).
//! - [`git`]: a repository's blobs, trees, commits and refs, and the Git Data API routes.
//! - [`checks`]: check runs, made, updated and listed as GitHub does.
//! - [`contents`]: the contents API over the files kept at a ref.
//! - [`comments`]: issue comments and their reactions.
//! - [`issues`]: issues opened, updated and listed.
//! - [`pulls`]: the pull-request listings and update, and the files a pull request changes.
//! - [`reviews`]: pull-request reviews and their threads, and the diff a thread must sit in.
//! - [`graphql`]: GitHub's GraphQL API, validated against its schema and executed over
//!   the fake's own state ([`graphql::World`]).
//! - [`limits`]: GitHub's secondary rate limit on writes, as a run plays it.
//! - [`hooks`]: the App's webhook deliveries: the attempts logged, and redeliveries.

// Builders of test data, for test code: a value nobody uses is a test that does not compile
// anyway, a malformed name given to a builder is the test's bug and panics there, and
// builders take what their callers have at hand.
#![allow(
    clippy::must_use_candidate,
    clippy::missing_panics_doc,
    clippy::needless_pass_by_value
)]

pub mod checks;
pub mod comments;
pub mod contents;
pub mod faults;
pub mod git;
pub mod graphql;
pub mod hooks;
pub mod issues;
pub mod limits;
pub mod objects;
pub mod pages;
pub mod permissions;
pub mod pulls;
pub mod rest;
pub mod reviews;

/// An answer before a transport carries it: status, JSON body, headers.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Option<serde_json::Value>,
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    #[must_use]
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Self {
            status,
            body: Some(body),
            headers: Vec::new(),
        }
    }

    /// An answer without a body (`204`, `304`).
    #[must_use]
    pub fn empty(status: u16) -> Self {
        Self {
            status,
            body: None,
            headers: Vec::new(),
        }
    }

    #[must_use]
    pub fn with_header(mut self, name: &'static str, value: String) -> Self {
        self.headers.push((name, value));
        self
    }
}
