//! Maintainer triage of findings (docs/reference.md#commands): waivers, vetoes and
//! dispositions. They shape the next run; only vetoes change the gate.

use super::{append, finding_ref, latest_finding, Applied, EventContext, Refusal};
use crate::ids::{FindingId, FindingKey, IssueNumber};
use crate::record::{
    Disposition, DispositionKind, EventKind, FindingRef, Record, Veto, Waiver, WaiverBasis,
};

/// `/audit waive A-NN[,A-NN] --basis B --reason T`: findings of the latest run.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn waive(
    record: &Record,
    ids: &[FindingId],
    basis: WaiverBasis,
    reason: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    if ids.is_empty() {
        return Err(Refusal::NothingNamed);
    }
    // A waiver shapes the next run, so a veto in force for that run forbids it.
    let next_run = record.runs_used().saturating_add(1);
    let mut findings: Vec<FindingRef> = Vec::new();
    for id in ids {
        let (run, f) = latest_finding(record, id)?;
        if basis == WaiverBasis::CrossRemit && !f.cross_remit {
            return Err(Refusal::NotCrossRemit { id: id.clone() });
        }
        if let Some(veto) = f.key.as_ref().and_then(|k| record.veto_on(k, next_run)) {
            return Err(Refusal::WaiveVetoed {
                id: id.clone(),
                key: veto.key.clone(),
                from_round: veto.effective_from_round,
            });
        }
        let waived = record
            .waivers()
            .iter()
            .any(|w| w.findings.iter().any(|r| r.run == run && &r.id == id));
        if waived {
            return Err(Refusal::AlreadyWaived {
                id: id.clone(),
                run,
            });
        }
        if !findings.iter().any(|r| &r.id == id) {
            findings.push(finding_ref(run, f));
        }
    }
    let kind = EventKind::Waiver(Waiver {
        findings,
        basis,
        reason: reason.to_owned(),
        authority: ctx.authority(),
    });
    append(record, kind, ctx)
}

/// `/audit veto KEY [--from-round N] --reason T`: from run N (default the next) on, the
/// finding with that key must be fixed.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn veto(
    record: &Record,
    key: &FindingKey,
    from_round: Option<u32>,
    reason: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    let effective_from_round = match from_round {
        Some(0) => return Err(Refusal::VetoRoundZero),
        Some(n) => n,
        None => record.runs_used().saturating_add(1),
    };
    let kind = EventKind::Veto(Veto {
        key: key.clone(),
        effective_from_round,
        reason: reason.to_owned(),
        authority: ctx.authority(),
    });
    append(record, kind, ctx)
}

/// `/audit dispose A-NN fix|file|reject|follow-up --note T`: one disposition per finding
/// of the latest run. `file` records the issue the caller opened.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn dispose(
    record: &Record,
    id: &FindingId,
    disposition: DispositionKind,
    note: &str,
    issue: Option<IssueNumber>,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    check_dispose(record, id, disposition)?;
    let (run, f) = latest_finding(record, id)?;
    let issue = match disposition {
        DispositionKind::File => {
            Some(issue.ok_or_else(|| Refusal::IssueRequired { id: id.clone() })?)
        }
        _ => None,
    };
    let kind = EventKind::Disposition(Disposition {
        finding: finding_ref(run, f),
        disposition,
        note: note.to_owned(),
        authority: ctx.authority(),
        issue,
        vetoed_from: None,
    });
    append(record, kind, ctx)
}

/// The rules of `dispose` that do not need the issue, so a caller can check them before
/// it opens one (an issue is opened once, and only for a disposition that will be kept).
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn check_dispose(
    record: &Record,
    id: &FindingId,
    disposition: DispositionKind,
) -> Result<(), Refusal> {
    let (run, f) = latest_finding(record, id)?;
    if let Some(existing) = record.latest_dispositions().get(id) {
        // A disposition a veto replaced with `fix` may be confirmed as `fix`.
        let confirms = existing.vetoed_from.is_some() && disposition == DispositionKind::Fix;
        if !confirms {
            return Err(Refusal::AlreadyDisposed {
                id: id.clone(),
                run,
                disposition: existing.disposition,
            });
        }
    }
    // A vetoed key is disposed `fix` (docs/reference.md#commands): filing, rejecting or
    // following it up would let it out of the next round.
    let next_run = record.runs_used().saturating_add(1);
    if let Some(veto) = f.key.as_ref().and_then(|k| record.veto_on(k, next_run)) {
        if disposition != DispositionKind::Fix {
            return Err(Refusal::DisposeVetoed {
                id: id.clone(),
                key: veto.key.clone(),
                from_round: veto.effective_from_round,
                disposition: disposition.as_str(),
            });
        }
    }
    if disposition == DispositionKind::FollowUp && f.blocking {
        return Err(Refusal::FollowUpBlocking { id: id.clone() });
    }
    Ok(())
}
