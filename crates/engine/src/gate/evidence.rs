//! Condition 8 (docs/reference.md#gate-conditions): final-state evidence for the head commit H — required checks
//! concluded `success` on H (or else evidence text given for H), plus the archetype's
//! completion gates each proven by a successful check on H.

use super::condition::condition;
use super::input::CheckObservation;
use super::result::{Condition, Outcome};
use crate::ids::{Artifact, CommitSha};
use crate::md;
use crate::md::Md;
use crate::record::Record;
use crate::repo_config::RepoConfig;

/// One part's verdict; the condition takes the worst (fail over pending over pass).
struct Part {
    outcome: Outcome,
    reason: Md,
}

fn part(outcome: Outcome, reason: Md) -> Part {
    Part { outcome, reason }
}

/// The latest observation of `name`: our own check never counts as evidence.
fn find<'c>(checks: &'c [CheckObservation], name: &str, own: &str) -> Option<&'c CheckObservation> {
    checks
        .iter()
        .rev()
        .find(|c| c.name == name && c.name != own)
}

/// Whether condition 8 holds for `record` at `head`: what the app asks before it starts
/// the auditor, without evaluating the whole gate.
#[must_use]
pub fn evidence_holds(
    record: &Record,
    head: &CommitSha,
    config: &RepoConfig,
    checks: &[CheckObservation],
) -> bool {
    evidence_for_head(record, head, config, checks).outcome == super::Outcome::Pass
}

/// Whether a gate on `record` can conclude anything but a failure (success, neutral,
/// waiting on evidence, a human's action): only a certified record, one awaiting a human,
/// or a repository with the gate off. Decided before the gate, it tells whether the other
/// PRs on the head, which can only make a gate worse, are worth reading.
#[must_use]
pub fn may_pass(record: Option<&Record>, config: &RepoConfig) -> bool {
    !config.enabled()
        || record.is_some_and(|r| {
            matches!(
                r.audit_state,
                crate::record::AuditState::Certified | crate::record::AuditState::AwaitingHuman
            )
        })
}

pub(crate) fn evidence_for_head(
    record: &Record,
    head: &CommitSha,
    config: &RepoConfig,
    checks: &[CheckObservation],
) -> Condition {
    let head = Artifact::commit(head.clone());
    let mut parts = if config.evidence.required_checks.is_empty() {
        vec![evidence_text(record, &head)]
    } else {
        config
            .evidence
            .required_checks
            .iter()
            .map(|name| required_check(checks, name, &config.check_name, &head))
            .collect()
    };
    if let Some(archetype) = config.evidence.archetype {
        for gate in archetype.required_gates() {
            let names = config
                .evidence
                .gates
                .get(gate)
                .map(Vec::as_slice)
                .unwrap_or_default();
            parts.push(completion_gate(
                checks,
                gate.as_str(),
                names,
                config,
                &head,
                archetype.as_str(),
            ));
        }
    }
    let outcome = if parts.iter().any(|p| p.outcome == Outcome::Fail) {
        Outcome::Fail
    } else if parts.iter().any(|p| p.outcome == Outcome::Pending) {
        Outcome::Pending
    } else {
        Outcome::Pass
    };
    let reasons: Vec<Md> = parts.into_iter().map(|p| p.reason).collect();
    condition(8, outcome, Md::join(&reasons, "; "))
}

fn evidence_text(record: &Record, head: &Artifact) -> Part {
    match &record.evidence {
        Some(e) if &e.given_for == head => {
            part(Outcome::Pass, md!("evidence text was given for {}", head))
        }
        Some(e) => part(
            Outcome::Fail,
            md!(
                "the evidence text was given for {}, not the head {}; give it with `/audit baseline --evidence \"…\"` or set `evidence.required_checks`",
                e.given_for,
                head
            ),
        ),
        None => part(
            Outcome::Fail,
            md!(
                "no evidence for {}; give it with `/audit baseline --evidence \"…\"` or set `evidence.required_checks`",
                head
            ),
        ),
    }
}

fn required_check(checks: &[CheckObservation], name: &str, own: &str, head: &Artifact) -> Part {
    match find(checks, name, own) {
        Some(c) if c.succeeded() => part(
            Outcome::Pass,
            md!("required check {} succeeded on {}", Md::code(name), head),
        ),
        Some(c) if c.running() => part(
            Outcome::Pending,
            md!(
                "required check {} is still running on {}",
                Md::code(name),
                head
            ),
        ),
        Some(c) => part(
            Outcome::Fail,
            md!(
                "required check {} concluded {} on {}; fix it and run it again",
                Md::code(name),
                Md::code(c.conclusion.as_deref().unwrap_or("without a conclusion")),
                head
            ),
        ),
        None => part(
            Outcome::Fail,
            md!(
                "required check {} has no run on {}; run it on the head",
                Md::code(name),
                head
            ),
        ),
    }
}

fn completion_gate(
    checks: &[CheckObservation],
    gate: &str,
    names: &[String],
    config: &RepoConfig,
    head: &Artifact,
    archetype: &str,
) -> Part {
    if names.is_empty() {
        return part(
            Outcome::Fail,
            md!(
                "completion gate {} of archetype {} maps to no check; add {} in `.github/auditloop.yml`",
                Md::code(gate),
                Md::code(archetype),
                Md::code(&format!("evidence.gates.{gate}"))
            ),
        );
    }
    let found: Vec<&CheckObservation> = names
        .iter()
        .filter_map(|n| find(checks, n, &config.check_name))
        .collect();
    let list = Md::join(&names.iter().map(|n| Md::code(n)).collect::<Vec<_>>(), ", ");
    if let Some(ok) = found.iter().find(|c| c.succeeded()) {
        return part(
            Outcome::Pass,
            md!(
                "completion gate {} proven by {} on {}",
                Md::code(gate),
                Md::code(&ok.name),
                head
            ),
        );
    }
    if found.iter().any(|c| c.running()) {
        return part(
            Outcome::Pending,
            md!(
                "completion gate {} waits for {} on {}",
                Md::code(gate),
                list,
                head
            ),
        );
    }
    part(
        Outcome::Fail,
        md!(
            "completion gate {}: none of {} succeeded on {}",
            Md::code(gate),
            list,
            head
        ),
    )
}

/// What a merge group's commit shows of the required checks (docs/reference.md#the-check-run): the merge-group
/// commit is the integrated candidate, so each required check must succeed on it too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integrated {
    /// No required checks, or every one succeeded on the group commit.
    Passed,
    /// These have not concluded on the group commit yet (no run counts as not yet).
    Waiting(Vec<String>),
    /// The first required check that concluded otherwise, with its conclusion.
    Failed { check: String, conclusion: String },
}

/// The required checks of `config` as observed on a merge group's commit. A check with no
/// run yet waits: CI queues its runs on the group commit after GitHub asks for ours.
#[must_use]
pub fn integrated_checks(config: &RepoConfig, checks: &[CheckObservation]) -> Integrated {
    let mut waiting = Vec::new();
    for name in &config.evidence.required_checks {
        match find(checks, name, &config.check_name) {
            Some(c) if c.succeeded() => {}
            Some(c) if !c.running() => {
                return Integrated::Failed {
                    check: name.clone(),
                    conclusion: c
                        .conclusion
                        .clone()
                        .unwrap_or_else(|| "without a conclusion".to_owned()),
                }
            }
            _ => waiting.push(name.clone()),
        }
    }
    if waiting.is_empty() {
        Integrated::Passed
    } else {
        Integrated::Waiting(waiting)
    }
}

/// The required checks of `config` that have not concluded `success` on the candidate the
/// runs in `checks` were read on, each with where it stands: what a report must wait for,
/// since no audit starts before the final evidence exists for the exact candidate
/// (docs/reference.md#report-rules). Empty without required checks.
#[must_use]
pub fn evidence_awaited(config: &RepoConfig, checks: &[CheckObservation]) -> Vec<(String, String)> {
    config
        .evidence
        .required_checks
        .iter()
        .filter_map(|name| {
            let stands = match find(checks, name, &config.check_name) {
                Some(c) if c.succeeded() => return None,
                Some(c) if c.running() => "still running".to_owned(),
                Some(c) => c
                    .conclusion
                    .clone()
                    .unwrap_or_else(|| "without a conclusion".to_owned()),
                None => "no run".to_owned(),
            };
            Some((name.clone(), stands))
        })
        .collect()
}
