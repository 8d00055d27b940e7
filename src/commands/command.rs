//! What a parsed `/audit` command holds (docs/reference.md#commands), typed so that no malformed id or
//! placeholder text reaches the engine.

use crate::engine::record::{DispositionKind, WaiverBasis};
use crate::ids::{Artifact, AuditId, FindingId, FindingKey, LimitationId, TaskId, WorkUnit};

/// Every command of the table in docs/reference.md#commands: one enum for the parser, the help table and the
/// who-may rules. `help_table` matches on it exhaustively.
use crate::engine::policy::CommandName;

/// The payload of `/audit report`: the fenced block after the command line, as written
/// (line endings normalized to `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportPayload {
    /// A ```` ```json ```` block: an `auditor_report_v1` report.
    Json(String),
    /// A ```` ```text ```` block: the plan-audit completion handoff.
    Handoff(String),
}

/// What `/audit resolve` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveTarget {
    /// `/audit resolve --note T`: answers `needs_human_decision`.
    Decision,
    /// `/audit resolve L-NN[,L-NN] --note T`: accepts limitations of the latest run.
    Limitations(Vec<LimitationId>),
    /// `/audit resolve A-NN --note T`: resolves a finding disposed `reject`.
    Finding(FindingId),
}

/// One command, one variant per row of the table in docs/reference.md#commands. Lists are non-empty, without
/// duplicates, in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedCommand {
    New {
        goal: String,
        oracle: String,
        evidence: Option<String>,
        covered_tasks: Option<Vec<TaskId>>,
        /// `None`: the engine defaults it to `pr:<number>`.
        work_unit: Option<WorkUnit>,
        budget: Option<u32>,
    },
    Adopt {
        audit_id: AuditId,
    },
    Report {
        audit_id: Option<AuditId>,
        invocation: Option<String>,
        candidate: Option<Artifact>,
        payload: ReportPayload,
    },
    Baseline {
        covered_tasks: Option<Vec<TaskId>>,
        evidence: Option<String>,
    },
    Resolve {
        target: ResolveTarget,
        note: String,
    },
    Override {
        budget: u32,
        note: String,
    },
    Waive {
        findings: Vec<FindingId>,
        basis: WaiverBasis,
        reason: String,
    },
    Veto {
        key: FindingKey,
        /// `None`: from the next run on.
        from_round: Option<u32>,
        reason: String,
    },
    Dispose {
        finding: FindingId,
        disposition: DispositionKind,
        note: String,
    },
    Status,
    Gate,
    Help,
}

impl ParsedCommand {
    #[must_use]
    pub fn name(&self) -> CommandName {
        match self {
            ParsedCommand::New { .. } => CommandName::New,
            ParsedCommand::Adopt { .. } => CommandName::Adopt,
            ParsedCommand::Report { .. } => CommandName::Report,
            ParsedCommand::Baseline { .. } => CommandName::Baseline,
            ParsedCommand::Resolve { .. } => CommandName::Resolve,
            ParsedCommand::Override { .. } => CommandName::Override,
            ParsedCommand::Waive { .. } => CommandName::Waive,
            ParsedCommand::Veto { .. } => CommandName::Veto,
            ParsedCommand::Dispose { .. } => CommandName::Dispose,
            ParsedCommand::Status => CommandName::Status,
            ParsedCommand::Gate => CommandName::Gate,
            ParsedCommand::Help => CommandName::Help,
        }
    }

    /// The budget `/audit new --budget N` asks for; `None` without the flag or for any
    /// other command.
    #[must_use]
    pub(crate) fn asked_budget(&self) -> Option<u32> {
        match self {
            ParsedCommand::New { budget, .. } => *budget,
            _ => None,
        }
    }

    /// `status` and `help` are allowed on closed PRs and under an invalid or disabled
    /// configuration (docs/reference.md#repository-configuration).
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        matches!(self, ParsedCommand::Status | ParsedCommand::Help)
    }

    /// Whether the command changes a record, so that its outcome (carried out or refused)
    /// must be decided once; `gate` only publishes the views again.
    #[must_use]
    pub(crate) fn changes_records(&self) -> bool {
        !matches!(
            self,
            ParsedCommand::Status | ParsedCommand::Help | ParsedCommand::Gate
        )
    }
}
