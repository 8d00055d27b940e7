//! The residual section's open findings (docs/reference.md#the-pr-body): the latest run's findings,
//! blocking first, then by severity, with what maintainers decided on each.

use crate::views_support;

use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::views;
use views_support::*;

fn rows(residual: &str) -> Vec<String> {
    residual
        .lines()
        .filter(|l| l.starts_with("| A-"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_latest_runs_findings_lead_the_residual_section_in_fixing_order() {
    let old = run(
        1,
        'a',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        vec![finding(
            "A-09",
            Some("gone"),
            Severity::Critical,
            true,
            "Fixed since",
            &[],
        )],
        vec![],
    );
    let latest = run(
        2,
        'b',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        vec![
            finding("A-01", None, Severity::Low, false, "Name is vague", &[]),
            finding(
                "A-02",
                Some("perf"),
                Severity::Medium,
                true,
                "Allocates per header",
                &["src/intake.rs:40"],
            ),
            finding(
                "A-03",
                Some("token-leak"),
                Severity::Critical,
                false,
                "Token at debug level",
                &["src/log.rs:3-9"],
            ),
            finding(
                "A-04",
                Some("replay"),
                Severity::High,
                true,
                "Replays are handled twice",
                &[],
            ),
        ],
        vec![],
    );
    let waiver = EventKind::Waiver(Waiver {
        findings: vec![fref("A-01", None, 2)],
        basis: WaiverBasis::TriageThreshold,
        reason: "Cosmetic".into(),
        authority: "human: maint".into(),
    });
    let veto = EventKind::Veto(Veto {
        key: key("replay"),
        effective_from_round: 3,
        reason: "The goal of the change".into(),
        authority: "human: maint".into(),
    });
    let r = record(
        vec![
            event(created(3), at(10, 0), "dev"),
            event(old, at(10, 5), "bot"),
            event(latest, at(11, 0), "bot"),
            event(waiver, at(11, 5), "maint"),
            event(
                dispose(
                    fref("A-02", Some("perf"), 2),
                    DispositionKind::File,
                    "Tracked",
                    Some(77),
                ),
                at(11, 10),
                "maint",
            ),
            event(veto, at(11, 15), "maint"),
        ],
        3,
        AuditState::Open,
    );
    let residual = views::sections(Some(&r), &ctx()).residual;
    assert!(
        residual.contains("**Open findings of round 2** (candidate [`bbbbbbb`]("),
        "{residual}"
    );
    let rows = rows(&residual);
    let ids: Vec<&str> = rows.iter().map(|r| &r[2..6]).collect();
    assert_eq!(
        ids,
        ["A-04", "A-02", "A-03", "A-01"],
        "blocking by severity, then the rest: {residual}"
    );
    assert!(rows[0].contains(" `replay` | high, **blocking** | Replays are handled twice | — | must fix (veto), from round 3 |"), "{}", rows[0]);
    assert!(rows[1].contains("| `src/intake.rs:40` | disposed file [#77](https://github.com/octo/widgets/issues/77): Tracked (human: maint) |"), "{}", rows[1]);
    assert!(rows[2].contains("| `src/log.rs:3-9` | — |"), "{}", rows[2]);
    assert!(
        rows[3].contains("| waived (triage-threshold): Cosmetic (human: maint) |"),
        "{}",
        rows[3]
    );
    assert!(
        !residual.contains("A-09"),
        "only the latest run: {residual}"
    );
}

#[test]
fn a_run_without_findings_lists_none() {
    let clean = run(
        1,
        'a',
        Verdict::Certified,
        Grade::SessionReported,
        vec![],
        vec![],
    );
    let r = record(
        vec![
            event(created(3), at(10, 0), "dev"),
            event(clean, at(10, 5), "bot"),
        ],
        3,
        AuditState::Certified,
    );
    let residual = views::sections(Some(&r), &ctx()).residual;
    assert!(!residual.contains("Open findings"), "{residual}");
    assert!(residual.contains("None."), "{residual}");
}
