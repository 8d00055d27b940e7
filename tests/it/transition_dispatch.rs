//! When a record is ready for a fresh auditor run, and the `dispatch` event (docs/reference.md#driving-the-loop).

use crate::record_support;

use auditloop::engine::record::{load_record, replay, to_json, AuditState, EventKind};
use auditloop::engine::report::Verdict;
use auditloop::engine::transition::{self as t, DispatchDecision, NotReady};
use record_support::{ctx_at, sha, Fx};

#[test]
fn ready_means_open_with_runs_left_on_the_head_with_evidence() {
    let mut fx = Fx::new();
    let head = fx.record.candidate_artifact.clone();
    let plan = t::ready(&fx.record, &head, true).unwrap();
    assert_eq!((plan.candidate.clone(), plan.run), (head.clone(), 1));
    assert_eq!(
        t::ready(&fx.record, &head, false),
        Err(NotReady::NoEvidence)
    );
    assert_eq!(t::ready(&fx.record, &sha(9), true), Err(NotReady::NotHead));
    fx.submit(Verdict::NeedsHumanDecision);
    assert_eq!(
        t::ready(&fx.record, &head, true),
        Err(NotReady::State(AuditState::AwaitingHuman))
    );
    let mut fx = Fx::new();
    fx.submit(Verdict::Certified);
    assert_eq!(
        t::ready(&fx.record, &head, true),
        Err(NotReady::State(AuditState::Certified))
    );
    let mut fx = Fx::new();
    fx.record.audit_budget = 1;
    fx.submit(Verdict::NeedsRemediation);
    assert_eq!(
        t::ready(&fx.record, &head, true),
        Err(NotReady::State(AuditState::Blocked))
    );
}

#[test]
fn one_dispatch_per_candidate_and_run_sent_only_by_the_delivery_that_recorded_it() {
    let mut fx = Fx::new();
    let head = fx.record.candidate_artifact.clone();
    let ours = ctx_at(50, "auditloop[bot]");
    let plan = t::ready(&fx.record, &head, true);
    let applied = match t::decide_dispatch(
        &fx.record,
        plan.clone(),
        "auditloop-audit",
        Some("abc"),
        &ours,
    )
    .unwrap()
    {
        DispatchDecision::Record(a) => *a,
        other => panic!("{other:?}"),
    };
    let EventKind::Dispatch(d) = &applied.event.kind else {
        panic!()
    };
    assert_eq!(
        (d.candidate_artifact.clone(), d.run, d.event_type.as_str()),
        (head.clone(), 1, "auditloop-audit")
    );
    assert_eq!(d.records_commit.as_deref(), Some("abc"));
    // A dispatch changes no derived field, chains like any event, and loads back.
    assert_eq!(applied.record.audit_state, fx.record.audit_state);
    replay(&applied.record.history).unwrap();
    load_record(&to_json(&applied.record)).unwrap();
    fx.keep(applied);

    let again =
        t::decide_dispatch(&fx.record, plan.clone(), "auditloop-audit", None, &ours).unwrap();
    assert!(matches!(again, DispatchDecision::Resend(_)), "{again:?}");
    let other = ctx_at(51, "auditloop[bot]");
    let theirs = t::decide_dispatch(&fx.record, plan, "auditloop-audit", None, &other).unwrap();
    assert_eq!(theirs, DispatchDecision::AlreadyAsked);
    // The payload has the reference's eight properties (GitHub allows ten).
    let (_, d) = fx.record.dispatches().next().unwrap();
    let payload = t::client_payload(&fx.record, d, "auditloop-records");
    assert_eq!(payload.as_object().unwrap().len(), 8);
    assert_eq!(fx.record.awaited_dispatch().map(|(_, d)| d.run), Some(1));
    fx.submit(Verdict::NeedsRemediation);
    assert!(
        fx.record.awaited_dispatch().is_none(),
        "the report ends the wait"
    );
}
