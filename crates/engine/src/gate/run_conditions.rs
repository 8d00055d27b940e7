//! Conditions 6, 7 and 9 (docs/reference.md#gate-conditions): what the last run reports, and its grade.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::condition::{fail, from_problems, pass};
use super::result::Condition;
use crate::ids::Login;
use crate::md;
use crate::md::Md;
use crate::receipt::{check_stored_report, regrade, Downgrade, TrustStore};
use crate::record::{Grade, LimitationSummary, Record};
use crate::repo_config::{Assurance, RepoConfig};

static DECISION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^D-[1-9][0-9]*$").expect("valid decision regex"));

/// Condition 6: the last run reports no blocking finding, and no finding whose key is
/// under a veto in force. Waivers and dispositions do not change this by themselves
/// (docs/reference.md#commands).
pub(crate) fn no_blocking_finding(record: &Record) -> Condition {
    let Some(run) = record.latest_run() else {
        return fail(6, "no report yet, so no run to check for blocking findings");
    };
    let mut problems = Vec::new();
    let blocking: Vec<&str> = run
        .findings
        .iter()
        .filter(|f| f.blocking)
        .map(|f| f.id.as_str())
        .collect();
    if !blocking.is_empty() {
        problems.push(md!(
            "run {} reports {} blocking finding{} ({}); fix {}, then post a new report with `/audit report`",
            run.run,
            blocking.len(),
            if blocking.len() == 1 { "" } else { "s" },
            Md::text(&blocking.join(", ")),
            if blocking.len() == 1 { "it" } else { "them" }
        ));
    }
    for finding in &run.findings {
        let Some(key) = &finding.key else { continue };
        if let Some(veto) = record.veto_on(key, run.run) {
            problems.push(md!(
                "{} ({}) is under a veto since round {}; fix it, then post a new report",
                finding.id,
                Md::code(key.as_str()),
                veto.effective_from_round
            ));
        }
    }
    from_problems(
        6,
        &problems,
        md!(
            "run {} reports no blocking finding and none under a veto",
            run.run
        ),
    )
}

/// Condition 7: every limitation of the last run has a typed authority that holds: `D-<n>`, or
/// `human: LOGIN` where LOGIN accepted that limitation's key in the history.
/// `decisions`: the numbers of the `D-<n>` files under `decisions_path` on the default
/// branch now, when they were read (they are, for a certification that cites one).
pub(crate) fn limitations_have_authority(
    record: &Record,
    decisions: Option<&BTreeSet<u32>>,
) -> Condition {
    let Some(run) = record.latest_run() else {
        return fail(7, "no report yet, so no limitations to check");
    };
    if run.limitations.is_empty() {
        return pass(7, md!("run {} records no limitation", run.run));
    }
    let problems: Vec<Md> = run
        .limitations
        .iter()
        .filter_map(|l| authority_problem(record, l, decisions))
        .collect();
    let ids: Vec<&str> = run.limitations.iter().map(|l| l.id.as_str()).collect();
    from_problems(
        7,
        &problems,
        md!(
            "every limitation of run {} ({}) has an authority",
            run.run,
            Md::text(&ids.join(", "))
        ),
    )
}

fn authority_problem(
    record: &Record,
    limitation: &LimitationSummary,
    decisions: Option<&BTreeSet<u32>>,
) -> Option<Md> {
    let (id, key) = (&limitation.id, &limitation.key);
    let Some(authority) = limitation.authority.as_deref() else {
        return Some(md!(
            "{} ({}) has no authority; a maintainer accepts it with {} and a later report cites it",
            id,
            Md::code(key.as_str()),
            Md::code(&format!("/audit resolve {id} --note \"…\""))
        ));
    };
    if DECISION.is_match(authority) {
        let n: Option<u32> = authority[2..].parse().ok();
        return match (decisions, n) {
            (Some(found), Some(n)) if !found.contains(&n) => Some(md!(
                "{} cites {}, but no file {} is under `decisions_path` on the default branch now; restore it, or a later report cites an authority that holds",
                id,
                Md::code(authority),
                Md::code(&format!("D-{n}*.md"))
            )),
            _ => None,
        };
    }
    match human_login(authority) {
        Some(login) if record.accepted_by(key, &login) => None,
        Some(login) => Some(md!(
            "{} cites {}, but no acceptance of {} by {} is recorded; {} runs {} on a run that lists it",
            id,
            Md::code(&format!("human: {login}")),
            Md::code(key.as_str()),
            login,
            login,
            Md::code(&format!("/audit resolve {id} --note \"…\""))
        )),
        None => Some(md!(
            "{}'s authority {} is neither `human: LOGIN` nor `D-<n>`",
            id,
            Md::code(authority)
        )),
    }
}

/// `human: LOGIN` → LOGIN, when LOGIN is a valid login.
fn human_login(authority: &str) -> Option<Login> {
    authority
        .strip_prefix("human: ")
        .and_then(|login| Login::new(login).ok())
}

/// Whether the gate of `record` must read the decision records: its latest run cites a
/// `D-<n>` authority (condition 7 holds only while the file is there).
#[must_use]
pub fn cites_decision(record: &Record) -> bool {
    record.latest_run().is_some_and(|run| {
        run.limitations
            .iter()
            .any(|l| l.authority.as_deref().is_some_and(|a| DECISION.is_match(a)))
    })
}

/// Condition 9: the certification's grade meets the effective assurance.
pub(crate) fn grade_meets_assurance(
    record: &Record,
    config: &RepoConfig,
    operator_min: Assurance,
    (trust, stored): (Option<&TrustStore>, Option<&str>),
) -> Condition {
    let effective = config.effective_assurance(operator_min);
    let policy = if operator_min > config.assurance {
        md!("{} (operator minimum)", Md::code(effective.as_str()))
    } else {
        Md::code(effective.as_str())
    };
    let Some(recorded) = record.certification_grade else {
        return fail(9, md!("no certified grade yet; assurance is {}", policy));
    };
    let (grade, downgraded) = effective_grade(record, trust, stored);
    // What the certification rests on must be what its run recorded, whatever the grade:
    // a report changed outside the app certifies nothing.
    let changed = match &downgraded {
        Some(d @ Downgrade::StoredReport { .. }) => Some(d.to_string()),
        _ => record
            .latest_run()
            .and_then(|run| check_stored_report(run, stored).err())
            .map(|c| c.to_string()),
    };
    if let Some(changed) = changed {
        return fail(
            9,
            md!(
                "certified at grade {}, but {}: the records were changed outside auditloop; post the report again",
                Md::code(recorded.as_str()),
                Md::text(&changed)
            ),
        );
    }
    let why = downgraded.map_or_else(Md::default, |d| {
        md!(
            " (recorded {}, but it counts as `session_reported` now: {})",
            Md::code(recorded.as_str()),
            Md::text(&d.to_string())
        )
    });
    if effective == Assurance::Hardened && grade != Grade::Authenticated {
        return fail(
            9,
            md!(
                "certified at grade {}{}, but assurance is {}, which needs `authenticated`; post a report signed with `auditloop sign`",
                Md::code(grade.as_str()),
                why,
                policy
            ),
        );
    }
    pass(
        9,
        md!(
            "grade {}{} meets {} assurance",
            Md::code(grade.as_str()),
            why,
            policy
        ),
    )
}

/// The certification's grade as it counts now: an `authenticated` certification whose
/// kept receipt no longer verifies against `trust` counts as `session_reported`, with why.
/// Without a trust store to verify against (a CLI run without one) the recorded grade stands.
#[must_use]
pub fn effective_grade(
    record: &Record,
    trust: Option<&TrustStore>,
    stored: Option<&str>,
) -> (Grade, Option<Downgrade>) {
    let recorded = record.certification_grade.unwrap_or(Grade::SessionReported);
    let (Some(trust), Some(run)) = (trust, record.latest_run()) else {
        return (recorded, None);
    };
    if recorded != Grade::Authenticated {
        return (recorded, None);
    }
    match regrade(record, run, trust, stored) {
        Ok(grade) => (grade, None),
        Err(why) => (Grade::SessionReported, Some(why)),
    }
}
