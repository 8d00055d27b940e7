//! Starting the auditor (docs/reference.md#when-the-app-dispatches): after a command or
//! event that can make a PR's record ready, once its evidence holds, record a `dispatch`
//! event and send `POST /repos/{owner}/{repo}/dispatches`.
//!
//! Order, and why: the event is committed first, then the request is sent. The records
//! branch's compare-and-swap is the one arbiter that replicas share, so of two processes
//! that find the same record ready, one records the event and the other, deciding again
//! on the moved branch, finds it and sends nothing. A dispatch GitHub refuses (or a crash
//! after the commit) leaves the event recorded by this delivery and the delivery failed
//! (5xx); its redelivery finds its own event and sends it again, unless the check run,
//! published right after a successful send, carries the event's sent marker (see
//! `sent_marker`; later updates carry it forward). Only that delivery ever sends it, so a
//! request is repeated only when GitHub took it and then its answer, or the check-run
//! update after it, was lost. GitHub offers no idempotency key; `auditloop post
//! --expect-run N` makes such a repeat harmless: the second auditor posts nothing, so the
//! budget is spent once.

use crate::app::commit::commit_loop::{self, Attempt, Unwritten};
use crate::app::context::Ctx;
use crate::app::reads::state::{change_files, State};
use crate::commands::{ParsedCommand, ResolveTarget};
use crate::engine::gate::{evidence_holds, CheckObservation};
use crate::engine::record::{Dispatch, Event, EventKind, Record};
use crate::engine::transition::{self as t, DispatchDecision, EventContext, Refusal};
use crate::engine::views::ViewContext;
use crate::github::rest::{self, Pull};
use crate::github::GitHubError;
use crate::ids::{Artifact, CommitSha, Login};
use crate::records::Change;

/// A dispatch decided on: the state that records it (for the views to show it, when this
/// call recorded it) and the request still to send, which goes last, after the views.
pub(crate) struct Asked {
    pub(crate) recorded: Option<(State, Option<CommitSha>)>,
    to_send: (Box<Record>, Event),
}

impl Asked {
    /// Sends the request; see [`send`].
    pub(crate) async fn send(self, ctx: &Ctx) -> Result<(), GitHubError> {
        send(ctx, &self.to_send.0, &self.to_send.1).await
    }
}

/// Why deciding on the latest records wrote nothing.
enum Skip {
    /// Recorded by this delivery before: send again.
    Resend(Box<(Record, Event)>),
    Nothing,
}

/// What a refresh does with a dispatch the records made due.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum WhenDue {
    /// Leave it: this change cannot have made the record ready.
    #[default]
    Hold,
    /// Commit its `dispatch` event and send it.
    Send,
}

impl WhenDue {
    pub(crate) fn send_if(may_be_due: bool) -> Self {
        if may_be_due {
            Self::Send
        } else {
            Self::Hold
        }
    }
}

/// The commands after which a record can become ready (docs/reference.md#when-the-app-dispatches): `new`, the rebinds
/// `baseline` and `adopt`, and a `resolve` that answers a human decision. A report, a
/// triage command, `override`, `status` or `gate` never starts the auditor.
pub(crate) fn triggered_by(command: &ParsedCommand) -> WhenDue {
    WhenDue::send_if(match command {
        ParsedCommand::New { .. }
        | ParsedCommand::Adopt { .. }
        | ParsedCommand::Baseline { .. } => true,
        ParsedCommand::Resolve { target, .. } => !matches!(target, ResolveTarget::Finding(_)),
        _ => false,
    })
}

fn dispatch_of(event: &Event) -> Option<&Dispatch> {
    match &event.kind {
        EventKind::Dispatch(d) => Some(d),
        _ => None,
    }
}

/// Records the dispatch when the PR's record is ready for a fresh run (its evidence, read
/// from the head's `checks`, holds), or finds the one this delivery recorded before; `None`
/// when there is nothing to send (not configured, not ready, or asked for by another
/// delivery). Decided before the gate is evaluated, so the views evaluate it once, on the
/// records as this leaves them.
pub(crate) async fn decide(
    ctx: &Ctx,
    bot_slug: &str,
    pull: &Pull,
    state: &State,
    checks: &[CheckObservation],
    published: Option<&str>,
) -> Result<Option<Asked>, GitHubError> {
    let Ok(config) = &ctx.config else {
        return Ok(None);
    };
    let Some(event_type) = config.auditor.dispatches().map(str::to_owned) else {
        return Ok(None);
    };
    let Some(Ok(record)) = &state.record else {
        return Ok(None);
    };
    let Ok(actor) = Login::new(format!("{bot_slug}[bot]")) else {
        return Ok(None);
    };
    let ready = Readiness {
        head: Artifact::commit(pull.head_sha.clone()),
        holds: evidence_holds(record, &pull.head_sha, config, checks),
        event_type,
        event: ctx.event(&actor, None),
    };
    // Decided on what was loaded first: most events find nothing to do, at no cost.
    match ready.decide(record, state.commit.as_ref()) {
        Ok(DispatchDecision::Record(_)) => {}
        Ok(DispatchDecision::Resend(ev)) => {
            return Ok(unsent(record, *ev, published).map(|to_send| Asked {
                recorded: None,
                to_send,
            }));
        }
        Ok(DispatchDecision::AlreadyAsked | DispatchDecision::NotReady(_)) | Err(_) => {
            return Ok(None)
        }
    }
    let view = ctx.view();
    let message = ready.message(record);
    // Written only on a branch that still extends the records the decision was made on.
    let outcome = commit_loop::apply::<Skip>(
        ctx,
        pull.number,
        None,
        state.commit.as_ref(),
        &message,
        |latest| ready.on_latest(latest, &view),
    )
    .await?;
    Ok(asked(outcome, published))
}

/// What deciding a dispatch takes besides the record: the PR's head, whether its evidence
/// checks hold, the configured event type and the event to record.
struct Readiness {
    head: Artifact,
    holds: bool,
    event_type: String,
    event: EventContext,
}

impl Readiness {
    /// The commit message of the dispatch of `record`'s next run.
    fn message(&self, record: &Record) -> String {
        format!(
            "Dispatch the auditor for run {} of {} on {}",
            record.runs_used() + 1,
            record.id,
            self.head.short()
        )
    }

    /// The engine's dispatch decision on `record` as of records commit `at`.
    fn decide(&self, record: &Record, at: Option<&CommitSha>) -> Result<DispatchDecision, Refusal> {
        t::decide_dispatch(
            record,
            t::ready(record, &self.head, self.holds),
            &self.event_type,
            at.map(CommitSha::as_str),
            &self.event,
        )
    }

    /// The decision made again in the commit loop, on the latest records: the `dispatch`
    /// event to write, or why nothing is.
    fn on_latest(&self, latest: &State, view: &ViewContext) -> Result<Change, Unwritten<Skip>> {
        let Some(Ok(record)) = &latest.record else {
            return Err(Unwritten::Refused(Skip::Nothing));
        };
        match self.decide(record, latest.commit.as_ref()) {
            Ok(DispatchDecision::Record(applied)) => {
                Ok(change_files(&applied, latest, view, Vec::new()))
            }
            Ok(DispatchDecision::Resend(ev)) => Err(Unwritten::Refused(Skip::Resend(Box::new((
                record.clone(),
                *ev,
            ))))),
            _ => Err(Unwritten::Refused(Skip::Nothing)),
        }
    }
}

/// What the commit loop's outcome leaves to send: the event it just recorded, or the one
/// this delivery recorded before and has not yet sent.
fn asked(outcome: Attempt<Skip>, published: Option<&str>) -> Option<Asked> {
    match outcome {
        Attempt::Committed { state, commit } => {
            let asked = state
                .record
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .and_then(|r| {
                    r.history
                        .last()
                        .filter(|e| dispatch_of(e).is_some())
                        .map(|e| (r.clone(), e.clone()))
                });
            asked.map(|(record, ev)| Asked {
                recorded: Some((*state, commit)),
                to_send: (Box::new(record), ev),
            })
        }
        Attempt::Unwritten(Unwritten::Refused(Skip::Resend(resend))) => {
            let (record, ev) = *resend;
            unsent(&record, ev, published).map(|to_send| Asked {
                recorded: None,
                to_send,
            })
        }
        Attempt::Unwritten(_) => None,
    }
}

/// This delivery's own dispatch, unless the check run it published says it was sent.
fn unsent(record: &Record, ev: Event, published: Option<&str>) -> Option<(Box<Record>, Event)> {
    let marker = dispatch_of(&ev).map(|d| t::sent_marker(record, d))?;
    if published.is_some_and(|summary| summary.contains(&marker)) {
        return None;
    }
    Some((Box::new(record.clone()), ev))
}

/// Sends the `repository_dispatch` of `event`, once (see `rest::create_dispatch`).
async fn send(ctx: &Ctx, record: &Record, event: &Event) -> Result<(), GitHubError> {
    let Some(dispatch) = dispatch_of(event) else {
        return Ok(());
    };
    let payload = t::client_payload(record, dispatch, ctx.records_branch());
    rest::create_dispatch(&ctx.api, &ctx.repo, &dispatch.event_type, &payload).await?;
    tracing::info!(audit = %record.id, run = dispatch.run, candidate = %dispatch.candidate_artifact, "auditor dispatched");
    Ok(())
}
