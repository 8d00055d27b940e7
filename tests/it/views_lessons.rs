//! The `## Lessons` section of `records/AUD-n.md` (docs/reference.md#lessons): derived from the
//! history when the record is certified or blocked, absent otherwise.

use auditloop::engine::patterns::{apply, learned, Library};
use auditloop::engine::record::{DispositionKind, Record, WaiverBasis};
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::transition;
use auditloop::engine::views::lessons;

use crate::record_support::{fid, finding, lid, limitation, Fx};

/// Run 1 raises three keys; one is waived, one disposed `fix` and gone in run 2, which
/// raises the first again and asks a human about a limitation; run 3 certifies.
fn lived_record() -> (Record, Record) {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    let mut replay = finding("A-01", Some("webhook-replay"), true);
    replay.claim = "A redelivered webhook is applied twice. The dedupe set is per process.".into();
    let mut body = finding("A-02", Some("413-body"), true);
    body.severity = Severity::Medium;
    body.claim = "An oversized body is read whole before it is refused.".into();
    let mut cosmetic = finding("A-03", Some("log-wording"), false);
    cosmetic.claim = "A log line says | and <b>.".into();
    r.findings = vec![replay.clone(), body, cosmetic];
    fx.try_submit(&r).unwrap();
    fx.apply(|rec, c| {
        transition::waive(
            rec,
            &[fid("A-03")],
            WaiverBasis::TriageThreshold,
            "cosmetic, next release",
            c,
        )
    })
    .unwrap();
    fx.apply(|rec, c| {
        transition::dispose(
            rec,
            &fid("A-02"),
            DispositionKind::Fix,
            "bounded read in this PR",
            None,
            c,
        )
    })
    .unwrap();
    let mut r = fx.report(Verdict::NeedsHumanDecision);
    r.findings = vec![replay];
    r.limitations = Some(vec![limitation("L-01", "single-replica", None)]);
    fx.try_submit(&r).unwrap();
    fx.apply(|rec, c| {
        transition::accept_limitations(rec, &[lid("L-01")], "one replica until v2", c)
    })
    .unwrap();
    let before = fx.record.clone();
    fx.submit(Verdict::Certified);
    (before, fx.record)
}

#[test]
fn a_certified_record_shows_its_lessons() {
    let (before, after) = lived_record();
    let taught = learned(Some(&before), &after).unwrap();
    let mut old = Library::default();
    let (seeded, _) = apply(
        &old,
        &auditloop::engine::ids::AuditId::from_number(3),
        &auditloop::engine::patterns::Learned {
            ending: auditloop::engine::patterns::Ending::Certified,
            at: before.history[0].at,
            keys: vec![taught
                .keys
                .iter()
                .find(|k| k.key.as_str() == "413-body")
                .unwrap()
                .clone()],
        },
    );
    old = seeded;
    let (library, touched) = apply(&old, &after.id, &taught);
    assert_eq!(touched.created.len(), 2, "{touched:?}");
    assert_eq!(touched.updated.len(), 1, "{touched:?}");
    let section = lessons::render(&after, Some(&library)).expect("certified");
    insta::assert_snapshot!("lessons_certified", section);
    // Derived: the record's JSON holds nothing of it.
    let json = auditloop::engine::record::to_json(&after);
    assert!(!json.contains("Lessons"));
}

#[test]
fn lessons_appear_only_once_a_record_is_certified_or_blocked() {
    let (before, after) = lived_record();
    assert_eq!(lessons::render(&before, None), None, "open: no lessons yet");
    let section = lessons::render(&after, None).unwrap();
    assert!(section.contains("No pattern library is kept"), "{section}");
}
