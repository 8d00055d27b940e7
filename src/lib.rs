//! auditloop: a GitHub App that runs PR-driven audit loops and reports the gate as a check run.

pub mod cli;
pub mod engine;
pub mod ids;
