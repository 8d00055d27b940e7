//! GitHub through octocrab: App auth, installation tokens, retries, the REST calls
//! auditloop makes, each named by its documented route, and the GraphQL endpoint.

pub mod api;
pub mod call;
pub mod client;
pub mod deadline;
pub mod encode;
pub mod endpoint;
pub mod error;
pub mod first_reads;
pub mod governor;
pub mod graphql;
pub mod packet_reads;
pub mod pages;
pub mod records_listing;
pub mod rest;
pub mod retry;
pub mod token;
pub mod views_mutation;

pub use api::{Api, ApiResponse, Call};
pub use client::{GitHubApp, GitHubSettings, PrivateKey};
pub use error::GitHubError;
pub use retry::RetryPolicy;
