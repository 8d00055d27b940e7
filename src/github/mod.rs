//! GitHub through octocrab: App auth, installation tokens, retries, and the REST calls
//! auditloop makes, each named by its documented route.

pub mod api;
pub mod client;
pub mod encode;
pub mod error;
pub mod pages;
pub mod rest;
pub mod retry;
pub mod token;

pub use api::{Api, ApiResponse, Call};
pub use client::{GitHubApp, GitHubSettings, PrivateKey};
pub use error::GitHubError;
pub use retry::RetryPolicy;
