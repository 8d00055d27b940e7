//! Human answers (docs/reference.md#resolution-and-override): resolving a pending decision,
//! accepting limitations, resolving a contested finding, and overriding the budget.
//! None of them certifies.

use super::{append, finding_ref, latest_finding, Applied, EventContext, Refusal};
use crate::ids::{FindingId, LimitationId};
use crate::record::{
    AcceptedLimitation, AuditState, DispositionKind, EventKind, LimitationAcceptance, Override,
    Record, Resolution,
};

/// `/audit resolve --note T`: answers `needs_human_decision`.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn resolve_decision(
    record: &Record,
    note: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    if record.audit_state != AuditState::AwaitingHuman {
        return Err(Refusal::NotAwaitingHuman {
            id: record.id.clone(),
            state: record.audit_state,
        });
    }
    let kind = EventKind::Resolution(Resolution {
        note: note.to_owned(),
        authority: ctx.authority(),
        finding: None,
    });
    append(record, kind, ctx)
}

/// `/audit resolve L-NN[,L-NN] --note T`: accepts limitations of the latest run by key;
/// when the record awaits a human, the same event answers the decision.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn accept_limitations(
    record: &Record,
    ids: &[LimitationId],
    note: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    if ids.is_empty() {
        return Err(Refusal::NothingNamed);
    }
    let run = record.latest_run().ok_or_else(|| Refusal::NoRun {
        id: record.id.clone(),
    })?;
    let mut accepted: Vec<AcceptedLimitation> = Vec::new();
    for id in ids {
        let l = run
            .limitations
            .iter()
            .find(|l| &l.id == id)
            .ok_or_else(|| Refusal::UnknownLimitation {
                id: id.clone(),
                run: run.run,
            })?;
        if !accepted.iter().any(|a| &a.id == id) {
            accepted.push(AcceptedLimitation {
                id: l.id.clone(),
                key: l.key.clone(),
            });
        }
    }
    let kind = EventKind::LimitationAcceptance(LimitationAcceptance {
        run: run.run,
        limitations: accepted,
        note: note.to_owned(),
        authority: ctx.authority(),
    });
    append(record, kind, ctx)
}

/// `/audit resolve A-NN --note T`: a human settles a rejected (contested) finding of the
/// latest run (docs/reference.md#resolution-and-override).
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn resolve_finding(
    record: &Record,
    id: &FindingId,
    note: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    let (run, finding) = latest_finding(record, id)?;
    let rejected = record.dispositions().any(|d| {
        d.disposition == DispositionKind::Reject
            && ((d.finding.run == run && &d.finding.id == id)
                || (finding.key.is_some() && d.finding.key == finding.key))
    });
    if !rejected {
        return Err(Refusal::FindingNotRejected {
            id: id.clone(),
            run,
        });
    }
    if !record.is_contested(id) {
        return Err(Refusal::FindingAlreadyResolved {
            id: id.clone(),
            run,
        });
    }
    let kind = EventKind::Resolution(Resolution {
        note: note.to_owned(),
        authority: ctx.authority(),
        finding: Some(finding_ref(run, finding)),
    });
    append(record, kind, ctx)
}

/// `/audit override --budget N --note T`: N must exceed the runs used; a blocked record
/// opens again.
///
/// # Errors
///
/// The [`Refusal`] naming the rule the command breaks, when it is refused.
pub fn override_budget(
    record: &Record,
    budget: u32,
    note: &str,
    ctx: &EventContext,
) -> Result<Applied, Refusal> {
    let used = record.runs_used();
    if budget <= used {
        return Err(Refusal::OverrideTooLow { budget, used });
    }
    let kind = EventKind::Override(Override {
        budget,
        previous_budget: record.audit_budget,
        note: note.to_owned(),
        authority: ctx.authority(),
    });
    append(record, kind, ctx)
}
