//! What `auditloop status` and the MCP server read, outside the App and writing nothing:
//! the gate of one PR's head ([`gate_now`]) and every open audit of a repository
//! ([`repo_now`]), computed by the same functions the App's views use.

mod gate_now;
mod repo_now;

pub(crate) use gate_now::{gate_now, GateNow};
pub(crate) use repo_now::{repo_now, RepoNow};
