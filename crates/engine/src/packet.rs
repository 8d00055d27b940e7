//! The audit packet (docs/reference.md#the-audit-packet): what an auditor needs to audit a record's candidate
//! and what a fixer needs to know what must change, built from the records branch alone
//! (the record and its stored reports), so it shows nothing the branch does not.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::record::{Record, ReportRun};

pub(crate) const PACKET_SCHEMA: &str = "auditloop_packet_v1";
pub(crate) const REPORT_SCHEMA_URL: &str =
    "https://auditloop.dev/schema/auditor_report_v1.schema.json";

/// Where the packet was read.
pub struct PacketSource<'a> {
    pub records_branch: &'a str,
    pub records_commit: Option<&'a str>,
}

/// `reports/AUD-n/run-k.json`: the stored normalized report of each run, by run number.
pub type StoredReports = BTreeMap<u32, Value>;

/// What a stored report says of finding `id` beyond the record's summary.
fn report_detail(stored: Option<&Value>, id: &str) -> Value {
    let finding = stored
        .and_then(|r| r.get("findings"))
        .and_then(Value::as_array)
        .and_then(|fs| {
            fs.iter()
                .find(|f| f.get("id").and_then(Value::as_str) == Some(id))
        });
    let field = |name: &str| {
        finding
            .and_then(|f| f.get(name))
            .cloned()
            .unwrap_or(Value::Null)
    };
    json!({
        "consequence": field("consequence"),
        "required_outcome": field("required_outcome"),
        "verification_required": field("verification_required"),
    })
}

fn run_json(record: &Record, run: &ReportRun, at: &str, stored: Option<&Value>) -> Value {
    let dispositions = record.dispositions_in_force();
    let contested = record.contested();
    let waived = record.waived();
    let findings: Vec<Value> = super::views::open_findings::ordered(&run.findings)
        .into_iter()
        .map(|f| {
            let disposition = dispositions
                .iter()
                .find(|d| d.finding.run == run.run && d.finding.id == f.id)
                .map(|d| {
                    json!({"kind": d.disposition.as_str(), "note": d.note, "authority": d.authority, "issue": d.issue})
                });
            let waivers: Vec<Value> = waived
                .iter()
                .filter(|w| w.finding.run == run.run && w.finding.id == f.id)
                .map(|w| json!({"basis": w.waiver.basis.as_str(), "reason": w.waiver.reason, "authority": w.waiver.authority}))
                .collect();
            let veto = f.key.as_ref().and_then(|k| record.veto_on(k, record.runs_used() + 1));
            let is_contested = contested.iter().any(|d| {
                (d.finding.run == run.run && d.finding.id == f.id)
                    || (f.key.is_some() && d.finding.key == f.key)
            });
            let detail = report_detail(stored, f.id.as_str());
            json!({
                "id": f.id, "key": f.key, "severity": f.severity.as_str(), "blocking": f.blocking,
                "cross_remit": f.cross_remit, "claim": f.claim, "evidence_refs": f.evidence_refs,
                "consequence": detail["consequence"], "required_outcome": detail["required_outcome"],
                "verification_required": detail["verification_required"],
                "disposition": disposition, "waivers": waivers,
                "vetoed": veto.map(|v| json!({"from_round": v.effective_from_round, "reason": v.reason, "authority": v.authority})),
                "contested": is_contested,
            })
        })
        .collect();
    let limitations: Vec<Value> = run
        .limitations
        .iter()
        .map(|l| {
            let authority = l
                .authority
                .clone()
                .or_else(|| record.acceptance_of(&l.key).map(|a| a.authority));
            json!({"id": l.id, "key": l.key, "text": l.text, "authority": authority})
        })
        .collect();
    json!({
        "run": run.run, "at": at, "verdict": run.verdict.as_str(), "grade": run.grade.as_str(),
        "candidate_artifact": run.candidate_artifact, "covered_tasks": run.covered_tasks,
        "invocation_ref": run.invocation_ref, "report_path": run.report,
        "elegance": run.elegance, "findings": findings, "limitations": limitations,
    })
}

/// The packet of `record` as JSON.
#[must_use]
pub fn packet(record: &Record, stored: &StoredReports, source: &PacketSource<'_>) -> Value {
    let runs: Vec<Value> = record
        .run_events()
        .map(|(event, run)| run_json(record, run, &event.at.to_rfc3339(), stored.get(&run.run)))
        .collect();
    let next_run = record.runs_used() + 1;
    let evidence = record.evidence.as_ref().map(|e| {
        json!({"text": e.text, "for": e.given_for, "for_candidate": e.given_for == record.candidate_artifact})
    });
    let vetoes: Vec<Value> = record
        .vetoes_in_force(next_run)
        .into_iter()
        .map(|v| json!({"key": v.key, "effective_from_round": v.effective_from_round, "reason": v.reason, "authority": v.authority}))
        .collect();
    let accepted: Vec<Value> = record
        .accepted_limitations()
        .into_iter()
        .map(|a| json!({"id": a.id, "key": a.key, "run": a.run, "authority": a.authority}))
        .collect();
    let failures: Vec<Value> = record
        .invocation_failures()
        .map(|(e, f)| json!({"at": e.at.to_rfc3339(), "invocation_ref": f.invocation_ref, "candidate_artifact": f.candidate_artifact, "reason": f.reason}))
        .collect();
    let awaited = record.awaited_dispatch().map(|(e, d)| {
        json!({"run": d.run, "candidate_artifact": d.candidate_artifact, "at": e.at.to_rfc3339()})
    });
    let used_refs: Vec<&str> = record.invocation_refs().collect();
    json!({
        "schema": PACKET_SCHEMA,
        "repository": record.repository,
        "pull_request": record.pull_request.0,
        "audit_id": record.id,
        "work_unit": record.work_unit,
        "goal": record.goal,
        "completion_oracle": record.completion_oracle,
        "evidence": evidence,
        "candidate_artifact": record.candidate_artifact,
        "covered_tasks": record.covered_tasks,
        "audit_state": record.audit_state,
        "audit_blocked_reason": record.audit_blocked_reason,
        "latest_verdict": record.latest_verdict.map(super::report::document::Verdict::as_str),
        "budget": {
            "audit_budget": record.audit_budget,
            "runs_used": record.runs_used(),
            "runs_left": record.budget_left(),
        },
        "next_run": next_run,
        "awaited_dispatch": awaited,
        "runs": runs,
        "invocation_failures": failures,
        "vetoes_in_force": vetoes,
        "accepted_limitations": accepted,
        "used_invocation_refs": used_refs,
        "report": {
            "schema": "auditor_report_v1",
            "schema_url": REPORT_SCHEMA_URL,
            "schema_path": "schema/auditor_report_v1.schema.json",
            "bind": {
                "audit_id": record.id, "work_unit": record.work_unit,
                "candidate_artifact": record.candidate_artifact, "covered_tasks": record.covered_tasks,
            },
        },
        "records": {
            "branch": source.records_branch,
            "commit": source.records_commit,
            "record_path": crate::layout::record_path(&record.id),
        },
    })
}
