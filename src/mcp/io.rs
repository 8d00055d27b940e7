//! The tools' inputs and outputs (docs/reference.md#auditloop-mcp), each with the JSON Schema `tools/list`
//! shows.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::engine::report::Problem;

/// A pull request of a repository.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PullInput {
    /// The repository, `OWNER/REPO`.
    pub(crate) repo: String,
    /// The pull request number.
    pub(crate) pr: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ValidateInput {
    /// The `auditor_report_v1` report, as a JSON object (not a string).
    #[schemars(schema_with = "report_schema")]
    pub(crate) report: Map<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PostInput {
    /// The repository, `OWNER/REPO`.
    pub(crate) repo: String,
    /// The pull request number.
    pub(crate) pr: u64,
    /// The `auditor_report_v1` report, as a JSON object (not a string).
    #[schemars(schema_with = "report_schema")]
    pub(crate) report: Map<String, Value>,
    /// Post nothing when run N of the record already exists, so that a repeated dispatch
    /// never spends the budget twice.
    #[serde(default)]
    pub(crate) expect_run: Option<u32>,
}

/// The input schema of a tool's `report`: the report's own JSON Schema
/// (`schema/auditor_report_v1.schema.json`), every field described, its `$ref`s inlined so
/// that it stands inside the tool's schema.
fn report_schema(_: &mut SchemaGenerator) -> Schema {
    Schema::try_from(crate::engine::report::schema::inlined_schema())
        .unwrap_or_else(|_| json_schema!({"type": "object"}))
}

/// One broken rule, as `auditloop validate` prints it (`rule: path: message`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ProblemOut {
    /// Where: a JSON path such as `findings[0].claim`, or `$` for the whole report.
    pub(crate) path: String,
    /// The rule's stable name, such as `shape` or `placeholder`.
    pub(crate) rule: String,
    pub(crate) message: String,
}

impl From<&Problem> for ProblemOut {
    fn from(p: &Problem) -> Self {
        ProblemOut {
            path: p.path.clone(),
            rule: p.rule.name().to_owned(),
            message: p.message.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ValidateOutput {
    /// The report has no problem: `post_report` would post it.
    pub(crate) ok: bool,
    /// The normalized report's digest, `sha256:…`, when it is valid.
    pub(crate) digest: Option<String>,
    /// Every problem found, in `validate`'s order.
    pub(crate) problems: Vec<ProblemOut>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct PostOutput {
    /// One `/audit report` comment was posted.
    pub(crate) posted: bool,
    /// The comment's address, when posted.
    pub(crate) comment_url: Option<String>,
    /// Why nothing was posted.
    pub(crate) reason: Option<String>,
    /// The report's problems, when it has any.
    pub(crate) problems: Vec<ProblemOut>,
}

/// A repository.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RepoInput {
    /// The repository, `OWNER/REPO`.
    pub(crate) repo: String,
}

/// Every audited open PR, exactly as `auditloop status --repo --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct AuditList(pub(crate) Value);

impl JsonSchema for AuditList {
    fn schema_name() -> Cow<'static, str> {
        "AuditList".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "Every open pull request with an audit record, in the dashboard's sections",
            "properties": {
                "pulls": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "number": {"type": "integer"},
                        "title": {"type": "string"},
                        "record": {"type": "string"},
                        "state": {"type": "string"},
                        "section": {"enum": ["waiting_on_maintainer", "blocked", "needs_remediation", "waiting_on_auditor", "certified"]},
                        "verdict_line": {"type": "string"},
                        "waits_on": {"enum": ["maintainer", "fixer", "auditor", "merge"]},
                        "since": {"type": ["string", "null"]},
                        "passes": {"type": "boolean"}
                    },
                    "required": ["number", "title", "record", "state", "section", "verdict_line", "waits_on", "since", "passes"]
                }}
            },
            "required": ["pulls"]
        })
    }
}

/// The audit packet, exactly as `auditloop packet` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct Packet(pub(crate) Value);

impl JsonSchema for Packet {
    fn schema_name() -> Cow<'static, str> {
        "AuditPacket".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "auditloop_packet_v1: what an auditor or a fixer needs, read from the records branch",
            "properties": {
                "schema": {"const": "auditloop_packet_v1"},
                "repository": {"type": "string"},
                "pull_request": {"type": "integer"},
                "audit_id": {"type": "string"},
                "goal": {"type": "string"},
                "completion_oracle": {"type": "string"},
                "candidate_artifact": {"type": "string"},
                "covered_tasks": {"type": "array", "items": {"type": "string"}},
                "audit_state": {"type": "string"},
                "budget": {"type": "object"},
                "next_run": {"type": "integer"},
                "runs": {"type": "array", "items": {"type": "object"}},
                "report": {"type": "object"},
                "records": {"type": "object"}
            },
            "required": ["schema", "repository", "pull_request", "audit_id", "candidate_artifact", "covered_tasks", "budget", "next_run", "runs", "report", "records"]
        })
    }
}
