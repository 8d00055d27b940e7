//! The test kit shared by the end-to-end tests.
#![allow(dead_code)]

pub mod actions;
pub mod audit;
pub mod checks;
pub mod deliveries;
pub mod fake;
pub mod fake_branches;
pub mod fake_dispatch;
pub mod fake_git;
pub mod fake_graphql;
pub mod fake_hooks;
pub mod fake_repo;
pub mod fake_reviews;
pub mod fake_site;
pub mod graphql_cost;
pub mod harness;
pub mod layouts;
pub mod openapi;
pub mod process;
pub mod robust;
pub mod schemas;
pub mod sender;
pub mod setups;
pub mod sources;
pub mod steps;
