#!/usr/bin/env bash
# A placeholder auditor: it audits nothing. It turns the audit packet into a valid
# auditor_report_v1 with verdict needs_human_decision, so the loop visibly stops and asks
# the maintainers to plug in a real auditor. Replace it with your auditor command: one
# that reads $AUDITLOOP_PACKET and writes the report to $AUDITLOOP_REPORT.
set -euo pipefail

: "${AUDITLOOP_PACKET:?the packet path}"
: "${AUDITLOOP_REPORT:?where to write the report}"
: "${AUDITLOOP_INVOCATION_REF:?a ref unique to this run}"

jq --arg ref "$AUDITLOOP_INVOCATION_REF" '
  def says: "No auditor is configured for this repository: the placeholder auditor examined nothing.";
  {
    schema: "auditor_report_v1",
    audit_id: .report.bind.audit_id,
    work_unit: .report.bind.work_unit,
    candidate_artifact: .report.bind.candidate_artifact,
    covered_tasks: .report.bind.covered_tasks,
    invocation: { ref: $ref, mode: "explicit_agent_invocation" },
    perspectives: {
      outcome: says, completeness: says, integration: says,
      engineering_quality: says, verification: says, risk: says
    },
    assessment: ("Run \(.next_run) of \(.audit_id) was requested for \(.candidate_artifact), but the workflow runs the placeholder auditor. Replace its command with a real auditor."),
    evidence: ["The audit packet of \(.audit_id) was read from \(.records.branch) at \(.records.commit)."],
    verdict: "needs_human_decision",
    findings: [],
    limitations: [{
      id: "L-01",
      key: "no-auditor-configured",
      text: "The auditor workflow still runs the placeholder command; no audit took place."
    }]
  }' "$AUDITLOOP_PACKET" > "$AUDITLOOP_REPORT"
echo "wrote a placeholder report for $(jq -r .audit_id "$AUDITLOOP_PACKET") to $AUDITLOOP_REPORT"
