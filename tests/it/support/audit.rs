//! Builders for end-to-end audit loops: comments, reports, and the records branch to read.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::deliveries::{pr_comment, pull_request, REPO};
use super::fake::FakeGitHub;
use super::harness::TestApp;

pub const BRANCH: &str = "auditloop-records";
pub const SHA1: &str = "1111111111111111111111111111111111111111";
pub const SHA2: &str = "2222222222222222222222222222222222222222";

/// The valid report fixture, bound to `AUD-<n>` of PR `pr` on `sha`, with `verdict`.
pub fn report(audit: &str, pr: u64, sha: &str, invocation: &str, verdict: &str) -> Value {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/reports/valid.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["audit_id"] = json!(audit);
    v["work_unit"] = json!(format!("pr:{pr}"));
    v["candidate_artifact"] = json!(format!("commit:{sha}"));
    v["covered_tasks"] = json!(["#12"]);
    v["invocation"]["ref"] = json!(invocation);
    v["verdict"] = json!(verdict);
    if verdict.starts_with("certified") {
        v.as_object_mut().unwrap().remove("limitations");
        for f in v["findings"].as_array_mut().unwrap() {
            f["blocking"] = json!(false);
        }
    }
    v
}

pub fn report_comment(report: &Value) -> String {
    format!(
        "/audit report\n\n```json\n{}\n```\n",
        serde_json::to_string_pretty(report).unwrap()
    )
}

pub struct Loop {
    pub gh: FakeGitHub,
    pub app: TestApp,
    next: u32,
}

impl Loop {
    /// A repository with PR `pr` open on SHA1 by `alice`, closing #12; `alice` can write,
    /// `maint` maintains, `reader` reads.
    pub async fn start(pr: u64) -> Self {
        Self::start_full(
            pr,
            auditloop::engine::receipt::TrustStore::default(),
            auditloop::engine::repo_config::Assurance::Standard,
        )
        .await
    }

    /// As `start`, with an operator trust store and minimum assurance.
    pub async fn start_full(
        pr: u64,
        trust: auditloop::engine::receipt::TrustStore,
        min: auditloop::engine::repo_config::Assurance,
    ) -> Self {
        let gh = FakeGitHub::start().await;
        gh.add_pull(
            pr,
            SHA1,
            "Adds webhook replay protection.\n\nCloses #12\n",
            "alice",
        );
        gh.set_permission("alice", "write");
        gh.set_permission("auditor", "write");
        gh.set_permission("maint", "maintain");
        gh.set_permission("reader", "read");
        let app = TestApp::start_full(&gh, super::harness::SECRET, trust, min).await;
        Self { gh, app, next: 0 }
    }

    /// The app started again on the same fake GitHub, with another operator trust store
    /// and minimum assurance (what an operator changes between two deliveries).
    pub async fn restart_with(
        &mut self,
        trust: auditloop::engine::receipt::TrustStore,
        min: auditloop::engine::repo_config::Assurance,
    ) {
        self.app = TestApp::start_full(&self.gh, super::harness::SECRET, trust, min).await;
    }

    fn id(&mut self) -> String {
        self.next += 1;
        format!("loop-{}", self.next)
    }

    /// Delivers a comment and returns the delivery id used.
    pub async fn comment(&mut self, pr: u64, login: &str, body: &str) -> String {
        let id = self.id();
        let mut payload = pr_comment(pr, login, body);
        // As GitHub sends it: the PR's description as it is now.
        let now = self.gh.state().pulls.get(&pr).map(|p| p["body"].clone());
        if let Some(now) = now {
            payload["issue"]["body"] = now;
        }
        let r = self.app.deliver("issue_comment", &id, &payload).await;
        assert_eq!(r.status(), 200, "{body}: {}", r.text().await.unwrap());
        id
    }

    pub async fn pull_event(&mut self, action: &str, pr: u64, sha: &str) {
        let id = self.id();
        let mut payload = pull_request(action, pr, sha);
        payload["pull_request"]["body"] = json!(self.gh.pull_body(pr));
        let r = self.app.deliver("pull_request", &id, &payload).await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }

    /// Delivers `payload` as `event` with a fresh delivery id; asserts a 200.
    pub async fn deliver(&mut self, event: &str, payload: &Value) -> String {
        let id = self.id();
        let r = self.app.deliver(event, &id, payload).await;
        assert_eq!(r.status(), 200, "{event}: {}", r.text().await.unwrap());
        id
    }

    /// Commits on the records branch so far.
    pub fn log_len(&self) -> usize {
        self.gh.branch_log(REPO, BRANCH).len()
    }

    /// The newest reply on `pr`.
    pub fn last_reply(&self, pr: u64) -> String {
        self.gh.last_comment_on(pr).unwrap_or_default()
    }

    /// Opens the record on PR `pr` (closing #12) with evidence for its head.
    pub async fn new_record(&mut self, pr: u64) {
        self.comment(pr, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"").await;
        assert!(self.refusals(pr).is_empty(), "{:?}", self.refusals(pr));
    }

    /// `/audit new` on PR 42 by `alice`, expected to be refused.
    pub async fn new_record_attempt(&mut self) {
        self.comment(42, "alice", "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"").await;
    }

    pub fn files(&self) -> BTreeMap<String, String> {
        self.gh.branch_files(REPO, BRANCH)
    }

    pub fn record(&self, id: &str) -> Value {
        serde_json::from_str(&self.record_text(id)).unwrap()
    }

    /// The record `id` as stored, at its path in whichever layout the branch holds.
    pub fn record_text(&self, id: &str) -> String {
        crate::support::layouts::record_text(&self.files(), id)
            .unwrap_or_else(|| panic!("no record {id} on the records branch"))
    }

    /// The index the branch holds, whichever its layout.
    pub fn index(&self) -> Value {
        crate::support::layouts::index(&self.files())
    }

    pub fn refusals(&self, pr: u64) -> Vec<String> {
        self.gh
            .replies_where(pr, |c| c.starts_with("auditloop: refused"))
    }

    pub fn reactions(&self) -> usize {
        self.gh.state().reactions.len()
    }

    /// The latest `audit-gate` run on `sha`.
    pub fn gate(&self, sha: &str) -> Value {
        self.gh
            .gate_runs(sha)
            .last()
            .cloned()
            .unwrap_or(Value::Null)
    }
}
