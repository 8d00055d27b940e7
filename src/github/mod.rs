//! GitHub through octocrab: App auth, installation tokens, retries, the REST calls
//! auditloop makes, each named by its documented route, and the GraphQL endpoint.

pub(crate) mod api;
pub(crate) mod call;
pub(crate) mod client;
pub(crate) mod deadline;
pub(crate) mod encode;
pub(crate) mod endpoint;
pub(crate) mod error;
pub(crate) mod file_versions;
pub mod first_reads;
pub(crate) mod first_reads_extra;
pub(crate) mod governor;
pub(crate) mod graphql;
pub(crate) mod head_checks;
pub(crate) mod packet_reads;
pub mod pages;
pub(crate) mod pull_commits;
pub(crate) mod records_listing;
pub mod rest;
pub(crate) mod retry;
pub(crate) mod token;
pub mod views_mutation;

pub use api::Api;
pub(crate) use api::{ApiResponse, Call};
pub use client::{GitHubApp, GitHubSettings, PrivateKey};
pub use error::GitHubError;
pub use retry::RetryPolicy;
