//! The `auditor_report_v1` document (docs/reference.md#the-report-format) as Rust types.
//!
//! Every struct refuses unknown fields, and optional fields stay `Option` so that
//! normalization adds no default values (docs/reference.md#normalization-and-digest): what was absent stays absent.

use serde::{Deserialize, Serialize};

use crate::ids::{Artifact, AuditId, FindingId, FindingKey, LimitationId, TaskId, WorkUnit};

/// An optional field that may be absent but never `null`: the schema gives every optional
/// field a type, and a `null` read as "absent" would let a malformed report through.
fn non_null<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// The literal `"auditor_report_v1"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchemaTag {
    #[serde(rename = "auditor_report_v1")]
    AuditorReportV1,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub schema: SchemaTag,
    pub audit_id: AuditId,
    pub work_unit: WorkUnit,
    pub candidate_artifact: Artifact,
    pub covered_tasks: Vec<TaskId>,
    pub invocation: Invocation,
    pub perspectives: Perspectives,
    pub assessment: String,
    pub evidence: Vec<String>,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub limitations: Option<Vec<Limitation>>,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub elegance: Option<Elegance>,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub receipt: Option<Receipt>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invocation {
    #[serde(rename = "ref")]
    pub reference: String,
    pub mode: InvocationMode,
}

/// `single_agent_fallback` parses so that its refusal can name the rule (docs/reference.md#report-rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvocationMode {
    HostSubagent,
    ExplicitAgentInvocation,
    SingleAgentFallback,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Perspectives {
    pub outcome: String,
    pub completeness: String,
    pub integration: String,
    pub engineering_quality: String,
    pub verification: String,
    pub risk: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Certified,
    CertifiedWithAcceptedLimitations,
    NeedsRemediation,
    NeedsHumanDecision,
}

impl Verdict {
    #[must_use]
    pub fn certifies(self) -> bool {
        matches!(
            self,
            Verdict::Certified | Verdict::CertifiedWithAcceptedLimitations
        )
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Certified => "certified",
            Verdict::CertifiedWithAcceptedLimitations => "certified_with_accepted_limitations",
            Verdict::NeedsRemediation => "needs_remediation",
            Verdict::NeedsHumanDecision => "needs_human_decision",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub id: FindingId,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub key: Option<FindingKey>,
    pub severity: Severity,
    pub blocking: bool,
    pub claim: String,
    pub evidence_refs: Vec<String>,
    pub consequence: String,
    pub required_outcome: String,
    pub verification_required: String,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub cross_remit: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limitation {
    pub id: LimitationId,
    pub key: FindingKey,
    pub text: String,
    /// `human: LOGIN` or `D-<n>`; checked against the record, never taken on the report's word.
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub authority: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Elegance {
    pub score: u8,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub notes: Option<String>,
}

/// A signed receipt binding a report to one repository, record and invocation (docs/reference.md#receipts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub version: u8,
    pub key_id: String,
    pub receipt_id: String,
    pub role: String,
    pub repository: String,
    pub audit_id: String,
    pub work_unit: String,
    pub invocation_ref: String,
    pub candidate_artifact: String,
    pub covered_tasks: Vec<String>,
    pub report_digest: String,
    pub issued_at: String,
    pub expires_at: String,
    pub signature: String,
}
