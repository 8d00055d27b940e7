//! The pattern library's rules (docs/reference.md#the-pattern-library), pure: what a certified or blocked record
//! teaches, the cap of 200 and its eviction order, at most 5 new patterns a record, and
//! `success_rate`.

use auditloop::engine::ids::AuditId;
use auditloop::engine::patterns::{
    apply, learned, Ending, Learned, Library, Pattern, Raised, MAX_PATTERNS,
};
use auditloop::engine::record::{DispositionKind, Record};
use auditloop::engine::report::{Severity, Verdict};
use auditloop::engine::transition;
use chrono::{DateTime, Duration, TimeZone, Utc};
use proptest::prelude::*;

use crate::record_support::{finding, key, Fx};

fn t(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap() + Duration::minutes(minutes)
}

fn aud(n: u64) -> AuditId {
    AuditId::from_number(n)
}

fn pattern(k: &str, seen: u32, resolved: u32, last_seen: i64) -> Pattern {
    let mut p = Pattern {
        key: key(k),
        title: format!("{k} happens."),
        severity: Severity::Medium,
        seen,
        resolved,
        success_rate: 0.0,
        records: vec![aud(100)],
        first_seen: t(0),
        last_seen: t(last_seen),
    };
    p.refresh();
    p
}

fn raised(k: &str, severity: Severity) -> Raised {
    Raised {
        key: key(k),
        title: format!("{k} happens."),
        severity,
        runs: vec![1],
    }
}

fn certified(keys: Vec<Raised>, at: i64) -> Learned {
    Learned {
        ending: Ending::Certified,
        at: t(at),
        keys,
    }
}

/// A record that raised `keys` (each blocking, severity `high`) in run 1 and certified
/// without them in run 2.
fn fixed_record(keys: &[(&str, Severity)]) -> (Record, Record) {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = keys
        .iter()
        .enumerate()
        .map(|(i, (k, severity))| {
            let mut f = finding(&format!("A-{:02}", i + 1), Some(k), true);
            f.severity = *severity;
            f.claim = format!("{k} is broken. More words follow.");
            f
        })
        .collect();
    fx.try_submit(&r).unwrap();
    let before = fx.record.clone();
    fx.submit(Verdict::Certified);
    (before, fx.record)
}

#[test]
fn success_rate_is_resolved_over_seen_with_three_decimals() {
    let p = pattern("k", 3, 2, 0);
    assert!(
        (p.success_rate - 0.667).abs() < f64::EPSILON,
        "{}",
        p.success_rate
    );
    let library = Library {
        schema_version: 1,
        patterns: vec![p, pattern("j", 8, 1, 0)],
    };
    let json = library.to_json();
    assert!(json.contains("\"success_rate\": 0.667"), "{json}");
    assert!(json.contains("\"success_rate\": 0.125"), "{json}");
    // What is stored is recomputed from the counts when read.
    let edited = json.replace("0.667", "0.9");
    assert_eq!(Library::parse(&edited).unwrap(), library_sorted(library));
}

fn library_sorted(mut library: Library) -> Library {
    library.settle();
    library
}

#[test]
fn a_certification_creates_patterns_for_the_keys_it_resolved() {
    let (before, after) = fixed_record(&[("webhook-replay", Severity::High)]);
    let taught = learned(Some(&before), &after).expect("the record became certified");
    assert_eq!(taught.ending, Ending::Certified);
    let (library, touched) = apply(&Library::default(), &after.id, &taught);
    assert_eq!(touched.created, vec![key("webhook-replay")]);
    let p = &library.patterns[0];
    assert_eq!((p.seen, p.resolved), (1, 1));
    assert_eq!(p.title, "webhook-replay is broken.");
    assert_eq!(p.severity, Severity::High);
    assert_eq!(p.records, vec![after.id.clone()]);
    assert_eq!(p.first_seen, after.history.last().unwrap().at);
    // Nothing to learn from a change that does not end the record.
    assert!(learned(Some(&after), &after).is_none());
    assert!(learned(None, &before).is_none());
}

#[test]
fn a_key_still_raised_by_the_certifying_run_is_not_resolved_unless_disposed_fix() {
    let mut fx = Fx::new();
    let mut r = fx.report(Verdict::NeedsRemediation);
    r.findings = vec![
        finding("A-01", Some("kept"), false),
        finding("A-02", Some("fixed-later"), false),
    ];
    fx.try_submit(&r).unwrap();
    fx.apply(|rec, c| {
        transition::dispose(
            rec,
            &crate::record_support::fid("A-02"),
            DispositionKind::Fix,
            "soon",
            None,
            c,
        )
    })
    .unwrap();
    let before = fx.record.clone();
    let mut r = fx.report(Verdict::Certified);
    r.findings = vec![
        finding("A-01", Some("kept"), false),
        finding("A-02", Some("fixed-later"), false),
    ];
    fx.try_submit(&r).unwrap();
    let taught = learned(Some(&before), &fx.record).unwrap();
    let keys: Vec<String> = taught.keys.iter().map(|k| k.key.to_string()).collect();
    assert_eq!(keys, ["fixed-later"]);
}

#[test]
fn a_record_adds_at_most_five_patterns_highest_severity_first() {
    let keys = [
        ("low-1", Severity::Low),
        ("medium-1", Severity::Medium),
        ("critical-1", Severity::Critical),
        ("low-2", Severity::Low),
        ("high-1", Severity::High),
        ("medium-2", Severity::Medium),
        ("high-2", Severity::High),
    ];
    let (before, after) = fixed_record(&keys);
    let taught = learned(Some(&before), &after).unwrap();
    assert_eq!(taught.keys.len(), 7);
    let (library, touched) = apply(&Library::default(), &after.id, &taught);
    let created: Vec<String> = touched.created.iter().map(ToString::to_string).collect();
    assert_eq!(
        created,
        ["critical-1", "high-1", "high-2", "medium-1", "medium-2"]
    );
    assert_eq!(library.patterns.len(), 5);
    // An existing pattern is updated beside the five new ones: updates are not capped.
    let mut old = Library::default();
    old.patterns.push(pattern("low-1", 2, 0, 0));
    let (library, touched) = apply(&old, &after.id, &taught);
    assert_eq!(touched.updated, vec![key("low-1")]);
    assert_eq!(touched.created.len(), 5);
    assert_eq!(library.patterns.len(), 6);
    let p = library.get(&key("low-1")).unwrap();
    assert_eq!((p.seen, p.resolved), (3, 1));
    assert_eq!(p.records, vec![after.id.clone(), aud(100)]);
    assert_eq!(p.last_seen, taught.at);
}

#[test]
fn a_blocked_record_counts_as_seen_not_resolved() {
    let mut fx = Fx::new();
    for _ in 0..3 {
        let mut r = fx.report(Verdict::NeedsRemediation);
        r.findings = vec![
            finding("A-01", Some("webhook-replay"), true),
            finding("A-02", Some("no-pattern-yet"), true),
        ];
        if fx.record.runs_used() == 2 {
            let before = fx.record.clone();
            fx.try_submit(&r).unwrap();
            let taught = learned(Some(&before), &fx.record).expect("blocked");
            assert_eq!(taught.ending, Ending::Blocked);
            let mut old = Library::default();
            old.patterns.push(pattern("webhook-replay", 1, 1, 0));
            let (library, touched) = apply(&old, &fx.record.id, &taught);
            assert_eq!(touched.updated, vec![key("webhook-replay")]);
            assert!(touched.created.is_empty(), "a block creates no pattern");
            assert_eq!(library.patterns.len(), 1);
            let p = &library.patterns[0];
            assert_eq!((p.seen, p.resolved), (2, 1));
            assert!((p.success_rate - 0.5).abs() < f64::EPSILON);
            assert_eq!(p.records, vec![fx.record.id.clone(), aud(100)]);
            // The same record blocked again (after an override) is not counted twice.
            let (again, touched) = apply(&library, &fx.record.id, &taught);
            assert!(touched.updated.is_empty());
            assert_eq!(again.patterns[0].seen, 2);
            return;
        }
        fx.try_submit(&r).unwrap();
    }
    unreachable!("the budget of 3 blocks the record at run 3");
}

#[test]
fn a_record_blocked_then_certified_counts_once_as_seen_and_once_as_resolved() {
    let mut old = Library::default();
    old.patterns.push(pattern("webhook-replay", 1, 1, 0));
    let id = aud(9);
    let blocked = Learned {
        ending: Ending::Blocked,
        at: t(10),
        keys: vec![raised("webhook-replay", Severity::High)],
    };
    let (library, _) = apply(&old, &id, &blocked);
    let (library, _) = apply(
        &library,
        &id,
        &certified(vec![raised("webhook-replay", Severity::High)], 20),
    );
    let p = &library.patterns[0];
    assert_eq!((p.seen, p.resolved), (2, 2));
    assert_eq!(p.severity, Severity::High, "the highest severity seen");
    assert_eq!(p.last_seen, t(20));
}

#[test]
fn past_two_hundred_the_lowest_rate_goes_first_then_the_oldest() {
    let mut full = Library::default();
    for i in 0..MAX_PATTERNS {
        // Rates 1/2 for the first ten, 1/4 for two of them, 1 for the rest.
        let (seen, resolved) = match i {
            0 | 1 => (4, 1),
            2..=9 => (2, 1),
            _ => (1, 1),
        };
        full.patterns.push(pattern(
            &format!("k{i:03}"),
            seen,
            resolved,
            i64::try_from(i).unwrap(),
        ));
    }
    full.settle();
    assert_eq!(full.patterns.len(), MAX_PATTERNS);
    let taught = certified(
        (0..3)
            .map(|i| raised(&format!("new-{i}"), Severity::Low))
            .collect(),
        1_000,
    );
    let (library, touched) = apply(&full, &aud(500), &taught);
    assert_eq!(touched.created.len(), 3);
    assert_eq!(library.patterns.len(), MAX_PATTERNS);
    let gone: Vec<&str> = ["k000", "k001", "k002"]
        .into_iter()
        .filter(|k| library.get(&key(k)).is_none())
        .collect();
    // The two at 0.25 go first, then the oldest of those at 0.5.
    assert_eq!(gone, ["k000", "k001", "k002"]);
    assert!(library.get(&key("k003")).is_some());
    // The tail is now the next to go: lowest rate, oldest last_seen.
    let last = library.patterns.last().unwrap();
    assert_eq!(last.key, key("k003"));
}

fn keep_sorted(library: &Library) -> bool {
    library
        .patterns
        .windows(2)
        .all(|w| w[0].keep_order(&w[1]).is_lt())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever records teach, the library never passes 200 patterns, stays sorted by the
    /// eviction rule, and never counts a key resolved more often than seen.
    #[test]
    fn the_library_stays_capped_and_sorted(
        steps in proptest::collection::vec(
            (any::<bool>(), proptest::collection::vec((0u16..400, 0u8..4), 0..12), 1u64..60),
            1..80,
        )
    ) {
        let mut library = Library::default();
        for (i, (is_certified, keys, record)) in steps.into_iter().enumerate() {
            let keys = keys
                .into_iter()
                .map(|(k, s)| raised(&format!("k{k}"), Severity::ALL[usize::from(s)]))
                .collect();
            let taught = Learned {
                ending: if is_certified { Ending::Certified } else { Ending::Blocked },
                at: t(i64::try_from(i).unwrap()),
                keys,
            };
            let before = library.patterns.len();
            let (next, touched) = apply(&library, &aud(record), &taught);
            prop_assert!(touched.created.len() <= 5);
            prop_assert!(next.patterns.len() <= MAX_PATTERNS);
            prop_assert!(next.patterns.len() <= before + 5);
            prop_assert!(keep_sorted(&next), "{:?}", next.patterns.iter().map(|p| (&p.key, p.rate_millis(), p.last_seen)).collect::<Vec<_>>());
            for p in &next.patterns {
                prop_assert!(p.resolved <= p.seen && p.seen > 0);
                prop_assert!(p.records.len() <= 5);
            }
            // What is written reads back as the same library.
            prop_assert_eq!(Library::parse(&next.to_json()).unwrap(), next.clone());
            library = next;
        }
    }
}
