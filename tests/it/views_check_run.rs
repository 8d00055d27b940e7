//! The check run's output: title, summary, findings text, annotations.

use crate::views_support;

use auditloop::engine::gate::{Conclusion, Outcome};
use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::views::{check_run, BodyStatus};
use views_support::*;

#[test]
fn hostile_text_is_escaped_in_the_check_run() {
    let r = hostile_record();
    let g = gate(
        Conclusion::ActionRequired,
        HOSTILE,
        &[(4, Outcome::Fail, HOSTILE)],
    );
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    assert_contained(&v.summary, 0);
    assert_contained(&v.text, 0);
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
