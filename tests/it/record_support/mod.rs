//! Test builders: records are built through the transitions, never as hand-written JSON.
#![allow(dead_code)]

use std::collections::BTreeSet;

use auditloop::engine::ids::{
    Artifact, CommitSha, DeliveryId, FindingId, FindingKey, LimitationId, Login, PrNumber,
    RepoName, TaskId,
};
use auditloop::engine::record::{Index, Record};
use auditloop::engine::report::{
    Elegance, Finding, Invocation, InvocationMode, Limitation, Perspectives, Report, SchemaTag,
    Severity, Verdict,
};
use auditloop::engine::transition::AuditPolicy;
use auditloop::engine::transition::{
    self, Applied, CreateInput, EventContext, Refusal, ReportInput, VerifiedReceipt,
};
use chrono::{Duration, TimeZone, Utc};

pub fn sha(n: u8) -> Artifact {
    Artifact::commit(CommitSha::new(format!("{n:02x}").repeat(20)).unwrap())
}

/// A rebind of PR [`PR`] by `cause` onto commit `head`, keeping tasks and evidence.
pub fn rebind_input(
    cause: auditloop::engine::record::BaselineCause,
    head: u8,
) -> transition::BaselineInput {
    transition::BaselineInput {
        cause,
        pull_request: PR,
        head: sha(head),
        covered_tasks: None,
        evidence: None,
    }
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
            handoff: handoff.then(auditloop::engine::record::HandoffCounts::default),
            decisions: &self.decisions,
            author: None,
            receipt_whole: None,
            commits: &[],
            awaited: &[],
            versions: None,
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

/// One step of a random command sequence, for property tests.
#[derive(Debug, Clone)]
pub enum Op {
    Report {
        verdict: u8,
        findings: u8,
        blocking: bool,
    },
    Failure,
    Resolve,
    AcceptLimitation,
    Override {
        extra: u8,
    },
    Baseline {
        head: u8,
    },
    Veto {
        key: u8,
        from: Option<u8>,
    },
    Waive {
        finding: u8,
    },
    Dispose {
        finding: u8,
        kind: u8,
    },
}

pub const VERDICTS: [auditloop::engine::report::Verdict; 4] = [
    auditloop::engine::report::Verdict::Certified,
    auditloop::engine::report::Verdict::CertifiedWithAcceptedLimitations,
    auditloop::engine::report::Verdict::NeedsRemediation,
    auditloop::engine::report::Verdict::NeedsHumanDecision,
];

impl Fx {
    /// Applies `op`, keeping the result when carried out; a refusal changes nothing.
    pub fn run_op(&mut self, op: &Op) -> bool {
        use auditloop::engine::record::{BaselineCause, DispositionKind, WaiverBasis};
        use auditloop::engine::transition::{BaselineInput, FailureInput};
        self.decisions.insert(1);
        let before = self.record.clone();
        let ok = match op {
            Op::Report {
                verdict,
                findings,
                blocking,
            } => {
                let verdict = VERDICTS[usize::from(*verdict) % 4];
                let mut r = self.report(verdict);
                let blocking = *blocking && !verdict.certifies();
                r.findings = (0..*findings % 4)
                    .map(|i| finding(&format!("A-0{}", i + 1), Some(&format!("k{i}")), blocking))
                    .collect();
                if verdict == auditloop::engine::report::Verdict::CertifiedWithAcceptedLimitations {
                    r.limitations = Some(vec![limitation("L-01", "lim", Some("D-1"))]);
                } else if verdict == auditloop::engine::report::Verdict::NeedsHumanDecision {
                    r.limitations = Some(vec![limitation("L-01", "lim", None)]);
                }
                self.try_submit(&r).is_ok()
            }
            Op::Failure => {
                self.invocation += 1;
                let input = FailureInput {
                    audit_id: self.record.id.clone(),
                    invocation_ref: format!("ci-run-{}", self.invocation),
                    candidate_artifact: self.record.candidate_artifact.clone(),
                    reason: "crashed".into(),
                    author: None,
                    commits: Vec::new(),
                };
                let ctx = self.ctx();
                match transition::record_invocation_failure(
                    &self.record,
                    &self.index,
                    input,
                    &ctx,
                    &self.policy,
                ) {
                    Ok(a) => {
                        self.keep(a);
                        true
                    }
                    Err(_) => false,
                }
            }
            Op::Resolve => self
                .apply(|r, c| transition::resolve_decision(r, "go", c))
                .is_ok(),
            Op::AcceptLimitation => self
                .apply(|r, c| transition::accept_limitations(r, &[lid("L-01")], "ok", c))
                .is_ok(),
            Op::Override { extra } => {
                let budget = self.record.runs_used() + u32::from(*extra);
                self.apply(|r, c| transition::override_budget(r, budget, "n", c))
                    .is_ok()
            }
            Op::Baseline { head } => {
                let ctx = self.ctx();
                let input = BaselineInput {
                    cause: BaselineCause::Push,
                    pull_request: self.record.pull_request,
                    head: sha(head % 4 + 1),
                    covered_tasks: None,
                    evidence: None,
                };
                match transition::baseline(&self.record, input, &ctx) {
                    Ok(Some(a)) => {
                        self.keep(a);
                        true
                    }
                    _ => false,
                }
            }
            Op::Veto { key: k, from } => {
                let from = from.map(|f| u32::from(f % 5));
                let k = key(&format!("k{}", k % 4));
                self.apply(|r, c| transition::veto(r, &k, from, "must", c))
                    .is_ok()
            }
            Op::Waive { finding: f } => {
                let id = fid(&format!("A-0{}", f % 3 + 1));
                self.apply(|r, c| {
                    transition::waive(r, &[id], WaiverBasis::TriageThreshold, "later", c)
                })
                .is_ok()
            }
            Op::Dispose { finding: f, kind } => {
                let id = fid(&format!("A-0{}", f % 3 + 1));
                let kinds = [
                    DispositionKind::Fix,
                    DispositionKind::File,
                    DispositionKind::Reject,
                    DispositionKind::FollowUp,
                ];
                let kind = kinds[usize::from(*kind) % 4];
                self.apply(|r, c| {
                    transition::dispose(
                        r,
                        &id,
                        kind,
                        "note",
                        Some(auditloop::engine::ids::IssueNumber(9)),
                        c,
                    )
                })
                .is_ok()
            }
        };
        if !ok {
            assert_eq!(self.record, before, "a refused {op:?} changed the record");
        }
        ok
    }
}

pub fn op_strategy() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (0u8..4, 0u8..4, any::<bool>()).prop_map(|(verdict, findings, blocking)| Op::Report { verdict, findings, blocking }),
        1 => Just(Op::Failure),
        2 => Just(Op::Resolve),
        1 => Just(Op::AcceptLimitation),
        1 => (0u8..3).prop_map(|extra| Op::Override { extra }),
        2 => (0u8..4).prop_map(|head| Op::Baseline { head }),
        1 => (0u8..4, proptest::option::of(0u8..5)).prop_map(|(key, from)| Op::Veto { key, from }),
        1 => (0u8..3).prop_map(|finding| Op::Waive { finding }),
        1 => (0u8..3, 0u8..4).prop_map(|(finding, kind)| Op::Dispose { finding, kind }),
    ]
}
