//! The check run's output: title, summary, findings text, annotations.

use crate::views_support;

use auditloop::engine::gate::{CheckObservation, CheckStatus, Conclusion, Outcome};
use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::record_path;
use auditloop::engine::record::*;
use auditloop::engine::repo_config::RepoConfig;
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

/// A record with its history chained, as the records branch holds it.
fn chained(mut r: Record) -> Record {
    crate::gate_support::rechain(&mut r);
    r
}

fn observed(name: &str, status: CheckStatus, conclusion: Option<&str>) -> CheckObservation {
    CheckObservation {
        name: name.to_owned(),
        status,
        conclusion: conclusion.map(str::to_owned),
    }
}

/// A view's name, its record, the checks on the head, the body's status and the conclusion.
type Case<'a> = (
    &'static str,
    Option<&'a Record>,
    &'a [CheckObservation],
    BodyStatus,
    Conclusion,
);

/// The check run of every state a maintainer meets, each from the gate as the app
/// evaluates it (no hand-made conditions).
#[test]
fn check_run_summaries() {
    let certified = chained(rich_record());
    let remediation = chained(record(certified.history[..7].to_vec(), 3, AuditState::Open));
    let awaiting = chained(record(
        certified.history[..9].to_vec(),
        3,
        AuditState::AwaitingHuman,
    ));
    let fresh = chained(record(certified.history[..1].to_vec(), 3, AuditState::Open));
    let mut config = RepoConfig::default();
    config.evidence.required_checks = vec!["test".to_owned()];
    let passed = [observed("test", CheckStatus::Completed, Some("success"))];
    let running = [observed("test", CheckStatus::InProgress, None)];
    let cases: [Case<'_>; 6] = [
        (
            "check_success",
            Some(&certified),
            &passed,
            BodyStatus::Current,
            Conclusion::Success,
        ),
        (
            "check_failure",
            Some(&remediation),
            &passed,
            BodyStatus::TooLong,
            Conclusion::Failure,
        ),
        (
            "check_action_required",
            Some(&awaiting),
            &passed,
            BodyStatus::Summarized,
            Conclusion::ActionRequired,
        ),
        (
            "check_in_progress",
            Some(&certified),
            &running,
            BodyStatus::Current,
            Conclusion::InProgress,
        ),
        (
            "check_open",
            Some(&fresh),
            &passed,
            BodyStatus::Current,
            Conclusion::Failure,
        ),
        (
            "check_no_record",
            None,
            &passed,
            BodyStatus::Current,
            Conclusion::Failure,
        ),
    ];
    for (name, r, checks, body, conclusion) in cases {
        let head = r.map_or_else(|| commit('a'), |r| r.candidate_artifact.clone());
        let g = evaluated(r, head.sha(), checks, &config);
        let v = check_run::check_run(&g, r, &ctx(), body);
        assert_eq!(v.conclusion, conclusion, "{name}: {g:#?}");
        assert!(v.title.chars().count() <= check_run::TITLE_LIMIT);
        assert_eq!(
            v.title,
            g.title.plain(),
            "{name}: the title is the verdict line"
        );
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

/// One blocking finding: the summary leads with condition 6, which fails for a reason of
/// its own and names the command; the conditions that only follow from it wait on it.
#[test]
fn root_cause_first_and_dependents_wait() {
    let r = chained(record(
        rich_record().history[..7].to_vec(),
        3,
        AuditState::Open,
    ));
    let mut config = RepoConfig::default();
    config.evidence.required_checks = vec!["test".to_owned()];
    let checks = [observed("test", CheckStatus::Completed, Some("success"))];
    let g = evaluated(Some(&r), r.candidate_artifact.sha(), &checks, &config);
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    assert_eq!(v.summary.matches("❌").count(), 1, "{}", v.summary);
    let first = v.summary.find("- ❌ **6.").expect("condition 6 leads");
    let waiting = v.summary.find("wait on 6").expect("dependents wait on 6");
    let passing = v
        .summary
        .find("<details>")
        .expect("passing conditions fold");
    assert!(first < waiting && waiting < passing, "{}", v.summary);
    assert!(v.summary.contains("`/audit report`"), "{}", v.summary);
    assert!(
        v.title
            .starts_with("Needs remediation — A-01 webhook-replay (critical, blocking)"),
        "{}",
        v.title
    );
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
    assert!(
        v.text.contains("cut to fit") && v.text.contains(&record_path(&AuditId::from_number(7)))
    );
    assert!(v.summary.chars().count() <= check_run::SUMMARY_LIMIT);
    assert!(v.title.chars().count() <= check_run::TITLE_LIMIT);
}
