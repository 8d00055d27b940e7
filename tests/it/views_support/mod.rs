//! Builders for records and gate results used by the views tests.
#![allow(dead_code, unused_imports)]

mod hostile;
mod rich;

pub use hostile::*;
pub use rich::rich_record;

use chrono::{DateTime, TimeZone, Utc};

use auditloop::engine::gate::{Conclusion, Condition, GateResult, Outcome};
use auditloop::engine::ids::*;
use auditloop::engine::record::*;
use auditloop::engine::report::{InvocationMode, Severity, Verdict};
use auditloop::engine::views::ViewContext;

pub fn ctx() -> ViewContext {
    ViewContext {
        html_base: "https://github.com".to_owned(),
        repository: RepoName::new("octo/widgets").unwrap(),
        records_branch: "auditloop-records".to_owned(),
    }
}

/// `commit:` of 40 copies of `c`.
pub fn commit(c: char) -> Artifact {
    Artifact::commit(CommitSha::new(c.to_string().repeat(40)).unwrap())
}

pub fn at(hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, hour, minute, 0).unwrap()
}

pub fn login(s: &str) -> Login {
    Login::new(s).unwrap()
}

pub fn key(s: &str) -> FindingKey {
    FindingKey::new(s).unwrap()
}

pub fn event(kind: EventKind, when: DateTime<Utc>, actor: &str) -> Event {
    Event {
        kind,
        at: when,
        actor: login(actor),
        comment_url: None,
        delivery: DeliveryId(format!("d-{}", when.timestamp())),
        prev: None,
    }
}

pub fn finding(
    id: &str,
    k: Option<&str>,
    severity: Severity,
    blocking: bool,
    claim: &str,
    refs: &[&str],
) -> FindingSummary {
    FindingSummary {
        id: FindingId::new(id).unwrap(),
        key: k.map(key),
        severity,
        blocking,
        cross_remit: false,
        claim: claim.to_owned(),
        evidence_refs: refs.iter().map(std::string::ToString::to_string).collect(),
        required_outcome: Some(format!("{claim} no longer holds")),
        verification_required: Some("a test shows it".to_owned()),
        late_since: None,
    }
}

pub fn limitation(id: &str, k: &str, text: &str, authority: Option<&str>) -> LimitationSummary {
    LimitationSummary {
        id: LimitationId::new(id).unwrap(),
        key: key(k),
        text: text.to_owned(),
        authority: authority.map(str::to_owned),
    }
}

pub fn run(
    n: u32,
    candidate: char,
    verdict: Verdict,
    grade: Grade,
    findings: Vec<FindingSummary>,
    limitations: Vec<LimitationSummary>,
) -> EventKind {
    EventKind::Report(ReportRun {
        run: n,
        invocation_ref: format!("ci-run-{n}"),
        invocation_mode: InvocationMode::HostSubagent,
        candidate_artifact: commit(candidate),
        covered_tasks: vec![TaskId::new("#12").unwrap()],
        verdict,
        report_digest: format!("sha256:{}", "0".repeat(64)),
        grade,
        report: format!("reports/AUD-7/run-{n}.json"),
        receipt_id: None,
        receipt: None,
        self_audit: false,
        handoff: auditloop::engine::record::HandoffMark::Flag(false),
        findings,
        limitations,
        elegance: None,
    })
}

pub fn fref(id: &str, k: Option<&str>, run: u32) -> FindingRef {
    FindingRef {
        id: FindingId::new(id).unwrap(),
        key: k.map(key),
        run,
    }
}

pub fn dispose(f: FindingRef, kind: DispositionKind, note: &str, issue: Option<u64>) -> EventKind {
    EventKind::Disposition(Disposition {
        finding: f,
        disposition: kind,
        note: note.to_owned(),
        authority: "human: maint".to_owned(),
        issue: issue.map(IssueNumber),
        vetoed_from: None,
    })
}

pub fn created(budget: u32) -> EventKind {
    EventKind::Created(Created {
        pull_request: PrNumber(42),
        work_unit: WorkUnit::new("pr:42").unwrap(),
        goal: "Replay-safe webhook intake".to_owned(),
        completion_oracle: "Replayed deliveries are rejected".to_owned(),
        evidence: None,
        candidate_artifact: commit('a'),
        covered_tasks: vec![TaskId::new("#12").unwrap()],
        audit_budget: budget,
        candidate_pushed_by: None,
    })
}

/// A record whose stored fields are set from `history` the simple way the views read them.
pub fn record(history: Vec<Event>, budget: u32, state: AuditState) -> Record {
    let latest = history.iter().rev().find_map(|e| match &e.kind {
        EventKind::Report(r) => Some(r.clone()),
        _ => None,
    });
    let certified = state == AuditState::Certified;
    Record {
        schema_version: SCHEMA_VERSION,
        id: AuditId::new("AUD-7").unwrap(),
        repository: RepoName::new("octo/widgets").unwrap(),
        pull_request: PrNumber(42),
        work_unit: WorkUnit::new("pr:42").unwrap(),
        goal: "Replay-safe webhook intake".to_owned(),
        completion_oracle: "Replayed deliveries are rejected".to_owned(),
        evidence: None,
        candidate_artifact: latest
            .as_ref()
            .map_or_else(|| commit('a'), |r| r.candidate_artifact.clone()),
        covered_tasks: vec![TaskId::new("#12").unwrap()],
        audit_budget: budget,
        audit_state: state,
        audit_blocked_reason: None,
        latest_verdict: latest.as_ref().map(|r| r.verdict),
        certified_artifact: latest
            .as_ref()
            .filter(|_| certified)
            .map(|r| r.candidate_artifact.clone()),
        certified_covered_tasks: certified.then(|| vec![TaskId::new("#12").unwrap()]),
        certification_grade: latest.as_ref().filter(|_| certified).map(|r| r.grade),
        producer_authenticated: latest
            .as_ref()
            .filter(|_| certified)
            .map(|r| r.grade == Grade::Authenticated),
        implementers: None,
        history,
    }
}

/// A condition with the gate's own title; `reason` is taken as untrusted text.
pub fn condition(number: u8, outcome: Outcome, reason: &str) -> Condition {
    auditloop::engine::gate::condition(number, outcome, reason.to_owned())
}

/// The gate as the app evaluates it for `record` at `head`, with default settings and
/// the evidence checks given.
pub fn evaluated(
    record: Option<&Record>,
    head: &CommitSha,
    checks: &[auditloop::engine::gate::CheckObservation],
    config: &auditloop::engine::repo_config::RepoConfig,
) -> GateResult {
    auditloop::engine::gate::evaluate(&auditloop::engine::gate::GateInput {
        config,
        operator_min: auditloop::engine::repo_config::Assurance::Standard,
        head,
        records: Ok(record.into_iter().collect()),
        closing_issues: &[],
        checks,
        trust: None,
        certified_report: None,
        decisions: None,
    })
}

/// Nine conditions, all passing except those listed.
pub fn gate(
    conclusion: Conclusion,
    title: &str,
    not_passing: &[(u8, Outcome, &str)],
) -> GateResult {
    let conditions = (1..=9)
        .map(|n| match not_passing.iter().find(|(m, _, _)| *m == n) {
            Some((_, outcome, reason)) => condition(n, *outcome, reason),
            None => condition(n, Outcome::Pass, "holds"),
        })
        .collect();
    GateResult {
        conditions,
        conclusion,
        title: title.to_owned().into(),
    }
}

/// `history` without its `reject` dispositions: a record that is not contested.
pub fn uncontested(
    history: &[auditloop::engine::record::Event],
) -> Vec<auditloop::engine::record::Event> {
    use auditloop::engine::record::{DispositionKind, EventKind};
    history
        .iter()
        .filter(|e| {
            !matches!(&e.kind, EventKind::Disposition(d) if d.disposition == DispositionKind::Reject)
        })
        .cloned()
        .collect()
}

/// The audit dashboard of four PRs: certified, needing remediation, awaiting a human, and
/// one whose record is damaged.
pub fn dashboard_body(rich: &auditloop::engine::record::Record) -> String {
    use auditloop::engine::dashboard::{body, rows, OpenPull, Sources};
    use auditloop::engine::record::AuditState;
    use auditloop::engine::record::{DispositionKind, EventKind};
    // A rejection still contested would put every row under "Waiting on a maintainer":
    // the picture shows one PR in each state instead.
    let mut certified = rich.clone();
    certified.history = uncontested(&rich.history);
    crate::gate_support::rechain(&mut certified);
    let rich = &certified;
    let with = |upto: usize, state: AuditState, id: &str| {
        let mut r = record(uncontested(&rich.history[..upto]), 3, state);
        crate::gate_support::rechain(&mut r);
        r.id = auditloop::engine::ids::AuditId::new(id.to_owned()).unwrap();
        r
    };
    let remediation = with(7, AuditState::Open, "AUD-2");
    let awaiting = with(9, AuditState::AwaitingHuman, "AUD-3");
    let damaged = auditloop::engine::ids::AuditId::new("AUD-4".to_owned()).unwrap();
    let pulls = [
        OpenPull {
            number: auditloop::engine::ids::PrNumber(42),
            title: "Refuse replayed webhook deliveries",
            record_id: &rich.id,
            record: Ok(rich),
            gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
                "Audit gate passes",
            )),
        },
        OpenPull {
            number: auditloop::engine::ids::PrNumber(43),
            title: "Bound the retry queue | and log what was dropped",
            record_id: &remediation.id,
            record: Ok(&remediation),
            gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
                "Audit gate passes",
            )),
        },
        OpenPull {
            number: auditloop::engine::ids::PrNumber(44),
            title: "Move the records branch to the new layout",
            record_id: &awaiting.id,
            record: Ok(&awaiting),
            gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
                "Audit gate passes",
            )),
        },
        OpenPull {
            number: auditloop::engine::ids::PrNumber(45),
            title: "Rotate the webhook secret",
            record_id: &damaged,
            record: Err("records/000/AUD-4.json: expected value at line 1 column 1".to_owned()),
            gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
                "Audit gate passes",
            )),
        },
    ];
    let view = ctx();
    body(
        &rows(&pulls),
        &Sources {
            view: &view,
            patterns: None,
            records_commit: None,
        },
    )
}
