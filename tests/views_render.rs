//! The PR-body sections, check-run output and replies, rendered from test records.

mod views_support;

use auditloop::engine::gate::{Conclusion, Outcome};
use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::views::{self, check_run, reply, BodyStatus};
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
    assert!(
        s.rounds.contains("Budget: 0 of 3 runs used"),
        "{}",
        s.rounds
    );
}

#[test]
fn rounds_rows_links_and_budget() {
    let s = views::sections(Some(&rich_record()), &ctx());
    let c = "c".repeat(40);
    assert!(s.rounds.contains(&format!(
        "[ccccccc](https://github.com/octo/widgets/commit/{c})"
    )));
    assert!(s.rounds.contains("Budget: 3 of 4 runs used"));
    assert!(s
        .rounds
        .contains("(https://github.com/octo/widgets/blob/auditloop-records/records/AUD-7.json)"));
    assert!(s
        .rounds
        .contains("1 critical, 1 high, 1 medium, 1 low (2 blocking)"));
    assert!(s
        .rounds
        .contains("A-01 fix, A-02 reject, A-03 waived, A-04 follow-up"));
    assert!(s.rounds.contains("session_reported") && s.rounds.contains("authenticated"));
    assert!(s.rounds.contains("ci-run-88"), "invocation failure listed");
}

#[test]
fn ghes_base_and_hostile_branch_name_stay_inside_the_link() {
    let mut c = ctx();
    c.html_base = "https://ghe.example.com/".to_owned();
    c.records_branch = "rec) [x](https://evil".to_owned();
    let s = views::sections(Some(&rich_record()), &c);
    assert!(s.rounds.contains(
        "(https://ghe.example.com/octo/widgets/blob/rec%29%20%5Bx%5D%28https%3A//evil/records/AUD-7.json)"
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
                    id: auditloop::ids::LimitationId::new("L-01").unwrap(),
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

/// Hostile text in every field a report or command can fill.
const HOSTILE: &str = "x --> <!-- auditloop:rounds:end --> <script>alert(1)</script> | cell\nnext @octocat [l](https://evil.example) ![i](https://evil.example/i.png) https://evil.example www.evil.example ``` ~~~";

fn hostile_record() -> Record {
    let bad = HOSTILE;
    let history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            EventKind::Report(ReportRun {
                run: 1,
                invocation_ref: bad.to_owned(),
                invocation_mode: auditloop::engine::report::InvocationMode::HostSubagent,
                candidate_artifact: commit('a'),
                covered_tasks: vec![],
                verdict: Verdict::NeedsHumanDecision,
                report_digest: String::new(),
                grade: Grade::SessionReported,
                report: String::new(),
                receipt_id: None,
                handoff: false,
                findings: vec![
                    finding("A-01", Some("k1"), Severity::High, true, bad, &[bad]),
                    finding("A-02", Some("k2"), Severity::Low, false, bad, &[]),
                    finding("A-03", Some("k3"), Severity::Low, false, bad, &[]),
                    finding("A-04", Some("k4"), Severity::Low, false, bad, &[]),
                ],
                limitations: vec![limitation("L-01", "l1", bad, Some(bad))],
                elegance: None,
            }),
            at(11, 0),
            "bot",
        ),
        event(
            dispose(
                fref("A-01", Some("k1"), 1),
                DispositionKind::Reject,
                bad,
                None,
            ),
            at(11, 1),
            "maint",
        ),
        event(
            dispose(
                fref("A-02", Some("k2"), 1),
                DispositionKind::FollowUp,
                bad,
                None,
            ),
            at(11, 2),
            "maint",
        ),
        event(
            dispose(
                fref("A-03", Some("k3"), 1),
                DispositionKind::File,
                bad,
                Some(9),
            ),
            at(11, 3),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-04", Some("k4"), 1)],
                basis: WaiverBasis::TriageThreshold,
                reason: bad.to_owned(),
                authority: bad.to_owned(),
            }),
            at(11, 4),
            "maint",
        ),
        event(
            EventKind::Veto(Veto {
                key: key("k1"),
                effective_from_round: 2,
                reason: bad.to_owned(),
                authority: bad.to_owned(),
            }),
            at(11, 5),
            "maint",
        ),
        event(
            EventKind::InvocationFailure(InvocationFailure {
                invocation_ref: bad.to_owned(),
                candidate_artifact: commit('b'),
                reason: bad.to_owned(),
            }),
            at(11, 6),
            "bot",
        ),
    ];
    let mut r = record(history, 3, AuditState::AwaitingHuman);
    r.goal = bad.to_owned();
    r.completion_oracle = bad.to_owned();
    r
}

/// `view` shows hostile text only escaped: no marker but its own, no HTML, no mention,
/// no link but the ones the view makes, and (for tables) no broken row.
fn assert_contained(view: &str, own_markers: usize) {
    assert_escaped(view, own_markers);
    assert!(
        !view.lines().any(|l| l.starts_with("next")),
        "a newline survived: {view}"
    );
}

/// As [`assert_contained`], for views that keep the line breaks of block text.
fn assert_escaped(view: &str, own_markers: usize) {
    assert_eq!(view.matches("<!--").count(), own_markers, "{view}");
    assert_eq!(view.matches("-->").count(), own_markers, "{view}");
    assert!(!view.contains("<script"), "{view}");
    assert!(!view.contains("@octocat"), "{view}");
    assert!(!view.contains("](https://evil"), "{view}");
    assert!(!view.contains("https://evil"), "{view}");
    assert!(!view.contains("www.evil"), "{view}");
    assert!(!view.contains("``` ~~~"), "{view}");
    for line in view.lines().filter(|l| l.starts_with("| ")) {
        let header_cells = view
            .lines()
            .find(|l| l.starts_with("| "))
            .map(|h| h.matches(" | ").count());
        assert_eq!(
            Some(line.matches(" | ").count()),
            header_cells,
            "row breaks the table: {line}"
        );
    }
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
fn hostile_text_is_escaped_in_the_check_run_and_replies() {
    let r = hostile_record();
    let g = gate(
        Conclusion::ActionRequired,
        HOSTILE,
        &[(4, Outcome::Fail, HOSTILE)],
    );
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    assert_contained(&v.summary, 0);
    assert_contained(&v.text, 0);
    let status = reply::status(Some(&r), &g, &ctx(), "d-1");
    assert_contained(&status, 1);
    let refusal = reply::refused(HOSTILE, HOSTILE, HOSTILE);
    assert_escaped(&refusal, 1);
    assert!(
        refusal
            .lines()
            .next()
            .is_some_and(|l| l.contains("&#124; cell next")),
        "{refusal}"
    );
    assert!(refusal.ends_with("-->"));
}

#[test]
fn check_run_summaries() {
    let certified = rich_record();
    let remediation = record(certified.history[..7].to_vec(), 3, AuditState::Open);
    let awaiting = record(
        certified.history[..9].to_vec(),
        3,
        AuditState::AwaitingHuman,
    );
    let cases = [
        (
            "check_success",
            &certified,
            gate(Conclusion::Success, "Certified at the head commit", &[]),
            BodyStatus::Current,
        ),
        (
            "check_failure",
            &remediation,
            gate(
                Conclusion::Failure,
                "Blocking findings remain",
                &[
                    (4, Outcome::Fail, "latest verdict is needs_remediation"),
                    (6, Outcome::Fail, "A-01 (webhook-replay) is blocking"),
                ],
            ),
            BodyStatus::TooLong,
        ),
        (
            "check_action_required",
            &awaiting,
            gate(
                Conclusion::ActionRequired,
                "Awaiting a human decision",
                &[(
                    4,
                    Outcome::Fail,
                    "needs_human_decision: a maintainer must `/audit resolve`",
                )],
            ),
            BodyStatus::Summarized,
        ),
        (
            "check_in_progress",
            &certified,
            gate(
                Conclusion::InProgress,
                "Waiting for evidence",
                &[(8, Outcome::Pending, "test is queued")],
            ),
            BodyStatus::Current,
        ),
    ];
    for (name, r, g, body) in cases {
        let v = check_run::check_run(&g, Some(r), &ctx(), body);
        assert_eq!(v.conclusion, g.conclusion);
        assert!(v.title.chars().count() <= check_run::TITLE_LIMIT);
        insta::assert_snapshot!(name, format!("{}\n---\n{}", v.title, v.summary));
    }
    insta::assert_snapshot!(
        "check_neutral",
        format!(
            "{}\n---\n{}",
            check_run::disabled().title,
            check_run::disabled().summary
        )
    );
    assert_eq!(check_run::disabled().conclusion, Conclusion::Neutral);
}

#[test]
fn check_run_special_cases() {
    let no_record = check_run::check_run(
        &gate(
            Conclusion::Failure,
            "No audit record",
            &[(1, Outcome::Fail, "no record for pr:42")],
        ),
        None,
        &ctx(),
        BodyStatus::Current,
    );
    assert!(no_record.summary.contains("/audit new --goal"));
    assert!(no_record.title.contains("no audit record"));

    let bad = check_run::invalid_config("unknown field `budget` <b>", Some(3));
    assert_eq!(bad.conclusion, Conclusion::Failure);
    assert!(bad.summary.contains("at line 3"), "{}", bad.summary);
    assert!(
        bad.summary
            .contains("unknown field &#96;budget&#96; &lt;b&gt;"),
        "{}",
        bad.summary
    );

    let gone = check_run::records_unavailable("the records branch auditloop-records is missing");
    assert_eq!(gone.conclusion, Conclusion::Failure);
    assert!(gone.summary.contains("| ❌ | 1 |") && gone.summary.contains("is missing"));
}

#[test]
fn check_run_text_and_annotations() {
    let g = gate(Conclusion::Success, "Certified", &[]);
    let v = check_run::check_run(&g, Some(&rich_record()), &ctx(), BodyStatus::Current);
    insta::assert_snapshot!("check_text", v.text);
    // Only the latest run's findings, and the absolute path is skipped.
    assert_eq!(v.annotations.len(), 1);
    assert_eq!(v.annotations[0].path, "src/auth.rs");
    assert_eq!(v.annotations[0].level, check_run::AnnotationLevel::Notice);
}

#[test]
fn annotation_levels() {
    let findings = vec![
        finding("A-01", None, Severity::Low, true, "c", &["a.rs:1"]),
        finding("A-02", None, Severity::Critical, false, "c", &["a.rs:2"]),
        finding("A-03", None, Severity::High, false, "c", &["a.rs:3-4"]),
        finding(
            "A-04",
            None,
            Severity::Medium,
            false,
            "c",
            &["a.rs:5", "a.rs:0"],
        ),
    ];
    let EventKind::Report(r) = run(
        1,
        'a',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        findings,
        vec![],
    ) else {
        unreachable!()
    };
    use check_run::AnnotationLevel::*;
    let levels: Vec<_> = check_run::annotations(&r).iter().map(|a| a.level).collect();
    assert_eq!(levels, vec![Failure, Warning, Warning, Notice]);
}

#[test]
fn annotations_come_in_batches_of_fifty() {
    let refs: Vec<String> = (1..=120).map(|n| format!("a.rs:{n}")).collect();
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    let EventKind::Report(r) = run(
        1,
        'a',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        vec![finding("A-01", None, Severity::Low, false, "c", &refs)],
        vec![],
    ) else {
        unreachable!()
    };
    let all = check_run::annotations(&r);
    let sizes: Vec<usize> = check_run::annotation_batches(&all)
        .map(<[_]>::len)
        .collect();
    assert_eq!(sizes, vec![50, 50, 20]);
}

#[test]
fn check_run_output_stays_within_limits() {
    let many: Vec<FindingSummary> = (0..400)
        .map(|n| {
            finding(
                &format!("A-{n:03}"),
                None,
                Severity::Low,
                false,
                &"|".repeat(400),
                &[],
            )
        })
        .collect();
    let r = record(
        vec![event(
            run(
                1,
                'a',
                Verdict::NeedsRemediation,
                Grade::SessionReported,
                many,
                vec![],
            ),
            at(11, 0),
            "bot",
        )],
        3,
        AuditState::Open,
    );
    let g = gate(Conclusion::Failure, &"t".repeat(1000), &[]);
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    assert!(v.text.chars().count() <= check_run::TEXT_LIMIT);
    assert!(v.text.contains("cut to fit") && v.text.contains("records/AUD-7.json"));
    assert!(v.summary.chars().count() <= check_run::SUMMARY_LIMIT);
    assert!(v.title.chars().count() <= check_run::TITLE_LIMIT);
}

#[test]
fn replies() {
    let refusal = reply::refused(
        "`--goal` is a placeholder (`TBD`)",
        "Give the goal as text, e.g. `/audit new --goal \"…\" --oracle \"…\"`.",
        "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    );
    assert!(refusal.starts_with("auditloop: refused"));
    insta::assert_snapshot!("reply_refused", refusal);

    let g = gate(Conclusion::Success, "Certified at the head commit", &[]);
    let status = reply::status(
        Some(&rich_record()),
        &g,
        &ctx(),
        "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    );
    insta::assert_snapshot!("reply_status", status);
    assert!(status.contains("records/AUD-7.json") && status.contains("Budget: 3 of 4 runs used"));
}

#[test]
fn replies_are_cut_above_the_limit() {
    let huge = "word ".repeat(50_000);
    let refusal = reply::refused(&huge, &huge, "d");
    assert!(refusal.chars().count() <= reply::REPLY_LIMIT);
    assert!(
        refusal.starts_with("auditloop: refused")
            && refusal.ends_with("<!-- auditloop:delivery:d -->")
    );

    let r = rich_record();
    let mut g = gate(Conclusion::Failure, "x", &[]);
    let worst = condition(1, Outcome::Fail, &"<".repeat(20_000));
    g.conditions = vec![worst; 100];
    let status = reply::status(Some(&r), &g, &ctx(), "d");
    assert!(
        status.chars().count() <= reply::REPLY_LIMIT,
        "{}",
        status.chars().count()
    );
    assert!(status.contains("cut to fit") && status.contains("records/AUD-7.json"));
    assert!(status.ends_with("<!-- auditloop:delivery:d -->"));
}

#[test]
fn delivery_marker_cannot_be_broken() {
    assert_eq!(
        reply::delivery_marker("abc-123"),
        "<!-- auditloop:delivery:abc-123 -->"
    );
    let m = reply::delivery_marker("x --> <b>@y");
    assert_eq!(m.matches("-->").count(), 1);
    assert!(!m.contains("<b>") && !m.contains('@'));
}
