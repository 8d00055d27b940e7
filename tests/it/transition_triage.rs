//! Waivers, vetoes and dispositions (docs/reference.md#commands).

use crate::record_support;

use auditloop::engine::ids::{FindingId, IssueNumber};
use auditloop::engine::record::{DispositionKind, EventKind, WaiverBasis};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition;
use record_support::*;

fn with_findings(fx: &mut Fx) {
    let mut r = fx.report(Verdict::NeedsRemediation);
    let mut cross = finding("A-03", Some("elsewhere"), false);
    cross.cross_remit = Some(true);
    r.findings = vec![
        finding("A-01", Some("k1"), true),
        finding("A-02", Some("k2"), false),
        cross,
    ];
    fx.try_submit(&r).unwrap();
}

fn waive(
    fx: &mut Fx,
    ids: &[&str],
    basis: WaiverBasis,
) -> Result<transition::Applied, transition::Refusal> {
    let ids: Vec<FindingId> = ids.iter().map(|s| fid(s)).collect();
    fx.apply(|r, c| transition::waive(r, &ids, basis, "out of scope", c))
}

#[test]
fn waive_rules() {
    use WaiverBasis::*;
    let mut fresh = Fx::new();
    assert_rule(waive(&mut fresh, &["A-01"], TriageThreshold), "no-run");

    type Case = (
        &'static str,
        fn(&mut Fx),
        Vec<&'static str>,
        WaiverBasis,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        ("nothing", |_| {}, vec![], TriageThreshold, "nothing-named"),
        (
            "unknown",
            |_| {},
            vec!["A-09"],
            TriageThreshold,
            "unknown-finding",
        ),
        (
            "cross-remit without flag",
            |_| {},
            vec!["A-02"],
            CrossRemit,
            "not-cross-remit",
        ),
        (
            "vetoed key",
            |fx| {
                fx.apply(|r, c| transition::veto(r, &key("k2"), None, "fix it", c))
                    .unwrap();
            },
            vec!["A-02"],
            TriageThreshold,
            "waive-vetoed",
        ),
        (
            "already waived",
            |fx| {
                waive(fx, &["A-02"], TriageThreshold).unwrap();
            },
            vec!["A-02"],
            TriageThreshold,
            "already-waived",
        ),
    ];
    for (name, setup, ids, basis, rule) in cases {
        let mut fx = Fx::new();
        with_findings(&mut fx);
        setup(&mut fx);
        let before = fx.record.clone();
        let result = waive(&mut fx, &ids, basis);
        assert!(result.is_err(), "{name}");
        assert_rule(result, rule);
        assert_eq!(fx.record, before, "{name}");
    }
}

#[test]
fn waivers_that_hold() {
    let mut fx = Fx::new();
    with_findings(&mut fx);
    waive(&mut fx, &["A-03"], WaiverBasis::CrossRemit).unwrap();
    // A veto from a later round does not forbid waiving now.
    fx.apply(|r, c| transition::veto(r, &key("k1"), Some(5), "later", c))
        .unwrap();
    let applied = waive(
        &mut fx,
        &["A-01", "A-02", "A-01"],
        WaiverBasis::TriageThreshold,
    )
    .unwrap();
    let EventKind::Waiver(w) = &applied.event.kind else {
        panic!()
    };
    assert_eq!(w.findings.len(), 2);
    assert_eq!(w.findings[0].run, 1);
    assert_eq!(w.authority, "human: maintainer");
    assert_eq!(fx.record.waivers().len(), 2);
}

#[test]
fn veto_rounds() {
    let mut fx = Fx::new();
    with_findings(&mut fx);
    assert_rule(
        fx.apply(|r, c| transition::veto(r, &key("k1"), Some(0), "r", c)),
        "veto-round-zero",
    );
    let applied = fx
        .apply(|r, c| transition::veto(r, &key("k1"), None, "r", c))
        .unwrap();
    let EventKind::Veto(v) = &applied.event.kind else {
        panic!()
    };
    assert_eq!(v.effective_from_round, 2, "default is the next run");
    assert!(fx.record.vetoes_in_force(1).is_empty());
    assert_eq!(fx.record.vetoes_in_force(2).len(), 1);
    fx.apply(|r, c| transition::veto(r, &key("k2"), Some(1), "now", c))
        .unwrap();
    assert_eq!(fx.record.vetoes_in_force(1).len(), 1);
    assert!(fx.record.veto_on(&key("k2"), 1).is_some());
}

#[test]
fn dispose_rules() {
    let mut fx = Fx::new();
    with_findings(&mut fx);
    let dispose = |fx: &mut Fx, id: &str, kind, issue| {
        let id = fid(id);
        fx.apply(|r, c| transition::dispose(r, &id, kind, "note", issue, c))
    };
    assert_rule(
        dispose(&mut fx, "A-09", DispositionKind::Fix, None),
        "unknown-finding",
    );
    assert_rule(
        dispose(&mut fx, "A-01", DispositionKind::FollowUp, None),
        "follow-up-blocking",
    );
    assert_rule(
        dispose(&mut fx, "A-02", DispositionKind::File, None),
        "issue-required",
    );
    dispose(
        &mut fx,
        "A-02",
        DispositionKind::File,
        Some(IssueNumber(77)),
    )
    .unwrap();
    let d = fx.record.latest_dispositions();
    assert_eq!(
        d.get(&fid("A-02")).and_then(|d| d.issue),
        Some(IssueNumber(77))
    );
    assert_rule(
        dispose(&mut fx, "A-02", DispositionKind::Fix, None),
        "already-disposed",
    );
    dispose(&mut fx, "A-03", DispositionKind::FollowUp, None).unwrap();
    dispose(&mut fx, "A-01", DispositionKind::Fix, Some(IssueNumber(5))).unwrap();
    let d = fx.record.latest_dispositions();
    assert_eq!(d.len(), 3);
    assert_eq!(d.get(&fid("A-01")).and_then(|d| d.issue), None);
    // The next run's findings can be disposed anew.
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![finding("A-01", Some("k1"), true)];
    fx.try_submit(&r).unwrap();
    assert!(fx.record.latest_dispositions().is_empty());
    dispose(&mut fx, "A-01", DispositionKind::Fix, None).unwrap();
}
