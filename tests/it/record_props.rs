//! Properties over random command sequences: stored derived fields equal a replay, the
//! budget is never overspent, certification stops consumption, and any edit of history
//! breaks the chain.

use crate::record_support;

use auditloop::engine::record::{load_record, replay, to_json, verify_chain, AuditState, Derived};
use proptest::prelude::*;
use record_support::*;
use serde_json::{json, Value};

fn history_of(fx: &Fx) -> Vec<Value> {
    let value: Value = serde_json::from_str(&to_json(&fx.record)).unwrap();
    value["history"].as_array().unwrap().clone()
}

fn build(ops: &[Op]) -> Fx {
    let mut fx = Fx::new();
    for op in ops {
        fx.run_op(op);
    }
    fx
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn stored_fields_equal_the_replay(ops in proptest::collection::vec(op_strategy(), 0..24)) {
        let mut fx = Fx::new();
        for op in &ops {
            fx.run_op(op);
            let replayed = replay(&fx.record.history).unwrap();
            prop_assert!(Derived::stored(&fx.record).differences(&replayed).is_empty());
        }
        let loaded = load_record(&to_json(&fx.record)).unwrap();
        prop_assert_eq!(&loaded, &fx.record);
        prop_assert_eq!(to_json(&loaded), to_json(&fx.record));
    }

    #[test]
    fn budget_is_never_overspent_and_certification_stops_it(
        ops in proptest::collection::vec(op_strategy(), 0..24)
    ) {
        let mut fx = Fx::new();
        for op in &ops {
            let was_certified = fx.record.audit_state == AuditState::Certified;
            let runs = fx.record.runs_used();
            let applied = fx.run_op(op);
            prop_assert!(fx.record.runs_used() <= fx.record.audit_budget);
            if was_certified && !matches!(op, Op::Baseline { .. }) {
                prop_assert_eq!(fx.record.runs_used(), runs, "{:?} consumed budget while certified", op);
            }
            if applied && matches!(op, Op::Failure) {
                prop_assert_eq!(fx.record.runs_used(), runs);
            }
        }
    }

    #[test]
    fn any_edit_of_history_breaks_the_chain(
        ops in proptest::collection::vec(op_strategy(), 2..16),
        pick in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
        field in any::<prop::sample::Index>(),
        how in 0u8..4,
    ) {
        let fx = build(&ops);
        let mut history = history_of(&fx);
        prop_assume!(history.len() >= 2);
        prop_assert_eq!(verify_chain(&history), Ok(()));
        // The newest event has no successor to hold its digest; every earlier one does.
        let i = pick.index(history.len() - 1);
        match how {
            0 => {
                let obj = history[i].as_object_mut().unwrap();
                let keys: Vec<String> = obj.keys().filter(|k| *k != "prev").cloned().collect();
                let k = field.get(&keys).clone();
                let old = obj[&k].clone();
                obj.insert(k, if old == json!("tampered") { json!(1) } else { json!("tampered") });
            }
            1 => {
                history[i].as_object_mut().unwrap().insert("extra".into(), json!(true));
            }
            2 => {
                history.remove(i);
            }
            _ => {
                let j = other.index(history.len());
                prop_assume!(i != j);
                history.swap(i, j);
            }
        }
        prop_assert!(verify_chain(&history).is_err());
    }
}
