//! The engine's hot paths: a 200-finding report from text to gate, and rebuilding the PR
//! body sections into a 60 KB body. Run with `cargo bench`.

use std::collections::BTreeSet;

use auditloop::engine::gate::{evaluate, GateInput};
use auditloop::engine::ids::{Artifact, DeliveryId, Login, PrNumber, RepoName, TaskId};
use auditloop::engine::record::{Index, Record};
use auditloop::engine::repo_config::{Assurance, RepoConfig};
use auditloop::engine::report::parse_report;
use auditloop::engine::transition::AuditPolicy;
use auditloop::engine::transition::{
    accept_report, create, CreateInput, EventContext, ReportInput,
};
use auditloop::engine::views::{sections, splice, ViewContext};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

const SHA: &str = "3f1c9a7e5b2d4c6f8a0e1b3d5c7f9a2e4b6d8c0a";

fn ctx(delivery: &str) -> EventContext {
    EventContext {
        at: chrono::DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
            .unwrap()
            .into(),
        actor: Login::new("octocat").unwrap(),
        comment_url: None,
        delivery: DeliveryId(delivery.into()),
    }
}

fn record() -> (Record, Index) {
    let input = CreateInput {
        repository: RepoName::new("octo-org/hello").unwrap(),
        pull_request: PrNumber(42),
        work_unit: None,
        goal: "Verify webhook signatures before parsing".into(),
        completion_oracle: "Unsigned deliveries get 401".into(),
        evidence: Some("CI green on the head".into()),
        explicit_tasks: Some(vec![TaskId::new("#12").unwrap()]),
        closing_issues: vec![],
        head: Artifact::commit(auditloop::engine::ids::CommitSha::new(SHA).unwrap()),
        budget: Some(3),
        required_checks_set: false,
    };
    let applied = create(
        &Index::default(),
        input,
        &ctx("d-create"),
        &AuditPolicy::default(),
    )
    .unwrap();
    (applied.record, applied.index.unwrap())
}

fn report_text(findings: usize) -> String {
    let text =
        "A sentence of substantive audit text that an auditor would write about the candidate.";
    let findings: Vec<Value> = (0..findings)
        .map(|i| {
            json!({"id": format!("A-{:03}", i + 1), "key": format!("finding-{i}"), "severity": "medium",
                   "blocking": false, "claim": text, "evidence_refs": [format!("src/lib.rs:{}", i + 1)],
                   "consequence": text, "required_outcome": text, "verification_required": text})
        })
        .collect();
    json!({
        "schema": "auditor_report_v1", "audit_id": "AUD-1", "work_unit": "pr:42",
        "candidate_artifact": format!("commit:{SHA}"), "covered_tasks": ["#12"],
        "invocation": {"ref": "ci-run-1", "mode": "host_subagent"},
        "perspectives": {"outcome": text, "completeness": text, "integration": text,
                         "engineering_quality": text, "verification": text, "risk": text},
        "assessment": text, "evidence": [text], "verdict": "needs_remediation", "findings": findings
    })
    .to_string()
}

fn report_to_gate(c: &mut Criterion) {
    let (record, index) = record();
    let text = report_text(200);
    let config = RepoConfig::default();
    let decisions = BTreeSet::new();
    let head = auditloop::engine::ids::CommitSha::new(SHA).unwrap();
    c.bench_function(
        "report 200 findings: parse + validate + digest + accept + gate",
        |b| {
            b.iter(|| {
                let intake = parse_report(black_box(&text)).unwrap();
                let input = ReportInput {
                    report: &intake.report,
                    digest: intake.digest.as_str(),
                    receipt: None,
                    handoff: None,
                    decisions: &decisions,
                    author: None,
                    receipt_whole: None,
                    commits: &[],
                    awaited: &[],
                    versions: None,
                };
                let applied = accept_report(
                    &record,
                    &index,
                    input,
                    &ctx("d-report"),
                    &AuditPolicy::default(),
                )
                .unwrap();
                let gate = evaluate(&GateInput {
                    config: &config,
                    operator_min: Assurance::Standard,
                    head: &head,
                    records: Ok(vec![&applied.record]),
                    closing_issues: &[],
                    checks: &[],
                    trust: None,
                    certified_report: None,
                    decisions: None,
                });
                black_box(gate)
            });
        },
    );
}

fn render_and_splice(c: &mut Criterion) {
    let (record, index) = record();
    let intake = parse_report(&report_text(200)).unwrap();
    let decisions = BTreeSet::new();
    let input = ReportInput {
        report: &intake.report,
        digest: intake.digest.as_str(),
        receipt: None,
        handoff: None,
        decisions: &decisions,
        author: None,
        receipt_whole: None,
        commits: &[],
        awaited: &[],
        versions: None,
    };
    let record = accept_report(
        &record,
        &index,
        input,
        &ctx("d-report"),
        &AuditPolicy::default(),
    )
    .unwrap()
    .record;
    let view = ViewContext {
        html_base: "https://github.com".into(),
        repository: RepoName::new("octo-org/hello").unwrap(),
        records_branch: "auditloop-records".into(),
    };
    let human = "Human text of the pull request body, kept byte for byte.\n".repeat(60_000 / 58);
    let body = format!("{human}\n{}", sections(None, &view).rounds);
    c.bench_function("render sections + splice into a 60 KB body", |b| {
        b.iter(|| {
            let s = sections(Some(black_box(&record)), &view);
            black_box(splice(
                black_box(&body),
                &s,
                "https://github.com/octo-org/hello/blob/auditloop-records/records/AUD-1.json",
            ))
        });
    });
}

criterion_group!(benches, report_to_gate, render_and_splice);
criterion_main!(benches);
