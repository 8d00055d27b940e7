//! Condition 8 (CONTRACT §8): final-state evidence for the head commit H — required checks
//! concluded `success` on H (or else evidence text given for H), plus the archetype's
//! completion gates each proven by a successful check on H.

use super::condition::condition;
use super::input::CheckObservation;
use super::model::{Condition, Outcome};
use crate::engine::record::Record;
use crate::engine::repo_config::RepoConfig;
use crate::ids::{Artifact, CommitSha};

/// One part's verdict; the condition takes the worst (fail over pending over pass).
struct Part {
    outcome: Outcome,
    reason: String,
}

fn part(outcome: Outcome, reason: String) -> Part {
    Part { outcome, reason }
}

/// The latest observation of `name`: our own check never counts as evidence.
fn find<'c>(checks: &'c [CheckObservation], name: &str, own: &str) -> Option<&'c CheckObservation> {
    checks
        .iter()
        .rev()
        .find(|c| c.name == name && c.name != own)
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
    let reasons: Vec<String> = parts.into_iter().map(|p| p.reason).collect();
    condition(8, outcome, reasons.join("; "))
}

fn evidence_text(record: &Record, head: &Artifact) -> Part {
    match &record.evidence {
        Some(e) if &e.given_for == head => {
            part(Outcome::Pass, format!("evidence text was given for {head}"))
        }
        Some(e) => part(
            Outcome::Fail,
            format!(
                "the evidence text was given for commit:{}, not the head commit:{}; give it with \
                 /audit baseline --evidence \"…\" or set evidence.required_checks",
                e.given_for.short(),
                head.short()
            ),
        ),
        None => part(
            Outcome::Fail,
            format!(
                "no evidence for {head}; give it with /audit baseline --evidence \"…\" or set \
                 evidence.required_checks"
            ),
        ),
    }
}

fn required_check(checks: &[CheckObservation], name: &str, own: &str, head: &Artifact) -> Part {
    match find(checks, name, own) {
        Some(c) if c.succeeded() => part(
            Outcome::Pass,
            format!("required check `{name}` succeeded on {head}"),
        ),
        Some(c) if c.running() => part(
            Outcome::Pending,
            format!("required check `{name}` is still running on {head}"),
        ),
        Some(c) => part(
            Outcome::Fail,
            format!(
                "required check `{name}` concluded {} on {head}",
                c.conclusion.as_deref().unwrap_or("without a conclusion")
            ),
        ),
        None => part(
            Outcome::Fail,
            format!("required check `{name}` has no run on {head}"),
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
            format!(
                "completion gate `{gate}` of archetype {archetype} maps to no check; add \
                 evidence.gates.{gate} in .github/auditloop.yml"
            ),
        );
    }
    let found: Vec<&CheckObservation> = names
        .iter()
        .filter_map(|n| find(checks, n, &config.check_name))
        .collect();
    let list = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(ok) = found.iter().find(|c| c.succeeded()) {
        return part(
            Outcome::Pass,
            format!("completion gate `{gate}` proven by `{}` on {head}", ok.name),
        );
    }
    if found.iter().any(|c| c.running()) {
        return part(
            Outcome::Pending,
            format!("completion gate `{gate}` waits for {list} on {head}"),
        );
    }
    part(
        Outcome::Fail,
        format!("completion gate `{gate}`: none of {list} succeeded on {head}"),
    )
}
