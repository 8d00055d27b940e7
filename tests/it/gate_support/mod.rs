//! Builds records and gate inputs for the gate tests: a scenario that passes every
//! condition, which each test then breaks in one place.
#![allow(dead_code)]

use chrono::{DateTime, TimeZone, Utc};
use sha2::{Digest, Sha256};

use auditloop::engine::gate::{
    evaluate, CheckObservation, CheckStatus, Condition, GateInput, GateResult, Outcome,
};
use auditloop::engine::ids::{
    Artifact, AuditId, CommitSha, DeliveryId, FindingId, FindingKey, LimitationId, Login, PrNumber,
    RepoName, TaskId, WorkUnit,
};
use auditloop::engine::record::{
    AcceptedLimitation, AuditState, Created, Event, EventKind, Evidence, FindingSummary, Grade,
    LimitationAcceptance, LimitationSummary, Record, ReportRun, Veto, SCHEMA_VERSION,
};
use auditloop::engine::repo_config::{Assurance, RepoConfig};
use auditloop::engine::report::{InvocationMode, Severity, Verdict};

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("bad test fixture: {e:?}"),
    }
}

pub fn sha(c: char) -> CommitSha {
    ok(CommitSha::new(c.to_string().repeat(40)))
}

pub fn head() -> CommitSha {
    sha('a')
}

pub fn commit(c: char) -> Artifact {
    Artifact::commit(sha(c))
}

pub fn task(s: &str) -> TaskId {
    ok(TaskId::new(s))
}

pub fn key(s: &str) -> FindingKey {
    ok(FindingKey::new(s))
}

pub fn login(s: &str) -> Login {
    ok(Login::new(s))
}

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0)
        .single()
        .unwrap_or_default()
}

pub fn event(kind: EventKind) -> Event {
    event_by(kind, "maintainer")
}

pub fn event_by(kind: EventKind, actor: &str) -> Event {
    Event {
        kind,
        at: at(),
        actor: login(actor),
        comment_url: None,
        delivery: DeliveryId("d-1".into()),
        prev: None,
    }
}

/// `sha256:` + hex SHA-256 of the RFC 8785 bytes of an event, computed independently of
/// the crate so that the chain check is tested against the reference, not against itself.
pub fn digest(event: &Event) -> String {
    let value = ok(serde_json::to_value(event));
    let bytes = ok(serde_json_canonicalizer::to_vec(&value));
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Recomputes every `prev` so the history chain is intact.
pub fn rechain(record: &mut Record) {
    let mut prev = None;
    for event in &mut record.history {
        event.prev.clone_from(&prev);
        prev = Some(digest(event));
    }
}

pub fn finding(id: &str, key_name: Option<&str>, blocking: bool) -> FindingSummary {
    FindingSummary {
        id: ok(FindingId::new(id)),
        key: key_name.map(key),
        severity: if blocking {
            Severity::High
        } else {
            Severity::Low
        },
        blocking,
        cross_remit: false,
        claim: "a claim".into(),
        required_outcome: None,
        verification_required: None,
        late_since: None,
        evidence_refs: vec!["src/lib.rs:1".into()],
    }
}

pub fn limitation(id: &str, key_name: &str, authority: Option<&str>) -> LimitationSummary {
    LimitationSummary {
        id: ok(LimitationId::new(id)),
        key: key(key_name),
        text: "a limitation".into(),
        authority: authority.map(str::to_string),
    }
}

pub fn report_run(run: u32, verdict: Verdict, artifact: Artifact) -> ReportRun {
    ReportRun {
        run,
        invocation_ref: format!("ci-run-{run}"),
        invocation_mode: InvocationMode::HostSubagent,
        candidate_artifact: artifact,
        covered_tasks: vec![task("#12")],
        verdict,
        report_digest: format!("sha256:{}", "0".repeat(64)),
        grade: Grade::SessionReported,
        report: format!("reports/AUD-7/run-{run}.json"),
        receipt_id: None,
        receipt: None,
        self_audit: false,
        handoff: auditloop::engine::record::HandoffMark::Flag(false),
        findings: Vec::new(),
        limitations: Vec::new(),
        elegance: None,
    }
}

pub fn veto(key_name: &str, from: u32) -> EventKind {
    EventKind::Veto(Veto {
        key: key(key_name),
        effective_from_round: from,
        reason: "must be fixed".into(),
        authority: "human: maintainer".into(),
    })
}

pub fn acceptance(key_name: &str) -> EventKind {
    EventKind::LimitationAcceptance(LimitationAcceptance {
        run: 1,
        limitations: vec![AcceptedLimitation {
            id: ok(LimitationId::new("L-01")),
            key: key(key_name),
        }],
        note: "accepted".into(),
        authority: "human: maintainer".into(),
    })
}

/// A record certified by run 1 for the head commit, with evidence given for the head.
pub fn certified_record() -> Record {
    let created = Created {
        pull_request: PrNumber(42),
        work_unit: ok(WorkUnit::new("pr:42")),
        goal: "ship it".into(),
        completion_oracle: "tests pass".into(),
        evidence: Some(Evidence {
            text: "cargo test green".into(),
            given_for: commit('a'),
        }),
        candidate_artifact: commit('a'),
        covered_tasks: vec![task("#12")],
        audit_budget: 3,
        candidate_pushed_by: None,
    };
    let mut record = Record {
        schema_version: SCHEMA_VERSION,
        id: ok(AuditId::new("AUD-7")),
        repository: ok(RepoName::new("owner/repo")),
        pull_request: PrNumber(42),
        work_unit: created.work_unit.clone(),
        goal: created.goal.clone(),
        completion_oracle: created.completion_oracle.clone(),
        evidence: created.evidence.clone(),
        candidate_artifact: commit('a'),
        covered_tasks: vec![task("#12")],
        audit_budget: 3,
        audit_state: AuditState::Certified,
        audit_blocked_reason: None,
        latest_verdict: Some(Verdict::Certified),
        certified_artifact: Some(commit('a')),
        certified_covered_tasks: Some(vec![task("#12")]),
        certification_grade: Some(Grade::SessionReported),
        producer_authenticated: Some(false),
        implementers: None,
        history: vec![
            event(EventKind::Created(created)),
            event_by(
                EventKind::Report(report_run(1, Verdict::Certified, commit('a'))),
                "auditor",
            ),
        ],
    };
    rechain(&mut record);
    record
}

/// Everything the gate reads, owned, so that tests can change one thing.
#[derive(Clone)]
pub struct Scenario {
    pub config: RepoConfig,
    pub operator_min: Assurance,
    pub head: CommitSha,
    pub records: Result<Vec<Record>, String>,
    pub closing: Vec<TaskId>,
    pub checks: Vec<CheckObservation>,
    /// The trust store kept receipts are verified against again; `None`: not verified.
    pub trust: Option<auditloop::engine::receipt::TrustStore>,
    /// The certifying run's stored report as the branch holds it; `None`: not read.
    pub certified_report: Option<String>,
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            config: RepoConfig::default(),
            operator_min: Assurance::Standard,
            head: head(),
            records: Ok(vec![certified_record()]),
            closing: vec![task("#12")],
            checks: Vec::new(),
            trust: None,
            certified_report: None,
        }
    }
}

impl Scenario {
    pub fn evaluate(&self) -> GateResult {
        let input = GateInput {
            config: &self.config,
            operator_min: self.operator_min,
            head: &self.head,
            records: self
                .records
                .as_ref()
                .map(|v| v.iter().collect())
                .map_err(Clone::clone),
            closing_issues: &self.closing,
            checks: &self.checks,
            trust: self.trust.as_ref(),
            certified_report: self.certified_report.as_deref(),
            decisions: None,
        };
        evaluate(&input)
    }

    /// The one record, to change; rechain afterwards when the history changed.
    pub fn record(&mut self) -> &mut Record {
        match &mut self.records {
            Ok(list) if !list.is_empty() => &mut list[0],
            _ => panic!("scenario has no record"),
        }
    }

    /// Appends an event to the one record's history, keeping the chain intact.
    pub fn push(&mut self, kind: EventKind) {
        let record = self.record();
        record.history.push(event(kind));
        rechain(record);
    }

    /// Replaces the last run (run 1) with `run`, keeping the chain intact.
    pub fn set_last_run(&mut self, run: ReportRun) {
        let record = self.record();
        if let Some(e) = record
            .history
            .iter_mut()
            .rev()
            .find(|e| matches!(e.kind, EventKind::Report(_)))
        {
            e.kind = EventKind::Report(run);
        }
        rechain(record);
    }

    pub fn last_run(&mut self) -> ReportRun {
        let record = self.record();
        record
            .history
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::Report(r) => Some(r.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no run"))
    }
}

pub fn check(name: &str, status: CheckStatus, conclusion: Option<&str>) -> CheckObservation {
    CheckObservation {
        name: name.into(),
        status,
        conclusion: conclusion.map(str::to_string),
    }
}

pub fn success(name: &str) -> CheckObservation {
    check(name, CheckStatus::Completed, Some("success"))
}

pub fn condition(result: &GateResult, number: u8) -> &Condition {
    result
        .conditions
        .iter()
        .find(|c| c.number == number)
        .unwrap_or_else(|| panic!("no condition {number} in {result:?}"))
}

/// Asserts condition `number` has `outcome` and its reason mentions `needle`.
pub fn assert_condition(case: &str, s: &Scenario, number: u8, outcome: Outcome, needle: &str) {
    let result = s.evaluate();
    let c = condition(&result, number);
    assert_eq!(
        c.outcome, outcome,
        "{case}: condition {number}: {}",
        c.reason
    );
    assert!(
        c.reason.plain().contains(&needle.replace('`', "")) || c.reason.contains(needle),
        "{case}: condition {number} reason {:?} lacks {needle:?}",
        c.reason
    );
}

pub type Change = fn(&mut Scenario);
/// A table row: name, the change to the passing scenario, the outcome, a reason excerpt.
pub type Case = (&'static str, Change, Outcome, &'static str);

pub fn run_table(number: u8, cases: &[Case]) {
    for (name, change, outcome, needle) in cases {
        let mut s = Scenario::default();
        change(&mut s);
        assert_condition(name, &s, number, *outcome, needle);
    }
}

/// Removes every run from the one record's history, keeping the chain intact.
pub fn drop_runs(s: &mut Scenario) {
    let r = s.record();
    r.history
        .retain(|e| !matches!(e.kind, EventKind::Report(_)));
    rechain(r);
}
