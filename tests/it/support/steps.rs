//! Steps shared by the per-command end-to-end tests: a record in a given state, the records
//! branch as a before/after mark, and the replies a command left.

use serde_json::{json, Value};

use super::audit::{report, report_comment, Loop, BRANCH, SHA1};
use super::deliveries::REPO;

pub const GOAL: &str = "Refuse replayed webhook deliveries";
pub const ORACLE: &str = "A replayed delivery id has no second effect";

/// The records branch at one moment: its head and how many commits it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub head: Option<String>,
    pub commits: usize,
    pub reactions: usize,
}

/// `/audit new` with goal, oracle and evidence, and with `extra` flags appended.
pub fn new_command(extra: &str) -> String {
    format!(
        "/audit new --goal \"{GOAL}\" --oracle \"{ORACLE}\" --evidence \"CI run 1 green\" {extra}"
    )
    .trim_end()
    .to_owned()
}

/// A handoff comment for `AUD-1` with status `word` on `sha`.
pub fn handoff_comment(word: &str, invocation: &str, sha: &str) -> String {
    format!(
        "/audit report --audit-id AUD-1 --invocation {invocation} --candidate commit:{sha}\n\n```text\nAUDIT: {word}\nOutput: docs/audits/plan-audit.md\nSections covered: 9\nFindings: critical=1, warning=2, info=0\nOpen questions: 3\nReason: Requirement R4 has no step in the plan.\n```\n"
    )
}

/// A `needs_human_decision` report whose limitation L-01 (key `no-ghes-e2e`) asks the
/// maintainers for an authority.
pub fn asks_human(invocation: &str) -> Value {
    let mut r = report("AUD-1", 42, SHA1, invocation, "needs_human_decision");
    r["limitations"][0]
        .as_object_mut()
        .expect("limitation")
        .remove("authority");
    r
}

/// A well-formed receipt for run 2 of `AUD-1`, signed by a key no trust store holds.
pub fn unknown_key_receipt() -> Value {
    json!({
        "version": 1, "key_id": "unknown-key", "receipt_id": "b1946ac9-0000-4000-8000-000000000001",
        "role": "auditor", "repository": REPO, "audit_id": "AUD-1",
        "work_unit": "pr:42", "invocation_ref": "ci-run-2",
        "candidate_artifact": format!("commit:{SHA1}"), "covered_tasks": ["#12"],
        "report_digest": format!("sha256:{}", "0".repeat(64)),
        "issued_at": "2026-11-29T10:00:00Z", "expires_at": "2099-11-29T11:00:00Z",
        "signature": format!("{}==", "A".repeat(86))
    })
}

impl Loop {
    pub fn mark(&self) -> Mark {
        Mark {
            head: self.gh.branch_head(REPO, BRANCH),
            commits: self.gh.branch_log(REPO, BRANCH).len(),
            reactions: self.reactions(),
        }
    }

    /// The comments the app posted on `pr`, newest last.
    pub fn replies(&self, pr: u64) -> Vec<String> {
        self.gh.comments_on(pr)
    }

    /// Sends a command that must be carried out: a `+1`, no refusal, and (when `commits`)
    /// one more commit on the records branch.
    pub async fn ok(&mut self, login: &str, body: &str, commits: bool) {
        let before = self.mark();
        let refusals = self.refusals(42).len();
        self.comment(42, login, body).await;
        let after = self.mark();
        assert_eq!(
            self.refusals(42).len(),
            refusals,
            "{body}: refused: {}",
            self.last_reply(42)
        );
        assert_eq!(after.reactions, before.reactions + 1, "{body}: a +1");
        let expected = before.commits + usize::from(commits);
        assert_eq!(after.commits, expected, "{body}: records commits");
    }

    /// The PR opened and `AUD-1` created by `alice` with defaults.
    pub async fn with_record(&mut self) {
        self.pull_event("opened", 42, SHA1).await;
        self.ok("alice", &new_command(""), true).await;
    }

    /// `AUD-1` with one accepted run of `verdict`.
    pub async fn with_run(&mut self, verdict: &str) {
        self.with_record().await;
        let r = report("AUD-1", 42, SHA1, "ci-run-1", verdict);
        self.ok("auditor", &report_comment(&r), true).await;
    }

    /// The history event types of `AUD-1`, oldest first.
    pub fn event_types(&self) -> Vec<String> {
        self.record("AUD-1")["history"]
            .as_array()
            .map(|h| {
                h.iter()
                    .map(|e| e["type"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The last history event of `AUD-1`.
    pub fn last_event(&self) -> Value {
        self.record("AUD-1")["history"]
            .as_array()
            .and_then(|h| h.last().cloned())
            .unwrap_or(json!(null))
    }
}

/// `report` signed with `key` (pinned as `key_id`) for `repo`, valid for the next hour.
pub fn signed_report(
    report: &Value,
    key: &ed25519_dalek::SigningKey,
    key_id: &str,
    repo: &str,
    receipt_id: &str,
) -> Value {
    let parsed = auditloop::engine::report::parse_report(&report.to_string())
        .expect("valid report")
        .report;
    let signed = auditloop::engine::receipt::sign_report(
        parsed,
        key,
        key_id,
        &auditloop::engine::ids::RepoName::new(repo.to_owned()).unwrap(),
        chrono::Utc::now() - chrono::Duration::minutes(1),
        chrono::Duration::hours(1),
        receipt_id.to_owned(),
    );
    serde_json::to_value(&signed).unwrap()
}
