//! The history queries on `Record` (docs/reference.md#history-events): dispositions in force, contested
//! findings, vetoes, waived findings and accepted limitations.

use crate::views_support;

use auditloop::engine::ids::{FindingId, IssueNumber, LimitationId};
use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};
use views_support::*;

fn fid(s: &str) -> FindingId {
    FindingId::new(s).unwrap()
}

fn keyed_run(n: u32, keys: &[(&str, Option<&str>)]) -> EventKind {
    let findings = keys
        .iter()
        .map(|(id, k)| finding(id, *k, Severity::High, true, "claim", &[]))
        .collect();
    run(
        n,
        'a',
        Verdict::NeedsRemediation,
        Grade::SessionReported,
        findings,
        vec![],
    )
}

fn reject(id: &str, k: Option<&str>, run: u32) -> EventKind {
    dispose(fref(id, k, run), DispositionKind::Reject, "counter", None)
}

fn resolution(id: &str, k: Option<&str>, run: u32) -> EventKind {
    EventKind::Resolution(Resolution {
        note: "settled".to_owned(),
        authority: "human: maint".to_owned(),
        finding: Some(fref(id, k, run)),
    })
}

/// Events in order, a minute apart, so deliveries differ.
fn history(kinds: Vec<EventKind>) -> Record {
    let events = std::iter::once(created(5))
        .chain(kinds)
        .enumerate()
        .map(|(i, k)| event(k, at(10, u32::try_from(i).unwrap()), "maint"))
        .collect();
    record(events, 5, AuditState::Open)
}

/// `(run, finding id)` of each contested rejection.
type Contested = Vec<(u32, String)>;

fn contested(r: &Record) -> Contested {
    r.contested()
        .into_iter()
        .map(|d| (d.finding.run, d.finding.id.to_string()))
        .collect()
}

#[test]
fn contested_table() {
    let k = Some("k1");
    let one = |run: u32, id: &str| vec![(run, id.to_owned())];
    let cases: Vec<(&str, Vec<EventKind>, Contested)> = vec![
        (
            "a rejection of the latest run",
            vec![keyed_run(1, &[("A-01", k)]), reject("A-01", k, 1)],
            one(1, "A-01"),
        ),
        (
            "a later disposition replaces the rejection",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                dispose(fref("A-01", k, 1), DispositionKind::Fix, "n", None),
            ],
            vec![],
        ),
        (
            "a later run still reports the key",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                keyed_run(2, &[("A-03", k)]),
            ],
            one(1, "A-01"),
        ),
        (
            "a later run drops the key",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                keyed_run(2, &[]),
            ],
            vec![],
        ),
        (
            "a dropped key that comes back does not revive the contest",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                keyed_run(2, &[]),
                keyed_run(3, &[("A-01", k)]),
            ],
            vec![],
        ),
        (
            "a finding without a key is not tracked past its run",
            vec![
                keyed_run(1, &[("A-01", None)]),
                reject("A-01", None, 1),
                keyed_run(2, &[("A-01", None)]),
            ],
            vec![],
        ),
        (
            "resolved after the rejection, by the same finding",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                resolution("A-01", k, 1),
            ],
            vec![],
        ),
        (
            "resolved after the rejection, by its key in a later run",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                keyed_run(2, &[("A-03", k)]),
                resolution("A-03", k, 2),
            ],
            vec![],
        ),
        (
            "a resolution before the rejection does not settle it",
            vec![
                keyed_run(1, &[("A-01", k)]),
                resolution("A-01", k, 1),
                reject("A-01", k, 1),
            ],
            one(1, "A-01"),
        ),
        (
            "a resolution of another key does not settle it",
            vec![
                keyed_run(1, &[("A-01", k), ("A-02", Some("k2"))]),
                reject("A-01", k, 1),
                resolution("A-02", Some("k2"), 1),
            ],
            one(1, "A-01"),
        ),
        (
            "one entry per key: the latest rejection",
            vec![
                keyed_run(1, &[("A-01", k)]),
                reject("A-01", k, 1),
                keyed_run(2, &[("A-03", k)]),
                reject("A-03", k, 2),
            ],
            one(2, "A-03"),
        ),
        (
            "in the order the rejections were given",
            vec![
                keyed_run(1, &[("A-01", k), ("A-02", Some("k2"))]),
                reject("A-02", Some("k2"), 1),
                reject("A-01", k, 1),
            ],
            vec![(1, "A-02".to_owned()), (1, "A-01".to_owned())],
        ),
    ];
    for (name, kinds, want) in cases {
        assert_eq!(contested(&history(kinds)), want, "{name}");
    }
}

#[test]
fn is_contested_follows_the_key_into_the_latest_run() {
    let k = Some("k1");
    let r = history(vec![
        keyed_run(1, &[("A-01", k)]),
        reject("A-01", k, 1),
        keyed_run(2, &[("A-03", k), ("A-04", Some("k2"))]),
    ]);
    assert!(r.is_contested(&fid("A-03")));
    assert!(!r.is_contested(&fid("A-04")));
    assert!(!r.is_contested(&fid("A-09")));
}

#[test]
fn dispositions_in_force_keep_the_last_per_finding() {
    let k = Some("k1");
    let r = history(vec![
        keyed_run(1, &[("A-01", k), ("A-02", None)]),
        reject("A-01", k, 1),
        dispose(fref("A-02", None, 1), DispositionKind::Fix, "n", None),
        dispose(fref("A-01", k, 1), DispositionKind::File, "n", Some(9)),
    ]);
    assert_eq!(r.dispositions().count(), 3);
    let in_force: Vec<(String, DispositionKind)> = r
        .dispositions_in_force()
        .into_iter()
        .map(|d| (d.finding.id.to_string(), d.disposition))
        .collect();
    assert_eq!(
        in_force,
        vec![
            ("A-02".to_owned(), DispositionKind::Fix),
            ("A-01".to_owned(), DispositionKind::File),
        ]
    );
    let latest = r.latest_dispositions();
    assert_eq!(
        latest.get(&fid("A-01")).and_then(|d| d.issue),
        Some(IssueNumber(9))
    );
}

fn veto(k: &str, from: u32, reason: &str) -> EventKind {
    EventKind::Veto(Veto {
        key: key(k),
        effective_from_round: from,
        reason: reason.to_owned(),
        authority: "human: maint".to_owned(),
    })
}

#[test]
fn vetoes_accumulate_and_the_latest_per_key_is_shown() {
    let r = history(vec![
        veto("k1", 2, "first"),
        veto("k2", 1, "other"),
        veto("k1", 4, "second"),
    ]);
    // No command lifts a veto: the later one does not postpone the earlier.
    assert_eq!(
        r.veto_on(&key("k1"), 2).map(|v| v.reason.as_str()),
        Some("first")
    );
    assert!(r.veto_on(&key("k1"), 1).is_none());
    assert_eq!(r.vetoes_in_force(4).len(), 3);
    let shown: Vec<&str> = r
        .latest_vetoes()
        .iter()
        .map(|v| v.reason.as_str())
        .collect();
    assert_eq!(shown, vec!["other", "second"]);
}

#[test]
fn waived_lists_each_finding_of_each_waiver() {
    let r = history(vec![
        keyed_run(1, &[("A-01", None), ("A-02", None)]),
        EventKind::Waiver(Waiver {
            findings: vec![fref("A-01", None, 1), fref("A-02", None, 1)],
            basis: WaiverBasis::TriageThreshold,
            reason: "small".to_owned(),
            authority: "human: maint".to_owned(),
        }),
    ]);
    let ids: Vec<String> = r
        .waived()
        .iter()
        .map(|w| w.finding.id.to_string())
        .collect();
    assert_eq!(ids, vec!["A-01", "A-02"]);
    assert!(r.waived().iter().all(|w| w.waiver.reason == "small"));
}

fn acceptance(k: &str) -> EventKind {
    EventKind::LimitationAcceptance(LimitationAcceptance {
        run: 1,
        limitations: vec![AcceptedLimitation {
            id: LimitationId::new("L-01").unwrap(),
            key: key(k),
        }],
        note: "ok".to_owned(),
        // Text can name anyone; only the event's authenticated actor counts.
        authority: "human: someone-else".to_owned(),
    })
}

#[test]
fn acceptance_counts_the_actor_not_the_text() {
    let r = history(vec![acceptance("no-ghes")]);
    assert!(r.accepted_by(&key("no-ghes"), &login("MAINT")));
    assert!(!r.accepted_by(&key("no-ghes"), &login("someone-else")));
    assert!(!r.accepted_by(&key("no-arm"), &login("maint")));
}

#[test]
fn latest_limitations_take_the_report_authority_or_the_latest_acceptance() {
    let limited = run(
        1,
        'a',
        Verdict::NeedsHumanDecision,
        Grade::SessionReported,
        vec![],
        vec![
            limitation("L-01", "no-ghes", "t", None),
            limitation("L-02", "no-arm", "t", None),
            limitation("L-03", "no-win", "t", Some("D-4")),
        ],
    );
    let r = history(vec![limited, acceptance("no-ghes")]);
    let got: Vec<(String, Option<String>)> = r
        .latest_limitations()
        .into_iter()
        .map(|l| (l.limitation.id.to_string(), l.authority))
        .collect();
    assert_eq!(
        got,
        vec![
            ("L-01".to_owned(), Some("human: someone-else".to_owned())),
            ("L-02".to_owned(), None),
            ("L-03".to_owned(), Some("D-4".to_owned())),
        ]
    );
}

#[test]
fn runs_findings_and_failures_by_number() {
    let r = history(vec![
        keyed_run(1, &[("A-01", None)]),
        EventKind::InvocationFailure(InvocationFailure {
            invocation_ref: "ci-9".to_owned(),
            candidate_artifact: commit('b'),
            reason: "timeout".to_owned(),
        }),
        keyed_run(2, &[("A-01", Some("k1"))]),
    ]);
    assert_eq!(r.runs_used(), 2);
    assert_eq!(
        r.run_events().map(|(_, run)| run.run).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(
        r.finding(1, &fid("A-01")).map(|f| f.key.is_none()),
        Some(true)
    );
    assert_eq!(
        r.finding(2, &fid("A-01")).map(|f| f.key.is_some()),
        Some(true)
    );
    assert!(r.finding(3, &fid("A-01")).is_none());
    let failures: Vec<&str> = r
        .invocation_failures()
        .map(|(_, f)| f.invocation_ref.as_str())
        .collect();
    assert_eq!(failures, ["ci-9"]);
}
