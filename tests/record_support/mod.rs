//! Test builders: records are built through the transitions, never as hand-written JSON.
#![allow(dead_code)]

use std::collections::BTreeSet;

use auditloop::engine::policy::AuditPolicy;
use auditloop::engine::record::{Index, Record};
use auditloop::engine::report::{
    Elegance, Finding, Invocation, InvocationMode, Limitation, Perspectives, Report, SchemaTag,
    Severity, Verdict,
};
use auditloop::engine::transition::{
    self, Applied, CreateInput, EventContext, Refusal, ReportInput, VerifiedReceipt,
};
use auditloop::ids::{
    Artifact, CommitSha, DeliveryId, FindingId, FindingKey, LimitationId, Login, PrNumber,
    RepoName, TaskId,
};
use chrono::{Duration, TimeZone, Utc};

pub fn sha(n: u8) -> Artifact {
    Artifact::commit(CommitSha::new(format!("{n:02x}").repeat(20)).unwrap())
}

pub fn task(s: &str) -> TaskId {
    TaskId::new(s).unwrap()
}

pub fn fid(s: &str) -> FindingId {
    FindingId::new(s).unwrap()
}

pub fn lid(s: &str) -> LimitationId {
    LimitationId::new(s).unwrap()
}

pub fn key(s: &str) -> FindingKey {
    FindingKey::new(s).unwrap()
}

pub fn login(s: &str) -> Login {
    Login::new(s).unwrap()
}

pub fn finding(id: &str, key_: Option<&str>, blocking: bool) -> Finding {
    Finding {
        id: fid(id),
        key: key_.map(key),
        severity: if blocking {
            Severity::High
        } else {
            Severity::Low
        },
        blocking,
        claim: format!("claim {id}"),
        evidence_refs: vec!["src/lib.rs:1".into()],
        consequence: "consequence".into(),
        required_outcome: "outcome".into(),
        verification_required: "verification".into(),
        cross_remit: None,
    }
}

pub fn limitation(id: &str, key_: &str, authority: Option<&str>) -> Limitation {
    Limitation {
        id: lid(id),
        key: key(key_),
        text: format!("limitation {key_}"),
        authority: authority.map(str::to_owned),
    }
}

pub const PR: PrNumber = PrNumber(42);

pub fn create_input() -> CreateInput {
    CreateInput {
        repository: RepoName::new("owner/repo").unwrap(),
        pull_request: PR,
        work_unit: None,
        goal: "Ship the webhook".into(),
        completion_oracle: "Deliveries are handled once".into(),
        evidence: Some("cargo test passed".into()),
        explicit_tasks: None,
        closing_issues: vec![task("#12"), task("T-041")],
        head: sha(1),
        budget: None,
        required_checks_set: false,
    }
}

/// A record under test with its index; each call makes a fresh delivery and timestamp.
pub struct Fx {
    pub record: Record,
    pub index: Index,
    pub policy: AuditPolicy,
    pub decisions: BTreeSet<u32>,
    pub n: u32,
    pub invocation: u32,
}

impl Fx {
    pub fn new() -> Fx {
        Fx::with(create_input())
    }

    pub fn with(input: CreateInput) -> Fx {
        let policy = AuditPolicy::default();
        let ctx = ctx_at(0, "maintainer");
        let applied = transition::create(&Index::default(), input, &ctx, &policy).unwrap();
        Fx {
            record: applied.record,
            index: applied.index.unwrap(),
            policy,
            decisions: BTreeSet::new(),
            n: 1,
            invocation: 0,
        }
    }

    pub fn ctx(&mut self) -> EventContext {
        self.ctx_as("maintainer")
    }

    pub fn ctx_as(&mut self, who: &str) -> EventContext {
        self.n += 1;
        ctx_at(self.n, who)
    }

    /// A report for the current binding with a fresh invocation ref.
    pub fn report(&mut self, verdict: Verdict) -> Report {
        self.invocation += 1;
        Report {
            schema: SchemaTag::AuditorReportV1,
            audit_id: self.record.id.clone(),
            work_unit: self.record.work_unit.clone(),
            candidate_artifact: self.record.candidate_artifact.clone(),
            covered_tasks: self.record.covered_tasks.iter().rev().cloned().collect(),
            invocation: Invocation {
                reference: format!("ci-run-{}", self.invocation),
                mode: InvocationMode::HostSubagent,
            },
            perspectives: Perspectives {
                outcome: "o".into(),
                completeness: "c".into(),
                integration: "i".into(),
                engineering_quality: "e".into(),
                verification: "v".into(),
                risk: "r".into(),
            },
            assessment: "assessment".into(),
            evidence: vec!["cargo test".into()],
            verdict,
            findings: Vec::new(),
            limitations: None,
            elegance: Some(Elegance {
                score: 4,
                notes: None,
            }),
            receipt: None,
        }
    }

    pub fn try_submit_with(
        &mut self,
        report: &Report,
        receipt: Option<&VerifiedReceipt>,
        handoff: bool,
    ) -> Result<Applied, Refusal> {
        let ctx = self.ctx_as("auditor-bot");
        let input = ReportInput {
            report,
            digest: "sha256:00",
            receipt,
            handoff,
            decisions: &self.decisions,
        };
        let applied =
            transition::accept_report(&self.record, &self.index, input, &ctx, &self.policy)?;
        self.keep(applied.clone());
        Ok(applied)
    }

    pub fn try_submit(&mut self, report: &Report) -> Result<Applied, Refusal> {
        self.try_submit_with(report, None, false)
    }

    pub fn submit(&mut self, verdict: Verdict) -> Applied {
        let r = self.report(verdict);
        self.try_submit(&r).unwrap()
    }

    /// Keeps a carried-out transition as the current state.
    pub fn keep(&mut self, applied: Applied) {
        self.record = applied.record;
        if let Some(index) = applied.index {
            self.index = index;
        }
    }

    /// Runs a transition and keeps its result when carried out.
    pub fn apply(
        &mut self,
        f: impl FnOnce(&Record, &EventContext) -> Result<Applied, Refusal>,
    ) -> Result<Applied, Refusal> {
        let ctx = self.ctx();
        let applied = f(&self.record, &ctx)?;
        self.keep(applied.clone());
        Ok(applied)
    }
}

pub fn ctx_at(n: u32, who: &str) -> EventContext {
    EventContext {
        at: Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0).unwrap() + Duration::minutes(n.into()),
        actor: login(who),
        comment_url: Some(format!(
            "https://github.com/owner/repo/pull/42#issuecomment-{n}"
        )),
        delivery: DeliveryId(format!("delivery-{n}")),
    }
}

/// Asserts a refusal by its rule name.
pub fn assert_rule<T: std::fmt::Debug>(result: Result<T, Refusal>, rule: &str) {
    match result {
        Err(refusal) => {
            assert_eq!(refusal.rule(), rule, "refusal: {refusal}");
            assert!(!refusal.to_string().is_empty());
            assert!(!refusal.fix().is_empty());
        }
        Ok(v) => panic!("expected refusal `{rule}`, got {v:?}"),
    }
}
