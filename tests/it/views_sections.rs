//! The PR-body sections rendered from test records.

use crate::views_support;

use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::views;
use views_support::*;

#[test]
fn sections_of_a_rich_record() {
    let s = views::sections(Some(&rich_record()), &ctx());
    insta::assert_snapshot!("rounds_rich", s.rounds);
    insta::assert_snapshot!("waivers_rich", s.waivers);
    insta::assert_snapshot!("residual_rich", s.residual);
}

#[test]
fn sections_without_a_record() {
    let s = views::sections(None, &ctx());
    insta::assert_snapshot!("rounds_none", s.rounds);
    assert!(s.rounds.contains("/audit new --goal"));
    assert!(s.waivers.starts_with("<!-- auditloop:waivers:start -->"));
    assert!(s.residual.ends_with("<!-- auditloop:residual:end -->"));
}

#[test]
fn empty_sections_say_so() {
    let r = record(
        vec![event(created(3), at(10, 0), "dev")],
        3,
        AuditState::Open,
    );
    let s = views::sections(Some(&r), &ctx());
    assert!(s.waivers.contains("No waivers."), "{}", s.waivers);
    assert!(s.residual.contains("None."), "{}", s.residual);
    assert!(s.rounds.contains("budget 0 of 3 runs used"), "{}", s.rounds);
}

#[test]
fn rounds_rows_links_and_budget() {
    let s = views::sections(Some(&rich_record()), &ctx());
    let c = "c".repeat(40);
    assert!(s.rounds.contains(&format!(
        "[`ccccccc`](https://github.com/octo/widgets/commit/{c})"
    )));
    assert!(s.rounds.contains("budget 3 of 4 runs used"));
    assert!(s.rounds.contains(
        "(https://github.com/octo/widgets/blob/auditloop-records/records/000/AUD-7.json)"
    ));
    assert!(s
        .rounds
        .contains("1 critical, 1 high, 1 medium, 1 low (2 blocking)"));
    assert!(s
        .rounds
        .contains("A-01 fix, A-02 reject, A-03 waived, A-04 follow-up"));
    assert!(s.rounds.contains("session-reported") && s.rounds.contains("authenticated"));
    assert!(s.rounds.contains("ci-run-88"), "invocation failure listed");
}

#[test]
fn ghes_base_and_hostile_branch_name_stay_inside_the_link() {
    let mut c = ctx();
    c.html_base = "https://ghe.example.com/".to_owned();
    c.records_branch = "rec) [x](https://evil".to_owned();
    let s = views::sections(Some(&rich_record()), &c);
    assert!(s.rounds.contains(
        "(https://ghe.example.com/octo/widgets/blob/rec%29%20%5Bx%5D%28https%3A//evil/records/000/AUD-7.json)"
    ), "{}", s.rounds);
}

fn reject_record(extra: Vec<Event>) -> Record {
    let mut history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            run(
                1,
                'a',
                Verdict::NeedsRemediation,
                Grade::SessionReported,
                vec![finding(
                    "A-01",
                    Some("token-leak"),
                    Severity::High,
                    true,
                    "Token logged",
                    &[],
                )],
                vec![],
            ),
            at(11, 0),
            "bot",
        ),
        event(
            dispose(
                fref("A-01", Some("token-leak"), 1),
                DispositionKind::Reject,
                "redacted",
                None,
            ),
            at(11, 5),
            "maint",
        ),
    ];
    history.extend(extra);
    record(history, 3, AuditState::Open)
}

#[test]
fn rejected_finding_stays_residual_until_cleared() {
    let contested = |r: &Record| {
        views::sections(Some(r), &ctx())
            .residual
            .contains("Rejected findings awaiting")
    };
    assert!(contested(&reject_record(vec![])));

    let still_reported = run(
        2,
        'b',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        vec![finding(
            "A-05",
            Some("token-leak"),
            Severity::High,
            true,
            "Still logged",
            &[],
        )],
        vec![],
    );
    assert!(contested(&reject_record(vec![event(
        still_reported,
        at(12, 0),
        "bot"
    )])));

    let gone = run(
        2,
        'b',
        Verdict::Certified,
        Grade::SessionReported,
        vec![],
        vec![],
    );
    assert!(!contested(&reject_record(vec![event(
        gone,
        at(12, 0),
        "bot"
    )])));

    let resolved = EventKind::Resolution(Resolution {
        note: "agreed".to_owned(),
        authority: "human: maint".to_owned(),
        finding: Some(fref("A-01", Some("token-leak"), 1)),
    });
    assert!(!contested(&reject_record(vec![event(
        resolved,
        at(12, 0),
        "maint"
    )])));

    let other = EventKind::Resolution(Resolution {
        note: "other".to_owned(),
        authority: "human: maint".to_owned(),
        finding: Some(fref("A-02", Some("other-key"), 1)),
    });
    assert!(contested(&reject_record(vec![event(
        other,
        at(12, 0),
        "maint"
    )])));
}

#[test]
fn later_disposition_of_the_same_finding_replaces_the_earlier() {
    let redisposed = dispose(
        fref("A-01", Some("token-leak"), 1),
        DispositionKind::Fix,
        "will fix",
        None,
    );
    let r = reject_record(vec![event(redisposed, at(11, 30), "maint")]);
    let s = views::sections(Some(&r), &ctx());
    assert!(
        !s.residual.contains("Rejected findings awaiting"),
        "{}",
        s.residual
    );
    assert!(s.rounds.contains("A-01 fix") && !s.rounds.contains("A-01 reject"));
}

#[test]
fn limitation_without_authority_shows_the_human_acceptance() {
    let history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            run(
                1,
                'a',
                Verdict::NeedsHumanDecision,
                Grade::SessionReported,
                vec![],
                vec![
                    limitation("L-01", "no-ghes", "No GHES test", None),
                    limitation("L-02", "no-arm", "No ARM build", None),
                ],
            ),
            at(11, 0),
            "bot",
        ),
        event(
            EventKind::LimitationAcceptance(LimitationAcceptance {
                run: 1,
                limitations: vec![AcceptedLimitation {
                    id: auditloop::engine::ids::LimitationId::new("L-01").unwrap(),
                    key: key("no-ghes"),
                }],
                note: "ok".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(11, 5),
            "maint",
        ),
    ];
    let s = views::sections(Some(&record(history, 3, AuditState::Open)), &ctx());
    assert!(
        s.residual
            .contains("L-01 no-ghes (round 1): No GHES test (authority human: maint)"),
        "{}",
        s.residual
    );
    let pending = s
        .residual
        .split("**Limitations awaiting acceptance**")
        .nth(1)
        .unwrap_or_default();
    assert!(
        pending.contains("L-02 no-arm (round 1): No ARM build"),
        "{}",
        s.residual
    );
    assert!(!pending.contains("L-01"), "{}", s.residual);
}

#[test]
fn hostile_text_is_escaped_in_every_section() {
    let s = views::sections(Some(&hostile_record()), &ctx());
    for section in [&s.rounds, &s.waivers, &s.residual] {
        assert_contained(section, 2);
        assert!(section.contains("&lt;script&gt;"), "{section}");
    }
    // The stored text is shown, not dropped.
    assert!(s.residual.contains("Vetoes in force") && s.residual.contains("Follow-ups"));
}

#[test]
fn a_later_veto_of_the_same_key_replaces_the_earlier() {
    let veto = |round: u32, reason: &str| {
        EventKind::Veto(Veto {
            key: key("token-leak"),
            effective_from_round: round,
            reason: reason.to_owned(),
            authority: "human: maint".to_owned(),
        })
    };
    let r = reject_record(vec![
        event(veto(2, "first"), at(12, 0), "maint"),
        event(veto(3, "second"), at(12, 5), "maint"),
    ]);
    let residual = views::sections(Some(&r), &ctx()).residual;
    assert!(
        residual.contains("token-leak from round 3: second"),
        "{residual}"
    );
    assert!(!residual.contains("first"), "{residual}");
}

#[test]
fn handoff_runs_are_marked() {
    let mut kind = run(
        1,
        'a',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        vec![],
        vec![],
    );
    if let EventKind::Report(r) = &mut kind {
        r.handoff = auditloop::engine::record::HandoffMark::Flag(true);
    }
    let r = record(vec![event(kind, at(11, 0), "bot")], 3, AuditState::Open);
    let rounds = views::sections(Some(&r), &ctx()).rounds;
    assert!(
        rounds.contains("#verdicts) (handoff) | 0 / 0 |"),
        "{rounds}"
    );
}
