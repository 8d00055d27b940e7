//! Effects outside the records branch never double: the same delivery handled by two
//! processes at once posts one reply, opens one issue and leaves one reaction; a claim left
//! by a process that died still lets the reply through. Listings read every page. A check
//! run named like ours from another App is called out, once per head.

use crate::support;

use serde_json::json;
use support::audit::{Loop, SHA1};
use support::deliveries::pr_comment;
use support::deliveries::REPO;
use support::harness::TestApp;

const REFUSED: &str = "/audit veto webhook-replay --reason \"no\"";

#[tokio::test]
async fn the_same_delivery_on_two_replicas_at_once_replies_once() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let other = TestApp::start(&l.gh).await;
    for n in 0..4 {
        let id = format!("twice-{n}");
        // A refusal (a reader may not veto), a help and a status: each a reply.
        let body = ["/audit help", REFUSED, "/audit status", REFUSED][n];
        let payload = pr_comment(42, "reader", body);
        let (a, b) = tokio::join!(
            l.app.deliver("issue_comment", &id, &payload),
            other.deliver("issue_comment", &id, &payload)
        );
        assert_eq!(
            (a.status().as_u16(), b.status().as_u16()),
            (200, 200),
            "{body}"
        );
        assert_eq!(l.replies_for(42, &id), 1, "{body}: one reply");
    }
}

#[tokio::test]
async fn the_same_file_disposition_on_two_replicas_at_once_files_one_issue() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let other = TestApp::start(&l.gh).await;
    // The first look for the issue is answered late, so both replicas look before either
    // has opened it.
    l.gh.on_next("GET", "/issues", |state| {
        let list = state.issue_listing();
        Some(support::fake::reply(200, list).set_delay(std::time::Duration::from_millis(700)))
    });
    let payload = pr_comment(42, "maint", "/audit dispose A-01 file --note \"Tracked\"");
    let (a, b) = tokio::join!(
        l.app.deliver("issue_comment", "file-twice", &payload),
        other.deliver("issue_comment", "file-twice", &payload)
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    assert_eq!(l.gh.state().issues.len(), 1, "one issue");
    assert_eq!(l.events_of("AUD-1", "file-twice"), 1, "recorded once");
    let comment = payload["comment"]["id"].as_u64().unwrap();
    let reactions =
        l.gh.state()
            .reactions
            .iter()
            .filter(|(c, _)| *c == comment)
            .count();
    assert_eq!(reactions, 1, "one +1");
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
}

#[tokio::test]
async fn a_claim_left_by_a_dead_process_still_lets_the_reply_through_once() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    // A process claimed the reply of `orphan`, then died before posting it.
    l.gh.state()
        .git
        .entry(support::deliveries::REPO.to_owned())
        .or_default()
        .refs
        .insert(
            "auditloop/claims/orphan/reply-42-1".to_owned(),
            SHA1.to_owned(),
        );
    let payload = pr_comment(42, "reader", REFUSED);
    let r = l.app.deliver("issue_comment", "orphan", &payload).await;
    assert_eq!(r.status(), 200);
    assert_eq!(l.replies_for(42, "orphan"), 1);
    let r = l.app.deliver("issue_comment", "orphan", &payload).await;
    assert_eq!(r.status(), 200);
    assert_eq!(l.replies_for(42, "orphan"), 1, "a redelivery finds it");
}

#[tokio::test]
async fn a_reply_past_the_first_hundred_comments_is_found_on_redelivery() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    {
        let mut state = l.gh.state();
        for n in 0..130 {
            let (id, text) = (50_000 + n, format!("discussion {n}"));
            state.comments.post(REPO, id, 42, &text, "reader");
            state.seen_comments.insert(id);
        }
    }
    let payload = pr_comment(42, "reader", REFUSED);
    assert_eq!(
        l.app
            .deliver("issue_comment", "late", &payload)
            .await
            .status(),
        200
    );
    // Redelivered to a process that has not seen it (a restart, another replica).
    let restarted = TestApp::start(&l.gh).await;
    assert_eq!(
        restarted
            .deliver("issue_comment", "late", &payload)
            .await
            .status(),
        200
    );
    assert_eq!(l.replies_for(42, "late"), 1);
    let pages =
        l.gh.requests()
            .iter()
            .filter(|r| {
                r.path.ends_with("/issues/42/comments")
                    && r.method == "GET"
                    && r.query.contains("page=2")
            })
            .count();
    assert!(pages >= 1, "the second page was read");
}

#[tokio::test]
async fn a_required_check_past_the_first_hundred_runs_is_seen() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "evidence:\n  required_checks: [late-check]\n",
    );
    // Listed newest first: the required check comes after 130 matrix jobs.
    l.gh.add_ci_check(SHA1, "late-check", "completed", Some("success"));
    for n in 0..130 {
        l.gh.add_ci_check(SHA1, &format!("matrix-{n}"), "completed", Some("success"));
    }
    l.with_run("certified").await;
    let gate = l.gate(SHA1);
    assert_eq!(
        gate["conclusion"], "success",
        "{:#}",
        gate["output"]["summary"]
    );
}

#[tokio::test]
async fn a_forged_gate_from_another_app_is_called_out_once_per_head() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    l.gh.add_foreign_check(SHA1, "audit-gate", "mallory-ci", "success");
    l.comment(42, "reader", "/audit gate").await;
    l.comment(42, "reader", "/audit gate").await;
    let summary = l.gate(SHA1)["output"]["summary"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        summary.contains("not made by auditloop but by `mallory-ci`"),
        "{summary}"
    );
    assert!(summary.contains("pin"), "{summary}");
    let warnings: Vec<String> =
        l.gh.comments_on(42)
            .into_iter()
            .filter(|c| c.starts_with("auditloop: warning") && c.contains("mallory-ci"))
            .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    // Our own run is still ours: updated, not duplicated by the forged one.
    assert_eq!(l.gh.gate_runs(SHA1).len(), 1);
}

#[test]
fn a_check_event_and_a_comment_on_the_same_pr_share_one_serial_key() {
    use auditloop::events::WebhookEvent;
    let mut run = support::checks::check_run("completed", "ci", SHA1, Some("success"));
    run["check_run"]["pull_requests"] = json!([{"number": 42, "id": 1, "url": "x",
        "head": {"sha": SHA1, "ref": "f", "repo": {"id": 1, "url": "x", "name": "hello"}},
        "base": {"sha": SHA1, "ref": "main", "repo": {"id": 1, "url": "x", "name": "hello"}}}]);
    let mut suite = support::checks::check_suite_rerequested(SHA1);
    suite["check_suite"]["pull_requests"] = run["check_run"]["pull_requests"].clone();
    let comment = pr_comment(42, "alice", "/audit gate");
    let key = |name: &str, v: &serde_json::Value| {
        WebhookEvent::parse(name, &serde_json::to_vec(v).unwrap())
            .unwrap()
            .serial_key()
    };
    let on_pr = key("issue_comment", &comment);
    assert!(on_pr.ends_with("#42"), "{on_pr}");
    assert_eq!(key("check_run", &run), on_pr);
    assert_eq!(key("check_suite", &suite), on_pr);
    // A fork's check event names no PR: it serializes per repository.
    let fork = support::checks::check_run("completed", "ci", SHA1, Some("success"));
    assert!(!key("check_run", &fork).contains('#'));
}
