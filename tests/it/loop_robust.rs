//! The loop under stress and failure, through the real server and the fake GitHub:
//! concurrent commands, foreign pushes to the records branch, GitHub failing mid-command
//! and the redelivery that follows, events the app must ignore, hostile report text, and a
//! records branch that disappeared.

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, BRANCH, SHA1, SHA2};
use support::deliveries::{pr_comment, REPO};
use support::layouts::{record_file, report_file};

const NEW: &str = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";

/// PR 42 opened, with record AUD-1.
async fn with_record() -> Loop {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.comment(42, "alice", NEW).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

/// PR 42 with AUD-1 and one accepted `needs_remediation` run (findings ).
async fn with_run() -> Loop {
    let mut l = with_record().await;
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

fn veto_events(l: &Loop, id: &str) -> Vec<serde_json::Value> {
    l.history(id)
        .into_iter()
        .filter(|e| e["type"] == "veto")
        .collect()
}

#[tokio::test]
async fn twenty_concurrent_commands_on_one_pr_each_land_once_on_a_linear_branch() {
    let l = with_run().await;
    let before = l.log().len();
    let mut comments = Vec::new();
    for n in 0..20 {
        let body = match n % 4 {
            0 | 1 => format!("/audit veto key-{n} --reason \"must be fixed, case {n}\""),
            2 => format!("/audit veto key-{n} --from-round 3 --reason \"later, case {n}\""),
            _ => format!(
                "/audit override --budget {} --note \"more runs, case {n}\"",
                4 + n
            ),
        };
        comments.push((format!("burst-{n}"), 42, "maint", body));
    }
    let statuses = l.comments_concurrently(&comments).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    for (id, ..) in &comments {
        assert_eq!(l.events_of("AUD-1", id), 1, "{id} recorded exactly once");
    }
    assert_eq!(veto_events(&l, "AUD-1").len(), 15);
    let log = l.log();
    assert_eq!(log.len(), before + 20, "one commit per command: {log:#?}");
    assert_eq!(l.history("AUD-1").len(), 2 + 20);
    // The overrides were applied in some order, each validated on the state it saw.
    assert!(l.record("AUD-1")["audit_budget"].as_u64().unwrap() >= 7);
}

#[tokio::test]
async fn concurrent_commands_on_two_prs_take_turns_on_the_shared_branch_and_all_land() {
    let mut l = with_record().await;
    l.gh.add_pull(43, SHA2, "Second change.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 43, SHA2).await;
    l.comment(43, "alice", NEW).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    let before = l.log().len();
    let updates_before = ref_updates(&l);
    let mut comments = Vec::new();
    for n in 0..20u64 {
        let pr = 42 + n % 2;
        comments.push((
            format!("split-{n}"),
            pr,
            "maint",
            format!("/audit veto key-{n} --reason \"must be fixed, case {n}\""),
        ));
    }
    // Every answer a little late, so that the two PRs' writers overlap for real however
    // fast the records cache makes a read.
    l.gh.set_delay(std::time::Duration::from_millis(20));
    let statuses = l.comments_concurrently(&comments).await;
    l.gh.set_delay(std::time::Duration::ZERO);
    // On a busy machine a delivery may wait past the lane's 3 s and be queued (`202`, as the
    // contract allows); the queue carries it out.
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 202),
        "{statuses:?}"
    );
    let landed = |l: &Loop| {
        comments
            .iter()
            .all(|(id, pr, ..)| l.events_of(if *pr == 42 { "AUD-1" } else { "AUD-2" }, id) == 1)
    };
    for _ in 0..600 {
        if landed(&l) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        l.refusals(42).is_empty() && l.refusals(43).is_empty(),
        "{:?} {:?}",
        l.refusals(42),
        l.refusals(43)
    );
    for (n, (id, pr, ..)) in comments.iter().enumerate() {
        let audit = if *pr == 42 { "AUD-1" } else { "AUD-2" };
        assert_eq!(l.events_of(audit, id), 1, "case {n} once in {audit}");
    }
    assert_eq!(veto_events(&l, "AUD-1").len(), 10);
    assert_eq!(veto_events(&l, "AUD-2").len(), 10);
    assert_eq!(l.log().len(), before + 20, "linear, one commit each");
    let attempts = ref_updates(&l) - updates_before;
    println!("ref updates for 20 commits on two PRs: {attempts}");
    // The two PRs' deliveries run side by side, but their writes to the one records branch
    // take turns inside the process: no update loses a race and is made again. (Replicas
    // still meet at the compare-and-swap: see `harden_process` and `records_write`.)
    assert_eq!(attempts, 20, "one ref update per commit");
}

fn ref_updates(l: &Loop) -> usize {
    l.gh.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.contains("/graphql/createCommitOnBranch"))
        .count()
}

#[tokio::test]
async fn a_foreign_push_before_the_ref_update_is_kept_and_the_command_applied_again() {
    let mut l = with_record().await;
    l.gh.move_ref_once(
        REPO,
        BRANCH,
        &[("NOTES.md", "kept by hand\n")],
        "A note by hand",
    );
    l.comment(
        42,
        "maint",
        "/audit veto webhook-replay --reason \"must be fixed\"",
    )
    .await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let log = l.log();
    assert_eq!(log.len(), 3, "{log:#?}");
    assert!(log[0].starts_with("Veto webhook-replay"), "{log:#?}");
    assert_eq!(log[1], "A note by hand");
    assert_eq!(l.files()["NOTES.md"], "kept by hand\n");
    assert_eq!(veto_events(&l, "AUD-1").len(), 1);
    // The views name the commit that holds the veto.
    assert_eq!(l.gate(SHA1)["external_id"], json!(l.head().unwrap()));
}

/// How GitHub fails underneath a command.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// The views' one GraphQL mutation (body, +1, check run) answers 500.
    BodyAndReaction,
    /// The mutation that creates the check run answers 500 (an accepted report creates a
    /// fresh run).
    CheckRunPost,
    /// The mutation that updates the check run answers 500.
    CheckRunPatch,
    /// The mutation updates the body, but its reaction fails (GraphQL's 200 with an error).
    Reaction,
}

const MUTATION: &str = "/graphql/updatePullRequest,addReaction";

impl Fault {
    fn inject(self, l: &Loop) {
        let (method, path) = match self {
            Fault::BodyAndReaction => ("POST", MUTATION),
            Fault::CheckRunPost => ("POST", "createCheckRun"),
            Fault::CheckRunPatch => ("POST", "updateCheckRun"),
            Fault::Reaction => {
                l.gh.on_next("POST", MUTATION, |state| {
                    let pr = state.pulls.get_mut(&42).expect("PR 42");
                    pr["body"] = json!("a body the app wrote, then its reaction failed");
                    let id = pr["node_id"].clone();
                    Some(support::fake::reply(
                        200,
                        json!({
                            "data": {"body": {"pullRequest": {"id": id}}, "reaction": null},
                            "errors": [{"type": "NOT_FOUND", "path": ["reaction"],
                                        "message": "Could not resolve to a node"}],
                        }),
                    ))
                });
                return;
            }
        };
        l.gh.fail_next(method, path, 500, &[]);
    }
}

#[tokio::test]
async fn a_failed_write_mid_command_answers_5xx_and_the_redelivery_completes_it_once() {
    let cases: [(Fault, &str); 6] = [
        (Fault::BodyAndReaction, "veto"),
        (Fault::CheckRunPost, "report"),
        (Fault::CheckRunPatch, "veto"),
        (Fault::Reaction, "veto"),
        (Fault::BodyAndReaction, "dispose-file"),
        (Fault::Reaction, "dispose-file"),
    ];
    for (fault, command) in cases {
        let l = match command {
            "dispose-file" => with_run().await,
            _ => with_record().await,
        };
        let (body, shown) = match command {
            "report" => (
                report_comment(&report("AUD-1", 42, SHA1, "ci-run-9", "needs_remediation")),
                "ci-run-9",
            ),
            "dispose-file" => (
                "/audit dispose A-01 file --note \"tracked separately\"".to_owned(),
                "#500",
            ),
            _ => (
                "/audit veto webhook-replay --reason \"must be fixed\"".to_owned(),
                "webhook-replay",
            ),
        };
        let commits = l.log().len();
        let reactions = l.reactions();
        fault.inject(&l);
        let status = l.comment_as("flaky", 42, "maint", &body).await;
        assert!(
            (500..600).contains(&status),
            "{fault:?}: GitHub failed, so the answer is 5xx, got {status}"
        );
        assert_eq!(l.events_of("AUD-1", "flaky"), 1, "{fault:?}: recorded");
        let status = l.comment_as("flaky", 42, "maint", &body).await;
        assert_eq!(status, 200, "{fault:?}: the redelivery completes");
        assert_eq!(
            l.events_of("AUD-1", "flaky"),
            1,
            "{fault:?}: not applied twice"
        );
        assert_eq!(l.log().len(), commits + 1, "{fault:?}: one commit");
        assert!(
            l.refusals(42).is_empty(),
            "{fault:?} {command}: {:?}",
            l.refusals(42)
        );
        assert_eq!(
            l.replies_for(42, "flaky"),
            0,
            "{fault:?}: no reply, a reaction"
        );
        assert!(l.reactions() > reactions, "{fault:?}: +1 once carried out");
        let filed = usize::from(command == "dispose-file");
        assert_eq!(
            l.gh.state().issues.len(),
            filed,
            "{fault:?} {command}: exactly the issues the command files"
        );
        // The views are complete: the body shows the change, the check run its commit.
        let body = l.gh.pull_body(42);
        assert!(
            body.contains(shown),
            "{fault:?}: the PR body shows {shown}: {body}"
        );
        assert_eq!(
            l.gate(SHA1)["external_id"],
            json!(l.head().unwrap()),
            "{fault:?}: the check run names the records commit"
        );
    }
}

#[tokio::test]
async fn a_lost_ref_update_answer_is_checked_not_repeated() {
    // Landed, answer lost, and someone else pushed on top: the command counts as done.
    let l = with_record().await;
    l.gh.lose_update_then_move(REPO, BRANCH, &[("NOTES.md", "on top\n")], "A push on top");
    let body = "/audit veto webhook-replay --reason \"must be fixed\"";
    assert_eq!(l.comment_as("lost-1", 42, "maint", body).await, 200);
    assert_eq!(l.events_of("AUD-1", "lost-1"), 1);
    let log = l.log();
    assert_eq!(log.len(), 3, "{log:#?}");
    assert_eq!(log[0], "A push on top");
    assert!(log[1].starts_with("Veto webhook-replay"));
    assert_eq!(l.files()["NOTES.md"], "on top\n");

    // Landed, answer lost, nobody else moved it.
    let l = with_record().await;
    l.gh.lose_next_answer("POST", "/graphql/createCommitOnBranch");
    assert_eq!(l.comment_as("lost-2", 42, "maint", body).await, 200);
    assert_eq!(l.events_of("AUD-1", "lost-2"), 1);
    assert_eq!(l.log().len(), 2);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
}

#[tokio::test]
async fn a_refusal_redelivered_posts_no_second_reply() {
    let l = with_record().await;
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let head = l.head();
    // Same server: the delivery id is known.
    assert_eq!(l.comment_as("refuse-1", 42, "reader", veto).await, 200);
    assert_eq!(l.comment_as("refuse-1", 42, "reader", veto).await, 200);
    assert_eq!(l.replies_for(42, "refuse-1"), 1);
    let reply = &l.refusals(42)[0];
    assert!(reply.starts_with("auditloop: refused"), "{reply}");
    assert!(reply.contains("maintain"), "names what is missing: {reply}");

    // A restarted server has forgotten the id: the marker on the PR stops a second reply.
    let restarted = support::harness::TestApp::start(&l.gh).await;
    let r = restarted
        .deliver("issue_comment", "refuse-1", &pr_comment(42, "reader", veto))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(l.replies_for(42, "refuse-1"), 1);

    // The reply was posted but its answer lost: the holder looks and finds it, so the
    // delivery is answered; a redelivery posts nothing more.
    l.gh.lose_next_answer("POST", "/issues/42/comments");
    assert_eq!(l.comment_as("refuse-2", 42, "reader", veto).await, 200);
    assert_eq!(l.comment_as("refuse-2", 42, "reader", veto).await, 200);
    assert_eq!(l.replies_for(42, "refuse-2"), 1);
    assert_eq!(l.head(), head, "a refusal writes nothing");
}

#[tokio::test]
async fn the_apps_own_comments_edits_and_review_comments_are_ignored() {
    let l = with_record().await;
    let head = l.head();
    let comments = l.gh.comments_on(42).len();
    let reactions = l.reactions();

    let mut own = pr_comment(
        42,
        "auditloop-test[bot]",
        "/audit veto webhook-replay --reason \"x y\"",
    );
    own["comment"]["user"]["type"] = json!("Bot");
    own["sender"] = own["comment"]["user"].clone();
    let mut edited = pr_comment(42, "maint", "/audit veto webhook-replay --reason \"x y\"");
    edited["action"] = json!("edited");
    let mut review = pr_comment(42, "maint", "/audit veto webhook-replay --reason \"x y\"");
    review["action"] = json!("created");
    review["pull_request"] = json!({"number": 42});
    for (event, id, payload) in [
        ("issue_comment", "own", &own),
        ("issue_comment", "edited", &edited),
        ("pull_request_review_comment", "review", &review),
    ] {
        let requests = l.request_count();
        let r = l.app.deliver(event, id, payload).await;
        assert_eq!(r.status(), 200, "{id}");
        let text = r.text().await.unwrap();
        assert!(text.contains("ignored"), "{id}: {text}");
        assert_eq!(l.head(), head, "{id}: nothing recorded");
        assert_eq!(l.gh.comments_on(42).len(), comments, "{id}: no reply");
        assert_eq!(l.reactions(), reactions, "{id}: no reaction");
        let calls: Vec<String> = l.gh.requests()[requests..]
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .filter(|c| !c.contains("/access_tokens") && c != "GET /app")
            .collect();
        assert!(
            calls.is_empty(),
            "{id}: no GitHub call beyond who-am-I: {calls:?}"
        );
    }
}

const HOSTILE: &str =
    "Ends a marker --> <!-- auditloop:rounds:end --> <script>alert(1)</script> pings @octocat | a | b";

#[tokio::test]
async fn hostile_report_text_leaves_the_markers_intact_and_runs_nothing() {
    let mut l = with_record().await;
    let mut first = report("AUD-1", 42, SHA1, "ci-run-1|x", "needs_remediation");
    for f in first["findings"].as_array_mut().unwrap() {
        f["claim"] = json!(HOSTILE);
        f["consequence"] = json!(HOSTILE);
    }
    first["perspectives"]["risk"] = json!(HOSTILE);
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let waive = format!("/audit waive A-02 --basis triage-threshold --reason \"{HOSTILE}\"");
    l.comment(42, "maint", &waive).await;
    let reject = format!("/audit dispose A-01 reject --note \"{HOSTILE}\"");
    l.comment(42, "maint", &reject).await;
    let veto = format!("/audit veto webhook-replay --reason \"{HOSTILE}\"");
    l.comment(42, "maint", &veto).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l.comment(42, "reader", "/audit status").await;

    let body = l.gh.pull_body(42);
    for section in ["rounds", "waivers", "residual"] {
        for end in ["start", "end"] {
            let marker = format!("<!-- auditloop:{section}:{end} -->");
            assert_eq!(body.matches(&marker).count(), 1, "{marker} once in {body}");
        }
    }
    assert_eq!(
        body.matches("<!-- auditloop:records:").count(),
        1,
        "one records stamp: {body}"
    );
    assert_eq!(
        body.matches("-->").count(),
        7,
        "only the markers and the records stamp close comments: {body}"
    );
    let gate = l.gate(SHA1);
    let status = l.gh.comments_on(42).last().cloned().unwrap();
    for (surface, text) in [
        ("body", body.as_str()),
        (
            "check summary",
            gate["output"]["summary"].as_str().unwrap_or(""),
        ),
        ("check text", gate["output"]["text"].as_str().unwrap_or("")),
        ("status reply", status.as_str()),
    ] {
        assert!(!text.contains("<script>"), "{surface}: raw HTML in {text}");
        assert!(
            !text.contains("@octocat"),
            "{surface}: live mention in {text}"
        );
        assert!(!text.contains("a | b"), "{surface}: a raw pipe in {text}");
    }
    assert!(body.contains("webhook-replay"), "{body}");
}

#[tokio::test]
async fn a_missing_records_branch_is_recreated_at_the_newest_external_id() {
    let mut l = with_run().await;
    let head = l.head().unwrap();
    assert_eq!(l.gate(SHA1)["external_id"], json!(head));
    let history = l.history("AUD-1").len();
    let commits = l.log().len();
    l.gh.state()
        .git
        .get_mut(REPO)
        .unwrap()
        .refs
        .remove(&format!("heads/{BRANCH}"));

    // Until it is recreated, the gate fails condition 1 saying why, and keeps pointing at
    // the last records commit.
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure");
    let summary = gate["output"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("**1. One valid audit record**") && summary.contains("missing"),
        "{summary}"
    );
    assert_eq!(gate["external_id"], json!(head), "{gate:#}");

    // The next write recreates it there and continues the same history.
    l.comment(
        42,
        "maint",
        "/audit veto webhook-replay --reason \"must be fixed\"",
    )
    .await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log().len(), commits + 1, "{:#?}", l.log());
    assert_eq!(l.history("AUD-1").len(), history + 1);
    assert!(l.files().contains_key(&report_file("AUD-1", 1)));

    // A new record elsewhere continues the numbering: never AUD-1 again.
    l.gh.add_pull(43, SHA2, "Second change.\n\nCloses #13\n", "alice");
    l.comment(43, "alice", NEW).await;
    assert!(
        l.files().contains_key(&record_file("AUD-2")),
        "{:?}",
        l.files().keys()
    );
}

#[tokio::test]
async fn a_missing_branch_without_any_external_id_starts_fresh() {
    let mut l = Loop::start(42).await;
    l.comment(42, "alice", NEW).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log().len(), 1);
    assert!(l.files().contains_key(&record_file("AUD-1")));
}
