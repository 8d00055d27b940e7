//! Why a command was not carried out: one variant per rule, and one table
//! (`table.rs`) that gives each its stable rule name, what was wrong (`Display`,
//! [`Refusal::what_md`]) and how to put it right ([`Refusal::fix`]), so that a rule is read
//! and changed in one place.

use std::fmt;

use crate::ids::{
    Artifact, AuditId, FindingId, FindingKey, LimitationId, Login, PrNumber, TaskId, WorkUnit,
};
use crate::md::Md;
use crate::record::{AuditState, DispositionKind};

pub use super::implementation::Implementation;

mod table;

/// A command not carried out: the rule it broke, with the values the reply names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    // --- creating and binding records
    PullHasRecord {
        pull: PrNumber,
        id: AuditId,
    },
    WorkUnitHasRecord {
        work_unit: WorkUnit,
        id: AuditId,
        pull: Option<PrNumber>,
    },
    CoveredTasksRequired {
        work_unit: WorkUnit,
    },
    NoCoveredTasks,
    EvidenceRequired,
    ZeroBudget,
    WrongPullRequest {
        id: AuditId,
        record_pull: PrNumber,
        pull: PrNumber,
    },
    AdoptSourceActive {
        id: AuditId,
        pull: PrNumber,
    },
    TaskOverlap {
        task: TaskId,
        id: AuditId,
        pull: PrNumber,
        why: &'static str,
    },

    // --- reports
    AuditIdMismatch {
        report: AuditId,
        record: AuditId,
    },
    WorkUnitMismatch {
        report: WorkUnit,
        record: WorkUnit,
    },
    StaleCandidate {
        report: Artifact,
        current: Artifact,
    },
    CoveredTasksMismatch {
        report: String,
        record: String,
    },
    InvocationRefReused {
        reference: String,
        id: AuditId,
    },
    ReceiptReused {
        receipt_id: String,
        id: AuditId,
    },
    ReceiptRequired,
    SelfAudit {
        poster: Login,
        how: Implementation,
    },
    NoEvidence {
        awaited: Vec<(String, String)>,
    },
    HandoffUnderHardened,
    AwaitingHuman {
        id: AuditId,
    },
    BudgetExhausted {
        used: u32,
        budget: u32,
    },
    InvocationFailuresSpent {
        failed: u32,
        candidate: Artifact,
    },
    AlreadyCertified {
        artifact: Artifact,
    },
    VetoedFinding {
        finding: FindingId,
        key: FindingKey,
        from_round: u32,
    },
    LimitationWithoutAuthority {
        id: LimitationId,
    },
    AuthorityUnrecognized {
        id: LimitationId,
        authority: String,
    },
    LimitationNotAccepted {
        id: LimitationId,
        key: FindingKey,
        login: String,
    },
    DecisionRecordMissing {
        id: LimitationId,
        number: u32,
    },

    // --- human answers and budget
    NotAwaitingHuman {
        id: AuditId,
        state: AuditState,
    },
    NoRun {
        id: AuditId,
    },
    NothingNamed,
    UnknownLimitation {
        id: LimitationId,
        run: u32,
    },
    UnknownFinding {
        id: FindingId,
        run: u32,
    },
    FindingNotRejected {
        id: FindingId,
        run: u32,
    },
    FindingAlreadyResolved {
        id: FindingId,
        run: u32,
    },
    OverrideTooLow {
        budget: u32,
        used: u32,
    },

    // --- waivers, vetoes, dispositions
    NotCrossRemit {
        id: FindingId,
    },
    WaiveVetoed {
        id: FindingId,
        key: FindingKey,
        from_round: u32,
    },
    DisposeVetoed {
        id: FindingId,
        key: FindingKey,
        from_round: u32,
        disposition: &'static str,
    },
    AlreadyWaived {
        id: FindingId,
        run: u32,
    },
    VetoRoundZero,
    AlreadyDisposed {
        id: FindingId,
        run: u32,
        disposition: DispositionKind,
    },
    FollowUpBlocking {
        id: FindingId,
    },
    IssueRequired {
        id: FindingId,
    },

    // --- delivery and consistency
    DeliveryAlreadyApplied {
        delivery: String,
    },
    Inconsistent(String),
}

impl Refusal {
    /// The stable kebab-case name of the broken rule.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        self.entry().rule
    }

    /// What was wrong, for the reply: the app's words keep their code spans, the values
    /// that came from a report or a command are escaped.
    #[must_use]
    pub fn what_md(&self) -> Md {
        let entry = self.entry();
        // A row without Markdown of the app's own: all of it is escaped as text.
        entry
            .why_md
            .unwrap_or_else(|| Md::text_max(&entry.why, 4_000))
    }

    /// How to put it right, for the reply.
    #[must_use]
    pub fn fix(&self) -> Md {
        self.entry().fix
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.entry().why)
    }
}

impl std::error::Error for Refusal {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_for_a_work_unit_with_a_record_names_its_pr_apart_from_its_id() {
        let refusal = |pull| Refusal::WorkUnitHasRecord {
            work_unit: WorkUnit::new("pr:12".to_owned()).unwrap(),
            id: AuditId::new("AUD-7".to_owned()).unwrap(),
            pull,
        };
        assert_eq!(
            refusal(Some(PrNumber(12))).fix().plain(),
            "continue on AUD-7 on PR #12, or use /audit adopt AUD-7 if that PR was closed without merging"
        );
        assert_eq!(
            refusal(None).fix().plain(),
            "continue on AUD-7, or use /audit adopt AUD-7 if that PR was closed without merging"
        );
    }
}
