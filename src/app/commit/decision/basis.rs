//! What every decision is made from and made of: the facts it may ask for, the halt it
//! may end in, and the helpers each command family shares. Apart from the decision path
//! itself ([`super::for_command`]), so that the families name this file and not their
//! parent.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::app::commit::commit_loop::Unwritten;
use crate::app::commit::filing::IssueToFile;
use crate::app::context::failure::Refused;
use crate::app::reads::state::State;
use crate::engine::ledger::late::FileVersions;
use crate::engine::record::{has_delivery, Record};
use crate::engine::transition as t;
use crate::github::rest::Pull;
use crate::ids::{Artifact, AuditId, DeliveryId, IssueNumber, Login, PrNumber};
use crate::records::Change;

/// Why a decision did not give a change.
pub(crate) type Halt = Unwritten<Refused, Need>;

pub(crate) type Decide = dyn Fn(&State, &Facts) -> Result<Change, Halt> + Send + Sync;

/// A command made into a decision on the latest records, with what the commit needs.
pub(crate) struct CommandDecision {
    /// A record named by id (adopt), to load beside the PR's own.
    pub(crate) named: Option<AuditId>,
    pub(crate) message: String,
    /// An accepted report gets a fresh check run (annotations are never duplicated).
    pub(crate) new_run: bool,
    /// The change may leave the gate passing or awaiting a human (a report that
    /// certifies or asks for a decision): the views then combine the gates of the open PRs
    /// sharing the head, listed beside the commit.
    pub(crate) may_pass: bool,
    pub(crate) decide: Arc<Decide>,
}

/// What a decision asks GitHub for, in the commit loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Need {
    /// Another pull request (the source of an adopted record).
    Pull(PrNumber),
    /// The `D-<n>` decision records under `decisions_path` on the default branch.
    DecisionRecords,
    /// The tech-debt issue a `file` disposition opens.
    Issue(Box<IssueToFile>),
    /// Another record, read at the records commit the decision is made on (the one
    /// covering a task `/audit new` asks for), with the PR the decision is for.
    Record(AuditId, PrNumber),
    /// The PR read again once the record was seen on this candidate (not the one it had
    /// when the PR was first read): someone rebound it in between, maybe to a newer head.
    PullAfter(PrNumber, Artifact),
    /// The blobs of files at candidates, for whether a report's new findings are late.
    Versions(Vec<(Artifact, String)>),
}

/// What the needs of one decision found; kept across attempts of one commit.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub(super) pulls: HashMap<PrNumber, Pull>,
    pub(super) decisions: Option<BTreeSet<u32>>,
    /// The issue number per [`IssueToFile::key`]; `None`: left to a redelivery.
    pub(super) issues: HashMap<String, Option<IssueNumber>>,
    /// Other records by id; `None`: missing or damaged.
    pub(super) records: HashMap<AuditId, Option<Record>>,
    /// File versions read for the decision.
    pub(super) versions: FileVersions,
    /// The PR as last read again, with the candidate the record was seen on just before
    /// (see [`Need::PullAfter`]): the PR as it stands for the views too.
    pub(super) pull_after: Option<(Artifact, Pull)>,
}

impl Facts {
    pub(crate) fn pull(&self, number: PrNumber) -> Result<&Pull, Halt> {
        self.pulls
            .get(&number)
            .ok_or(Unwritten::Needs(Need::Pull(number)))
    }

    pub(crate) fn decisions(&self) -> Result<&BTreeSet<u32>, Halt> {
        self.decisions
            .as_ref()
            .ok_or(Unwritten::Needs(Need::DecisionRecords))
    }

    pub(crate) fn record(&self, id: &AuditId, pr: PrNumber) -> Result<Option<&Record>, Halt> {
        match self.records.get(id) {
            Some(r) => Ok(r.as_ref()),
            None => Err(Unwritten::Needs(Need::Record(id.clone(), pr))),
        }
    }

    /// The PR as read after the record was seen on `seen`.
    pub(crate) fn pull_after(&self, number: PrNumber, seen: &Artifact) -> Result<&Pull, Halt> {
        match &self.pull_after {
            Some((read_after, pull)) if read_after == seen => Ok(pull),
            _ => Err(Unwritten::Needs(Need::PullAfter(number, seen.clone()))),
        }
    }

    /// The PR as the decision last read it again, if it had to.
    pub(crate) fn pull_read_again(&self) -> Option<&Pull> {
        self.pull_after.as_ref().map(|(_, pull)| pull)
    }

    /// The versions of `wanted`, from `ahead` (read with the first reads) or read for this
    /// decision.
    pub(crate) fn versions(
        &self,
        ahead: &FileVersions,
        wanted: &[(Artifact, String)],
    ) -> Result<FileVersions, Halt> {
        let mut all = ahead.clone();
        all.extend(self.versions.clone());
        if all.holds(wanted) {
            return Ok(all);
        }
        Err(Unwritten::Needs(Need::Versions(wanted.to_vec())))
    }

    pub(crate) fn issue(&self, wanted: IssueToFile) -> Result<Option<IssueNumber>, Halt> {
        match self.issues.get(&wanted.key()) {
            Some(n) => Ok(*n),
            None => Err(Unwritten::Needs(Need::Issue(Box::new(wanted)))),
        }
    }
}

/// What every decision is made with.
pub(super) struct DecisionInputs {
    pub(super) event: t::EventContext,
    pub(super) view: crate::engine::views::ViewContext,
    pub(super) policy: t::AuditPolicy,
    pub(super) delivery: DeliveryId,
    pub(super) head: Artifact,
    pub(super) by: String,
    /// The pull request's author, for the independence rule.
    pub(super) author: Option<Login>,
    /// The record's candidate when the pull request was read (the same first reads);
    /// `None`: it had no record then.
    pub(super) candidate: Option<Artifact>,
    /// What a report is judged on beyond the records (see [`ReportReads`]).
    pub(super) report_reads: ReportReads,
}

/// What a report's rules read of GitHub besides the records: the accounts linked to the
/// pull request's commits (the independence rule), and the required checks that have not
/// concluded `success` on the candidate (no audit before its evidence).
#[derive(Debug, Clone, Default)]
pub(crate) struct ReportReads {
    pub(crate) commits: Vec<t::CommitIdentity>,
    pub(crate) awaited: Vec<(String, String)>,
    /// The cited files' versions read ahead (whether a new finding is late); what they
    /// lack the decision asks for ([`Need::Versions`]).
    pub(crate) versions: FileVersions,
}

/// The problems as a Markdown list, each problem's words escaped (they quote the report).
pub(super) fn problems_text(problems: &[crate::engine::report::Problem]) -> crate::engine::md::Md {
    let items: Vec<crate::engine::md::Md> = problems
        .iter()
        .take(30)
        .map(|p| {
            crate::md!(
                "- {}",
                crate::engine::md::Md::text_max(&p.to_string(), 2_000)
            )
        })
        .collect();
    crate::engine::md::Md::join(&items, "\n")
}

/// The PR's record, or why there is none to act on.
pub(super) fn current<'a>(state: &'a State, delivery: &DeliveryId) -> Result<&'a Record, Halt> {
    match &state.record {
        None => Err(Unwritten::Refused(Refused::new(
            "this pull request has no audit record",
            "start one with `/audit new --goal \"…\" --oracle \"…\"`",
        ))),
        Some(Err(why)) => Err(Unwritten::Damaged(why.clone().into())),
        Some(Ok(record)) if has_delivery(record, delivery) => Err(Unwritten::AlreadyApplied),
        Some(Ok(record)) => Ok(record),
    }
}

pub(super) fn refusal(r: t::Refusal) -> Halt {
    Unwritten::Refused(r.into())
}

/// Refuses a record (new, or rebound by `/audit baseline`) whose tasks another PR's unfinished record covers; that record,
/// and its PR when it is certified, are read only when the index maps a task to it.
pub(super) fn unfinished_elsewhere(
    state: &State,
    facts: &Facts,
    tasks: &[crate::ids::TaskId],
    number: PrNumber,
) -> Result<(), Halt> {
    for task in tasks {
        let Some(id) = state.index.tasks.get(task.as_str()) else {
            continue;
        };
        // A damaged or missing record cannot be judged here; its own PR shows the damage.
        let Some(other) = facts.record(id, number)? else {
            continue;
        };
        // On layout version 2 a task whose record stopped covering it may still name that
        // record (its shard is rewritten only when read): it is no overlap.
        if other.pull_request == number || !other.covered_tasks.contains(task) {
            continue;
        }
        let merged = other.audit_state == crate::engine::record::AuditState::Certified
            && facts.pull(other.pull_request)?.merged;
        crate::engine::transition::check_overlap(task, other, merged).map_err(refusal)?;
    }
    Ok(())
}
