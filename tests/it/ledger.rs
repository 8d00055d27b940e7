//! The finding ledger (docs/reference.md#the-finding-ledger): each key's first raise and
//! later states, the counts per run, late findings and the convergence line.

use crate::gate_support::{certified_record, commit, event, finding, key, report_run};

use auditloop::engine::ids::{Artifact, FindingId};
use auditloop::engine::ledger::late::{late_since, wanted, FileVersions};
use auditloop::engine::ledger::{Ledger, LedgerKey, Raise, Settled};
use auditloop::engine::record::{
    Disposition, DispositionKind, EventKind, FindingRef, FindingSummary, Record,
};
use auditloop::engine::report::Verdict;
use proptest::prelude::*;

/// A record whose runs raise the keys given, one list per run, on candidates `a`, `b`, …
fn with_runs(runs: &[&[&str]]) -> Record {
    let mut record = certified_record();
    record
        .history
        .retain(|e| !matches!(e.kind, EventKind::Report(_)));
    for (i, keys) in runs.iter().enumerate() {
        let n = u32::try_from(i).unwrap() + 1;
        let mut run = report_run(n, Verdict::NeedsRemediation, candidate(i));
        run.findings = keys
            .iter()
            .enumerate()
            .map(|(j, k)| finding(&format!("A-{:02}", j + 1), Some(k), true))
            .collect();
        record.history.push(event(EventKind::Report(run)));
    }
    record
}

fn candidate(i: usize) -> Artifact {
    commit(char::from(b'a' + u8::try_from(i).unwrap()))
}

fn raises(ledger: &Ledger, name: &str) -> Vec<Raise> {
    let k = ledger.key(&LedgerKey::Key(key(name))).expect("raised");
    k.states.iter().map(|s| s.raise).collect()
}

#[test]
fn each_key_keeps_its_first_raise_and_what_each_later_run_did() {
    let record = with_runs(&[&["replay", "size"], &["replay"], &[], &["replay", "late"]]);
    let ledger = Ledger::of(&record);
    let replay = ledger.key(&LedgerKey::Key(key("replay"))).unwrap();
    assert_eq!(
        (replay.first_run, &replay.first_candidate),
        (1, &candidate(0))
    );
    use Raise::*;
    assert_eq!(
        raises(&ledger, "replay"),
        [New, Carried, Resolved, Regressed]
    );
    assert_eq!(raises(&ledger, "size"), [New, Resolved, Resolved, Resolved]);
    assert_eq!(raises(&ledger, "late"), [New]);
    let counts: Vec<_> = (1..=4).map(|r| ledger.counts(r).cell()).collect();
    assert_eq!(
        counts,
        [
            "2 / 0 / 0",
            "0 / 1 / 1",
            "0 / 0 / 1",
            "1 / 1 (1 regressed) / 0"
        ]
    );
    let line = ledger.convergence().line().unwrap();
    assert_eq!(
        line,
        "round 4: 1 new, 1 carried (1 regressed after being resolved), 0 resolved — not converging"
    );
    assert_eq!(ledger.convergence().last_converges(), Some(false));
}

#[test]
fn the_convergence_line_says_converging_and_names_late_findings() {
    let ledger = Ledger::of(&with_runs(&[&["a", "b", "c", "d", "e"], &["e"]]));
    assert_eq!(
        ledger.convergence().line().unwrap(),
        "round 2: 0 new, 1 carried, 4 resolved — converging"
    );
    assert_eq!(
        Ledger::of(&with_runs(&[&["a", "b"]]))
            .convergence()
            .line()
            .unwrap(),
        "round 1: 2 raised — the first round"
    );
    let mut record = with_runs(&[&["a"], &["a"], &["a", "b", "c", "d"]]);
    let last = record.history.last_mut().unwrap();
    if let EventKind::Report(run) = &mut last.kind {
        for f in run.findings.iter_mut().skip(1).take(2) {
            f.late_since = Some(1);
        }
    }
    let ledger = Ledger::of(&record);
    assert_eq!(ledger.counts(3).cell(), "3 (2 late) / 1 / 0");
    assert_eq!(
        ledger.convergence().line().unwrap(),
        "round 3: 3 new, 2 of them late on files unchanged since round 1; 1 carried, 0 resolved — not converging"
    );
}

#[test]
fn a_finding_without_a_key_is_followed_by_its_id() {
    let mut record = with_runs(&[&["x"], &["x"]]);
    for e in &mut record.history {
        if let EventKind::Report(run) = &mut e.kind {
            run.findings[0].key = None;
        }
    }
    let ledger = Ledger::of(&record);
    let k = LedgerKey::Id(FindingId::new("A-01").unwrap());
    assert_eq!(ledger.key(&k).unwrap().states.len(), 2);
}

#[test]
fn waived_disposed_and_vetoed_findings_are_marked_in_their_run() {
    let mut record = with_runs(&[&["replay", "size"], &["replay", "size"]]);
    let fref = |id: &str, k: &str| FindingRef {
        id: FindingId::new(id).unwrap(),
        key: Some(key(k)),
        run: 1,
    };
    record
        .history
        .push(event(EventKind::Disposition(Disposition {
            finding: fref("A-02", "size"),
            disposition: DispositionKind::FollowUp,
            note: "later".into(),
            authority: "human: maintainer".into(),
            issue: None,
            vetoed_from: None,
        })));
    record
        .history
        .push(event(crate::gate_support::veto("replay", 2)));
    let ledger = Ledger::of(&record);
    let state = |name: &str, run: u32| {
        ledger
            .key(&LedgerKey::Key(key(name)))
            .unwrap()
            .state(run)
            .unwrap()
            .settled
    };
    assert_eq!(state("size", 1), Some(Settled::Disposed));
    assert_eq!(state("replay", 1), Some(Settled::Vetoed));
    assert_eq!(state("size", 2), None);
}

#[test]
fn a_new_finding_is_late_when_its_files_are_as_an_earlier_candidate_had_them() {
    let record = with_runs(&[&["replay"], &["replay"]]);
    let now = candidate(2);
    let refs = vec!["src/lib.rs:4".to_owned(), "tests/a.rs:1-3".to_owned()];
    let fresh = (LedgerKey::Key(key("drip")), refs.as_slice());
    let asked = wanted(&record, &now, [fresh.clone()]);
    assert_eq!(asked.len(), 6, "two files at three candidates: {asked:?}");
    // A key raised before is not new, so nothing is read for it.
    let old = (LedgerKey::Key(key("replay")), refs.as_slice());
    assert!(wanted(&record, &now, [old.clone()]).is_empty());

    let mut v = FileVersions::default();
    for (c, blob) in [(candidate(0), "1"), (candidate(1), "2"), (now.clone(), "2")] {
        v.insert(c.clone(), "src/lib.rs".into(), Some(format!("lib{blob}")));
        v.insert(c, "tests/a.rs".into(), Some("t".into()));
    }
    let key = LedgerKey::Key(key("drip"));
    assert!(v.holds(&asked));
    assert_eq!(late_since(&record, &now, (&key, &refs), &v), Some(2));
    // Changed since every earlier candidate: not late.
    v.insert(now.clone(), "src/lib.rs".into(), Some("lib3".into()));
    assert_eq!(late_since(&record, &now, (&key, &refs), &v), None);
    // A version not read, a finding raised before, evidence with no file: never late.
    assert_eq!(
        late_since(&record, &now, (&key, &refs), &FileVersions::default()),
        None
    );
    assert_eq!(late_since(&record, &now, (&old.0, &refs), &v), None);
    let ci = vec!["CI run 88 log".to_owned()];
    assert_eq!(late_since(&record, &now, (&key, &ci), &v), None);
    // Before the first run nothing is late, and nothing is read.
    assert!(wanted(&with_runs(&[]), &now, [fresh]).is_empty());
}

fn runs_strategy() -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(prop::collection::vec(0usize..6, 0..5), 1..7)
}

proptest! {
    #[test]
    fn the_counts_hold_together(runs in runs_strategy()) {
        let names = ["k0", "k1", "k2", "k3", "k4", "k5"];
        let lists: Vec<Vec<&str>> = runs
            .iter()
            .map(|r| {
                let mut keys: Vec<&str> = r.iter().map(|i| names[*i]).collect();
                keys.sort_unstable();
                keys.dedup();
                keys
            })
            .collect();
        let slices: Vec<&[&str]> = lists.iter().map(Vec::as_slice).collect();
        let ledger = Ledger::of(&with_runs(&slices));
        for (i, keys) in lists.iter().enumerate() {
            let run = u32::try_from(i).unwrap() + 1;
            let c = ledger.counts(run);
            // new + carried = raised.
            prop_assert_eq!(c.new + c.carried, u32::try_from(keys.len()).unwrap());
            prop_assert!(c.late <= c.new && c.regressed <= c.carried);
            for k in &ledger.keys {
                let Some(state) = k.state(run) else { continue };
                let raised = keys.contains(&k.key.as_str());
                // A resolved key is never carried: its state says what the run did.
                prop_assert_eq!(raised, state.raise != Raise::Resolved);
                prop_assert_eq!(state.raise == Raise::New, k.first_run == run);
            }
            let before = i.checked_sub(1).map(|j| &lists[j]);
            let resolved = before.map_or(0, |b| b.iter().filter(|k| !keys.contains(k)).count());
            prop_assert_eq!(c.resolved, u32::try_from(resolved).unwrap());
        }
    }
}

#[test]
fn an_unkeyed_finding_summary_has_its_id_as_its_ledger_key() {
    let f: FindingSummary = finding("A-07", None, false);
    assert_eq!(LedgerKey::of(&f).as_str(), "A-07");
}

#[test]
fn the_dashboard_marks_a_record_whose_last_run_did_not_converge() {
    use auditloop::engine::dashboard::{rows, OpenPull};
    use auditloop::engine::ids::PrNumber;
    // Round 2 raises more than round 1: not converging. Then round 3 raises fewer.
    let growing = with_runs(&[&["a"], &["a", "b"]]);
    let shrinking = with_runs(&[&["a"], &["a", "b"], &["b"]]);
    let id = growing.id.clone();
    let pull = |n, r| OpenPull {
        number: PrNumber(n),
        title: "t",
        record_id: &id,
        record: Ok(r),
        gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
            "Audit gate passes",
        )),
    };
    let listed = rows(&[pull(1, &growing), pull(2, &shrinking)]);
    let marked: Vec<(u64, bool)> = listed
        .iter()
        .map(|r| (r.number.0, r.not_converging))
        .collect();
    assert!(
        marked.contains(&(1, true)) && marked.contains(&(2, false)),
        "{marked:?}"
    );
}
