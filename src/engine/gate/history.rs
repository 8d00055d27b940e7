//! Small read-only queries over a record's history that the conditions share.

use crate::engine::record::{EventKind, LimitationAcceptance, Record, ReportRun, Veto};
use crate::ids::{FindingKey, Login};

/// The accepted reports, in order.
pub(crate) fn runs(record: &Record) -> impl Iterator<Item = &ReportRun> {
    record.history.iter().filter_map(|e| match &e.kind {
        EventKind::Report(run) => Some(run),
        _ => None,
    })
}

pub(crate) fn last_run(record: &Record) -> Option<&ReportRun> {
    runs(record).last()
}

pub(crate) fn runs_used(record: &Record) -> usize {
    runs(record).count()
}

/// Vetoes only ever accumulate: none is lifted, so each is in force from its round on.
fn vetoes(record: &Record) -> impl Iterator<Item = &Veto> {
    record.history.iter().filter_map(|e| match &e.kind {
        EventKind::Veto(v) => Some(v),
        _ => None,
    })
}

/// The veto in force for `key` at run `run`, if any.
pub(crate) fn veto_in_force<'r>(
    record: &'r Record,
    key: &FindingKey,
    run: u32,
) -> Option<&'r Veto> {
    vetoes(record).find(|v| &v.key == key && v.effective_from_round <= run)
}

/// `human: LOGIN` → LOGIN, when LOGIN is a valid login.
pub(crate) fn human_login(authority: &str) -> Option<Login> {
    authority
        .strip_prefix("human: ")
        .and_then(|login| Login::new(login).ok())
}

/// Whether the history holds an acceptance of limitation `key` by `login` (`/audit resolve
/// L-NN`). The event's actor is the login GitHub authenticated, so it is what counts.
pub(crate) fn accepted_by(record: &Record, key: &FindingKey, login: &Login) -> bool {
    record.history.iter().any(|e| match &e.kind {
        EventKind::LimitationAcceptance(acc) => accepts(acc, key) && e.actor.same_as(login),
        _ => false,
    })
}

fn accepts(acc: &LimitationAcceptance, key: &FindingKey) -> bool {
    acc.limitations.iter().any(|l| &l.key == key)
}
