//! Comment replies: refusals and status.

use crate::views_support;

use auditloop::engine::gate::{Conclusion, Outcome};
use auditloop::engine::ids::AuditId;
use auditloop::engine::layout::record_path;
use auditloop::engine::md::Md;
use auditloop::engine::views::reply;
use views_support::*;

#[test]
fn hostile_text_is_escaped_in_replies() {
    let r = hostile_record();
    let g = gate(
        Conclusion::ActionRequired,
        HOSTILE,
        &[(4, Outcome::Fail, HOSTILE)],
    );
    let status = reply::status(Some(&r), &g, &ctx(), "d-1");
    assert_contained(&status, 1);
    let refusal = reply::refused(&Md::text(HOSTILE), &Md::block(HOSTILE), HOSTILE);
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
fn replies() {
    let refusal = reply::refused(
        &Md::lit("`--goal` is a placeholder (`TBD`)"),
        &Md::lit("give the goal as text, e.g. `/audit new --goal \"…\" --oracle \"…\"`."),
        "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    );
    assert!(refusal.starts_with("auditloop: refused"));
    insta::assert_snapshot!("reply_refused", refusal);

    let mut rich = rich_record();
    crate::gate_support::rechain(&mut rich);
    rich.evidence = Some(auditloop::engine::record::Evidence {
        text: "cargo test passed".to_owned(),
        given_for: rich.candidate_artifact.clone(),
    });
    let head = rich.candidate_artifact.sha().clone();
    let g = evaluated(
        Some(&rich),
        &head,
        &[],
        &auditloop::engine::repo_config::RepoConfig::default(),
    );
    let status = reply::status(
        Some(&rich),
        &g,
        &ctx(),
        "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    );
    insta::assert_snapshot!("reply_status", status);
    assert!(
        status.contains(&record_path(&AuditId::from_number(7)))
            && status.contains("budget 3 of 4 runs used")
    );
}

#[test]
fn replies_are_cut_above_the_limit() {
    let huge = "word ".repeat(50_000);
    let refusal = reply::refused(&Md::from(huge.clone()), &Md::from(huge.clone()), "d");
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
    assert!(
        status.contains("cut to fit") && status.contains(&record_path(&AuditId::from_number(7)))
    );
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

#[test]
fn a_status_behind_queued_commands_says_so_before_the_gate() {
    let r = hostile_record();
    let g = gate(Conclusion::Failure, "Needs remediation", &[]);
    let quiet = reply::status(Some(&r), &g, &ctx(), "d-2");
    assert!(!quiet.contains("queued"), "{quiet}");
    let one = reply::status_behind(Some(&r), &g, &ctx(), "d-2", 1);
    assert!(one.contains("1 command queued ahead of this one"), "{one}");
    let two = reply::status_behind(Some(&r), &g, &ctx(), "d-2", 2);
    let line = two.lines().find(|l| l.contains("queued")).unwrap();
    assert!(
        line.starts_with("⏳ 2 commands queued ahead of this one"),
        "{line}"
    );
    // Said before the gate's conditions.
    assert!(two.find("queued").unwrap() < two.find("Gate").unwrap_or(usize::MAX));
}
