#!/usr/bin/env bash
# The placeholder auditor: no auditor is set up yet, and it says so. It audits nothing and
# makes up no verdict. It writes why no audit ran to $AUDITLOOP_ERROR and fails; the
# auditloop action posts that reason as an `AUDIT: ERROR` handoff (an invocation failure:
# no run is spent, and the check run shows the reason) and fails the job.
# Replace it with your auditor command: one that reads $AUDITLOOP_PACKET and writes an
# auditor_report_v1 to $AUDITLOOP_REPORT (docs/auditor.md).
set -euo pipefail

: "${AUDITLOOP_ERROR:?where to say why no audit ran (the auditloop action sets it)}"

reason="No auditor is configured: the auditor workflow runs examples/placeholder-auditor.sh, which audits nothing. Set the command input of its auditloop step to your auditor (docs/auditor.md, section 3), then re-run the workflow."
printf '%s\n' "$reason" > "$AUDITLOOP_ERROR"
echo "$reason" >&2
exit 1
