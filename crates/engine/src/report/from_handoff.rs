//! A plan-audit handoff (docs/reference.md#the-plan-audit-handoff) recorded as a run: `FAIL` is `needs_remediation`,
//! `BLOCKED` is `needs_human_decision`. A handoff carries no perspectives or findings, so the
//! stored report says so in every perspective and holds the handoff's own lines as evidence.

use crate::ids::{Artifact, AuditId, TaskId, WorkUnit};
use crate::report::{
    Handoff, HandoffStatus, Invocation, InvocationMode, Perspectives, Report, SchemaTag, Verdict,
};

/// The verdict a handoff maps to; `None` for `PASS` (refused: it cannot certify) and
/// `ERROR` (an invocation failure, not a run).
#[must_use]
pub fn handoff_verdict(status: HandoffStatus) -> Option<Verdict> {
    match status {
        HandoffStatus::Fail => Some(Verdict::NeedsRemediation),
        HandoffStatus::Blocked => Some(Verdict::NeedsHumanDecision),
        HandoffStatus::Pass | HandoffStatus::Error => None,
    }
}

pub struct HandoffBinding {
    pub audit_id: AuditId,
    pub work_unit: WorkUnit,
    pub candidate: Artifact,
    pub covered_tasks: Vec<TaskId>,
    pub invocation_ref: String,
}

#[must_use]
pub fn report_from_handoff(h: &Handoff, verdict: Verdict, bind: HandoffBinding) -> Report {
    let note = format!(
        "Seed-002 plan-audit handoff ({}): no per-perspective assessment. {}",
        h.status.as_str(),
        h.reason
    );
    Report {
        schema: SchemaTag::AuditorReportV1,
        audit_id: bind.audit_id,
        work_unit: bind.work_unit,
        candidate_artifact: bind.candidate,
        covered_tasks: bind.covered_tasks,
        invocation: Invocation {
            reference: bind.invocation_ref,
            mode: InvocationMode::ExplicitAgentInvocation,
        },
        perspectives: Perspectives {
            outcome: note.clone(),
            completeness: note.clone(),
            integration: note.clone(),
            engineering_quality: note.clone(),
            verification: note.clone(),
            risk: note,
        },
        assessment: h.reason.clone(),
        evidence: vec![
            format!("AUDIT: {}", h.status.as_str()),
            format!("Output: {}", h.output),
            format!(
                "Findings: critical={}, warning={}, info={}",
                h.critical, h.warning, h.info
            ),
            format!("Open questions: {}", h.open_questions),
        ],
        verdict,
        findings: Vec::new(),
        limitations: None,
        elegance: None,
        receipt: None,
    }
}
