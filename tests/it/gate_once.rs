//! A delivery decides everything it changes (records, dispatch) before it publishes, and
//! publishes from one evaluation of the PR's gate.

use crate::support;

use support::audit::{report, report_comment, Loop, SHA1};
use support::steps::new_command;

#[tokio::test]
async fn every_delivery_evaluates_the_gate_once_even_when_it_dispatches() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "auditor:\n  dispatch: repository_dispatch\n",
    );
    let before = l.app.app.gate_evaluations();
    l.pull_event("opened", 42, SHA1).await;
    let opened = l.app.app.gate_evaluations() - before;
    // `new` makes the record ready: its dispatch is recorded and sent in the same delivery.
    let before = l.app.app.gate_evaluations();
    l.comment(42, "alice", &new_command("")).await;
    let new = l.app.app.gate_evaluations() - before;
    assert_eq!(l.gh.dispatches().len(), 1, "the auditor was dispatched");
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));

    let certified = report("AUD-1", 42, SHA1, "ci-run-1", "certified");
    let before = l.app.app.gate_evaluations();
    l.comment(42, "auditor", &report_comment(&certified)).await;
    let reported = l.app.app.gate_evaluations() - before;
    assert_eq!(l.gate(SHA1)["conclusion"], "success", "{:#}", l.gate(SHA1));

    let before = l.app.app.gate_evaluations();
    l.pull_event("edited", 42, SHA1).await;
    let edited = l.app.app.gate_evaluations() - before;
    assert_eq!(
        (opened, new, reported, edited),
        (1, 1, 1, 1),
        "(opened, new with its dispatch, a certifying report, an edit)"
    );
}
