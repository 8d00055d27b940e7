//! Builders for records and gate results used by the views tests.
#![allow(dead_code)]

use chrono::{DateTime, TimeZone, Utc};

use auditloop::engine::gate::{Conclusion, Condition, GateResult, Outcome};
use auditloop::engine::record::*;
use auditloop::engine::report::{InvocationMode, Severity, Verdict};
use auditloop::engine::views::ViewContext;
use auditloop::ids::*;

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
        evidence_refs: refs.iter().map(|r| r.to_string()).collect(),
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
        handoff: false,
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
        issue,
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
        history,
    }
}

/// Three runs, two waivers, every disposition kind, a veto, an accepted limitation, an
/// invocation failure, a resolution and a budget override.
pub fn rich_record() -> Record {
    use Severity::*;
    let mut a03 = finding(
        "A-03",
        Some("docs-gap"),
        Medium,
        false,
        "The operator guide lacks the replay window",
        &["docs/ops.md:14"],
    );
    a03.cross_remit = true;
    let history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            run(
                1,
                'a',
                Verdict::NeedsRemediation,
                Grade::SessionReported,
                vec![
                    finding(
                        "A-01",
                        Some("webhook-replay"),
                        Critical,
                        true,
                        "Replayed deliveries are applied twice",
                        &["src/webhook.rs:88"],
                    ),
                    finding(
                        "A-02",
                        Some("token-leak"),
                        High,
                        true,
                        "The installation token is logged at debug level",
                        &["src/auth.rs:10-20"],
                    ),
                    a03,
                    finding(
                        "A-04",
                        None,
                        Low,
                        false,
                        "A helper name is misleading",
                        &["../etc/passwd:1"],
                    ),
                ],
                vec![],
            ),
            at(11, 0),
            "auditor-bot",
        ),
        event(
            dispose(
                fref("A-01", Some("webhook-replay"), 1),
                DispositionKind::Fix,
                "Dedupe on delivery id",
                None,
            ),
            at(11, 10),
            "maint",
        ),
        event(
            dispose(
                fref("A-02", Some("token-leak"), 1),
                DispositionKind::Reject,
                "The token is redacted by the log layer, see src/log.rs:30",
                None,
            ),
            at(11, 11),
            "maint",
        ),
        event(
            dispose(
                fref("A-04", None, 1),
                DispositionKind::FollowUp,
                "Rename in the next cleanup",
                None,
            ),
            at(11, 12),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-03", Some("docs-gap"), 1)],
                basis: WaiverBasis::CrossRemit,
                reason: "Docs are owned by the handbook repository".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(11, 13),
            "maint",
        ),
        event(
            EventKind::Veto(Veto {
                key: key("webhook-replay"),
                effective_from_round: 2,
                reason: "Replay safety is the goal of this change".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(11, 14),
            "maint",
        ),
        event(
            EventKind::InvocationFailure(InvocationFailure {
                invocation_ref: "ci-run-88".to_owned(),
                candidate_artifact: commit('b'),
                reason: "The auditor timed out".to_owned(),
            }),
            at(12, 0),
            "auditor-bot",
        ),
        event(
            run(
                2,
                'b',
                Verdict::NeedsHumanDecision,
                Grade::SessionReported,
                vec![
                    finding(
                        "A-01",
                        Some("token-leak"),
                        High,
                        true,
                        "The installation token is still logged",
                        &["src/auth.rs:12"],
                    ),
                    finding(
                        "A-02",
                        Some("perf-regression"),
                        Medium,
                        false,
                        "Intake allocates per header",
                        &["src/intake.rs:40-44"],
                    ),
                    finding("A-03", Some("style-nit"), Low, false, "Import order", &[]),
                ],
                vec![limitation(
                    "L-01",
                    "no-ghes-e2e",
                    "No end-to-end test against GHES",
                    None,
                )],
            ),
            at(13, 0),
            "auditor-bot",
        ),
        event(
            dispose(
                fref("A-02", Some("perf-regression"), 2),
                DispositionKind::File,
                "Track as tech debt",
                Some(77),
            ),
            at(13, 10),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-03", Some("style-nit"), 2)],
                basis: WaiverBasis::TriageThreshold,
                reason: "Below the triage threshold".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 11),
            "maint",
        ),
        event(
            EventKind::Resolution(Resolution {
                note: "GHES e2e is out of scope for this PR".to_owned(),
                authority: "human: maint".to_owned(),
                finding: None,
            }),
            at(13, 20),
            "maint",
        ),
        event(
            EventKind::LimitationAcceptance(LimitationAcceptance {
                run: 2,
                limitations: vec![AcceptedLimitation {
                    id: LimitationId::new("L-01").unwrap(),
                    key: key("no-ghes-e2e"),
                }],
                note: "Accepted until the GHES runner exists".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 21),
            "maint",
        ),
        event(
            EventKind::Override(Override {
                budget: 4,
                previous_budget: 3,
                note: "One more round for the token fix".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 30),
            "maint",
        ),
        event(
            run(
                3,
                'c',
                Verdict::CertifiedWithAcceptedLimitations,
                Grade::Authenticated,
                vec![finding(
                    "A-01",
                    Some("token-leak"),
                    Low,
                    false,
                    "Token redaction relies on the log layer",
                    &["src/auth.rs:12", "/abs/path.rs:3"],
                )],
                vec![limitation(
                    "L-01",
                    "no-ghes-e2e",
                    "No end-to-end test against GHES",
                    Some("human: maint"),
                )],
            ),
            at(15, 0),
            "auditor-bot",
        ),
    ];
    record(history, 4, AuditState::Certified)
}

pub fn condition(number: u8, outcome: Outcome, reason: &str) -> Condition {
    const TITLES: [&str; 9] = [
        "exactly one current record, structurally valid",
        "candidate is the head commit",
        "covered tasks are exact",
        "certified verdict and state",
        "certification matches the last run",
        "no unresolved blocking finding",
        "accepted limitations have an authority",
        "final-state evidence for the head",
        "grade meets the assurance policy",
    ];
    Condition {
        number,
        title: TITLES[usize::from(number) - 1],
        outcome,
        reason: reason.to_owned(),
    }
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
        title: title.to_owned(),
    }
}
