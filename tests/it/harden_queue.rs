//! A burst of commands at GitHub's write pace (docs/reference.md#queued-deliveries): what
//! cannot be carried out inside GitHub's 10-second window is answered `202` at once and
//! queued, carried out at the installation's write pace in each PR's order, and never
//! lost. GitHub is played as it is: a delivery is sent once, and again only when the app's
//! own redelivery sweep asks for it.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::deliveries::pr_comment;
use support::harness::{Options, TestApp};
use support::sender::Sender;

/// GitHub counts an answer after this as a failed delivery.
const WINDOW: Duration = Duration::from_secs(10);
/// The operator's default write gap: one write a second.
const GAP: Duration = Duration::from_secs(1);

/// A report on AUD-1 of PR 42 with `n` non-blocking findings `A-01`… (no keys).
pub fn report_with_findings(n: usize, invocation: &str) -> Value {
    let mut r = report("AUD-1", 42, SHA1, invocation, "needs_remediation");
    let template = r["findings"][0].clone();
    let findings: Vec<Value> = (1..=n)
        .map(|i| {
            let mut f = template.clone();
            f["id"] = json!(format!("A-{i:02}"));
            f["blocking"] = json!(false);
            f["claim"] = json!(format!(
                "Finding number {i} is a low-severity wording issue."
            ));
            f.as_object_mut().unwrap().remove("key");
            f
        })
        .collect();
    r["findings"] = Value::Array(findings);
    r
}

/// PR 42 with its record and a run of `findings` findings, made by a quick app.
async fn recorded_run(findings: usize) -> Loop {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let body = report_comment(&report_with_findings(findings, "ci-queue-1"));
    l.comment(42, "auditor", &body).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

fn waive(i: usize) -> String {
    format!("/audit waive A-{i:02} --basis triage-threshold --reason \"Wording only, below the triage bar\"")
}

/// One delivery of a burst: its id, payload and comment id.
struct Sent {
    id: String,
    payload: Value,
    comment: u64,
}

fn waivers(n: usize, tag: &str) -> Vec<Sent> {
    (1..=n)
        .map(|i| {
            let payload = pr_comment(42, "maint", &waive(i));
            Sent {
                id: format!("{tag}-{i:02}"),
                comment: payload["comment"]["id"].as_u64().unwrap(),
                payload,
            }
        })
        .collect()
}

/// Sends every delivery at the same moment, in comment order (each leaves a few
/// milliseconds after the one before, as GitHub sends a burst); the answers and how long
/// each took.
async fn burst(sender: &Arc<Sender>, sent: &[Sent]) -> Vec<(u16, Duration)> {
    let jobs = sent.iter().enumerate().map(|(k, s)| {
        let sender = sender.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(5) * u32::try_from(k).unwrap()).await;
            let started = Instant::now();
            let status = sender.send("issue_comment", &s.id, &s.payload).await;
            (status, started.elapsed())
        }
    });
    futures::future::join_all(jobs).await
}

/// The app on `l`'s fake GitHub with `write_gap` and, when given, its redelivery sweep.
async fn serve(l: &Loop, write_gap: Duration, sweep: Option<Duration>) -> TestApp {
    TestApp::start_with_options(&l.gh, Options { write_gap, sweep }).await
}

/// Waits until `done` holds, or `within` has passed.
async fn until(within: Duration, done: impl Fn() -> bool) -> bool {
    let give_up = Instant::now() + within;
    while Instant::now() < give_up {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    done()
}

/// The deliveries of AUD-1's waiver events, in the order recorded.
fn waivers_recorded(l: &Loop) -> Vec<String> {
    l.history("AUD-1")
        .iter()
        .filter(|e| e["type"] == "waiver")
        .map(|e| e["delivery"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn assert_answered_in_time(answers: &[(u16, Duration)]) {
    for (k, (status, took)) in answers.iter().enumerate() {
        assert!(
            (200..300).contains(status),
            "delivery {k} answered {status}"
        );
        assert!(*took < WINDOW, "delivery {k} answered after {took:?}");
    }
}

/// Waits (a few seconds at most) for every command's +1, then asserts each has it.
async fn assert_thanked(l: &Loop, sent: &[Sent]) {
    let thanked = || {
        let state = l.gh.state();
        sent.iter().all(|s| state.reactions.has(s.comment, "+1"))
    };
    until(Duration::from_secs(5), thanked).await;
    assert_each_thanked(l, sent);
}

fn assert_each_thanked(l: &Loop, sent: &[Sent]) {
    let state = l.gh.state();
    let unthanked: Vec<&str> = sent
        .iter()
        .filter(|s| !state.reactions.has(s.comment, "+1"))
        .map(|s| s.id.as_str())
        .collect();
    assert!(unthanked.is_empty(), "no +1 for {unthanked:?}");
}

#[tokio::test]
async fn twenty_waivers_at_once_are_answered_in_time_and_carried_out_once_in_comment_order() {
    let l = recorded_run(20).await;
    let app = serve(&l, GAP, Some(Duration::from_secs(1))).await;
    let sender = Sender::new(&l.gh, &[&app]);
    let redelivering = sender.redeliver_in_background();
    let sent = waivers(20, "burst");
    let answers = burst(&sender, &sent).await;
    assert_answered_in_time(&answers);
    let queued = answers.iter().filter(|(s, _)| *s == 202).count();
    assert!(
        queued > 0,
        "a burst at one write a second queues: {answers:?}"
    );
    let all = until(Duration::from_secs(120), || {
        waivers_recorded(&l).len() == 20
    })
    .await;
    redelivering.abort();
    assert!(all, "recorded: {:?}", waivers_recorded(&l));
    let ids: Vec<String> = sent.iter().map(|s| s.id.clone()).collect();
    assert_eq!(waivers_recorded(&l), ids, "once each, in comment order");
    assert_thanked(&l, &sent).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    // GitHub was never asked for a redelivery: nothing failed.
    assert!(l.gh.redeliveries().is_empty(), "{:?}", l.gh.redeliveries());
    app.kill();
}

#[tokio::test]
async fn two_replicas_taking_turns_carry_out_a_burst_once_each_in_each_replicas_order() {
    let l = recorded_run(20).await;
    let one = serve(&l, GAP, Some(Duration::from_secs(1))).await;
    let two = serve(&l, GAP, Some(Duration::from_secs(1))).await;
    let sender = Sender::new(&l.gh, &[&one, &two]);
    let redelivering = sender.redeliver_in_background();
    let sent = waivers(20, "turns");
    let answers = burst(&sender, &sent).await;
    assert_answered_in_time(&answers);
    let all = until(Duration::from_secs(120), || {
        waivers_recorded(&l).len() == 20
    })
    .await;
    redelivering.abort();
    let recorded = waivers_recorded(&l);
    assert!(all, "recorded: {recorded:?}");
    let mut once = recorded.clone();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), 20, "each once: {recorded:?}");
    // Each replica carries out the deliveries it received in the order they came; the
    // two replicas' writes interleave as GitHub's compare-and-swap orders them.
    for replica in 0..2 {
        let theirs: Vec<&String> = recorded
            .iter()
            .filter(|id| {
                let n: usize = id.trim_start_matches("turns-").parse().unwrap();
                (n - 1) % 2 == replica
            })
            .collect();
        let mut sorted = theirs.clone();
        sorted.sort();
        assert_eq!(theirs, sorted, "replica {replica}'s order");
    }
    assert_thanked(&l, &sent).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    one.kill();
    two.kill();
}

#[tokio::test]
async fn a_process_killed_with_ten_deliveries_queued_has_them_carried_out_once_after_a_restart() {
    let l = recorded_run(10).await;
    // GitHub asks the installation's writes to wait an hour from its next write: the
    // first command meets it, and every one is queued.
    l.gh.limit_writes(0, Duration::from_secs(3600), Duration::from_secs(3600));
    let first = serve(&l, GAP, None).await;
    let sender = Sender::new(&l.gh, &[&first]);
    let sent = waivers(10, "killed");
    let answers = burst(&sender, &sent).await;
    assert!(
        answers.iter().all(|(s, t)| *s == 202 && *t < WINDOW),
        "{answers:?}"
    );
    first.kill();
    let limit = l.gh.state().write_limit.take().unwrap();
    assert!(limit.violations.is_empty(), "{:?}", limit.violations);
    assert!(waivers_recorded(&l).is_empty());
    // A new process: its first sweep finds the ten answered 202 with no outcome on GitHub.
    let second = serve(&l, Duration::ZERO, Some(Duration::from_secs(1))).await;
    sender.set(&[&second]);
    let redelivering = sender.redeliver_in_background();
    let all = until(Duration::from_secs(60), || waivers_recorded(&l).len() >= 10).await;
    assert!(all, "recorded: {:?}", waivers_recorded(&l));
    assert!(
        until(Duration::from_secs(5), || sent.iter().all(|s| l
            .gh
            .state()
            .reactions
            .has(s.comment, "+1")))
        .await
    );
    // Two more sweeps: nothing more is asked, the outcomes being found.
    tokio::time::sleep(Duration::from_secs(2)).await;
    redelivering.abort();
    let mut recorded = waivers_recorded(&l);
    recorded.sort();
    let ids: Vec<String> = sent.iter().map(|s| s.id.clone()).collect();
    assert_eq!(recorded, ids, "each once");
    assert_thanked(&l, &sent).await;
    for s in &sent {
        let answers = sender.answers(&s.id);
        // None of the three attempts a failed delivery gets was spent.
        assert!(
            answers.iter().all(|a| (200..300).contains(a)),
            "{}: {answers:?}",
            s.id
        );
        assert_eq!(answers.first(), Some(&202), "{}: {answers:?}", s.id);
        assert_eq!(answers.last(), Some(&200), "{}: {answers:?}", s.id);
    }
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    second.kill();
}

#[tokio::test]
async fn a_waive_sent_behind_a_queued_report_is_carried_out_after_it() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let app = serve(&l, GAP, None).await;
    let sender = Sender::new(&l.gh, &[&app]);
    // The report's first write meets GitHub's limit for 12 s: it is queued.
    l.gh.fail_next("POST", "/git/refs", 403, &[("retry-after", "12")]);
    let report = report_comment(&report_with_findings(2, "ci-behind-1"));
    let report = pr_comment(42, "auditor", &report);
    let waive = pr_comment(42, "maint", &waive(2));
    let sent = [("report-1", report), ("waive-2", waive)];
    let started = Instant::now();
    let (first, second) =
        futures::join!(sender.send("issue_comment", sent[0].0, &sent[0].1), async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            sender.send("issue_comment", sent[1].0, &sent[1].1).await
        });
    assert_eq!((first, second), (202, 202), "both queued");
    assert!(started.elapsed() < WINDOW);
    let done = until(Duration::from_secs(40), || {
        l.events_of("AUD-1", "waive-2") == 1
    })
    .await;
    assert!(done, "{:?}", l.history("AUD-1"));
    let types: Vec<String> = l
        .history("AUD-1")
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        types,
        ["created", "report", "waiver"],
        "in the order they came"
    );
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    app.kill();
}

/// Whether `body` is a records commit carrying an event of delivery `id`.
fn commit_of(id: &'static str) -> impl Fn(&Value) -> bool + Send + 'static {
    use base64::Engine as _;
    move |body: &Value| {
        let additions = &body["variables"]["input"]["fileChanges"]["additions"];
        additions.as_array().into_iter().flatten().any(|a| {
            let text = a["contents"].as_str().unwrap_or_default();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .unwrap_or_default();
            String::from_utf8_lossy(&bytes).contains(&format!("\"delivery\": \"{id}\""))
        })
    }
}

/// Answers the records commits of delivery `id` `status` (GitHub failing before the
/// effect), `times` times. A 502 leaves the commit's fate unknown: the app looks for it
/// and tries again within the handling, so one handling meets several.
fn fail_commits_of(l: &Loop, id: &'static str, status: u16, times: usize) {
    for _ in 0..times {
        l.gh.on_next_when(
            "POST",
            "/graphql/createCommitOnBranch",
            commit_of(id),
            move |_| {
                Some(support::fake::reply(
                    status,
                    json!({"message": "GitHub failed"}),
                ))
            },
        );
    }
}

#[tokio::test]
async fn a_delivery_failing_three_times_is_given_up_and_its_neighbour_is_carried_out() {
    let l = recorded_run(2).await;
    let app = serve(&l, GAP, Some(Duration::from_secs(1))).await;
    let sender = Sender::new(&l.gh, &[&app]);
    let redelivering = sender.redeliver_in_background();
    // The first waiver's commit always fails; the second's fails once, so that both are
    // redelivered by the same sweep.
    fail_commits_of(&l, "failing", 502, 200);
    fail_commits_of(&l, "neighbour", 403, 1);
    let failing = pr_comment(42, "maint", &waive(1));
    let neighbour = pr_comment(42, "maint", &waive(2));
    let (a, b) = futures::join!(sender.send("issue_comment", "failing", &failing), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        sender.send("issue_comment", "neighbour", &neighbour).await
    });
    assert!((500..600).contains(&a), "{a}");
    assert!((500..600).contains(&b) || b == 202, "{b}");
    let done = until(Duration::from_secs(40), || {
        l.events_of("AUD-1", "neighbour") == 1 && sender.answers("failing").len() >= 3
    })
    .await;
    assert!(
        done,
        "failing: {:?}, neighbour: {:?}",
        sender.answers("failing"),
        sender.answers("neighbour")
    );
    let comment = neighbour["comment"]["id"].as_u64().unwrap();
    assert!(
        until(Duration::from_secs(5), || l
            .gh
            .state()
            .reactions
            .has(comment, "+1"))
        .await
    );
    // Three sweeps more: the failing one is not asked for a fourth time.
    tokio::time::sleep(Duration::from_secs(3)).await;
    redelivering.abort();
    let answers = sender.answers("failing");
    assert_eq!(
        answers.len(),
        3,
        "given up after three attempts: {answers:?}"
    );
    assert!(
        answers.iter().all(|a| (500..600).contains(a)),
        "{answers:?}"
    );
    assert_eq!(l.events_of("AUD-1", "failing"), 0);
    assert!(
        sender.answers("neighbour").iter().all(|a| *a != 0),
        "every attempt answered: {:?}",
        sender.answers("neighbour")
    );
    // The queue does not hold what GitHub refused.
    assert!(!app.state.deliveries().knows("failing"));
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    app.kill();
}

#[tokio::test]
async fn a_command_whose_views_were_deferred_after_its_commit_gets_them_and_its_thumbs_up() {
    let mut l = recorded_run(2).await;
    // The records commit lands; the views' write then meets GitHub's limit for 12 s.
    l.gh.fail_next("POST", "addReaction", 403, &[("retry-after", "12")]);
    let payload = pr_comment(42, "maint", &waive(1));
    let comment = payload["comment"]["id"].as_u64().unwrap();
    let r = l
        .app
        .deliver("issue_comment", "views-later", &payload)
        .await;
    assert_eq!(r.status(), 202, "queued: {}", r.text().await.unwrap());
    assert_eq!(l.events_of("AUD-1", "views-later"), 1, "recorded at once");
    assert!(!l.gh.state().reactions.has(comment, "+1"));
    let thanked = until(Duration::from_secs(40), || {
        l.gh.state().reactions.has(comment, "+1")
    })
    .await;
    assert!(thanked, "the +1 in the end");
    assert_eq!(l.events_of("AUD-1", "views-later"), 1, "recorded once");
    let body = l.gh.pull_body(42);
    let waivers = body
        .split("auditloop:waivers:start")
        .nth(1)
        .unwrap_or_default();
    assert!(waivers.contains("A-01"), "{body}");
    let gate = l.gate(SHA1);
    assert!(
        gate["output"]["summary"].as_str().is_some(),
        "the check run: {gate:#}"
    );
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    // Nothing was written while GitHub said to wait.
    let _ = &mut l;
}

#[tokio::test]
async fn a_file_disposition_refused_on_its_redelivery_closes_the_issue_it_opened() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    // The issue is opened, then the records commit fails: the delivery is a 5xx.
    fail_commits_of(&l, "file-late", 403, 1);
    let body = "/audit dispose A-01 file --note \"Tracked separately\"";
    let payload = pr_comment(42, "maint", body);
    let r = l.app.deliver("issue_comment", "file-late", &payload).await;
    assert!(r.status().is_server_error(), "{}", r.status());
    let issue = l.gh.state().issues[0].clone();
    assert_eq!(issue["state"], "open");
    // A second run without A-01 is recorded before the redelivery comes.
    let mut next = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    next["findings"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["id"] != "A-01");
    l.ok("auditor", &report_comment(&next), true).await;
    let r = l.app.deliver("issue_comment", "file-late", &payload).await;
    assert_eq!(r.status(), 200);
    let refusals = l.refusals(42);
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    let number = issue["number"].as_u64().unwrap();
    assert!(
        refusals[0].contains(&format!("#{number}")) && refusals[0].contains("closed"),
        "{}",
        refusals[0]
    );
    let issues = l.gh.state().issues.clone();
    assert_eq!(issues.len(), 1, "no second issue");
    assert_eq!(
        issues[0]["state"], "closed",
        "no issue outlives the refused disposition"
    );
    let why = l.gh.comments_on(number);
    assert!(
        why.iter().any(|c| c.contains("was not recorded")),
        "{why:?}"
    );
    assert_eq!(l.events_of("AUD-1", "file-late"), 0);
}

#[tokio::test]
async fn a_status_sent_behind_queued_commands_is_answered_at_once_and_says_how_many_wait() {
    let l = recorded_run(6).await;
    let app = serve(&l, GAP, None).await;
    let sender = Sender::new(&l.gh, &[&app]);
    let sent = waivers(6, "ahead");
    let answers = burst(&sender, &sent).await;
    assert_answered_in_time(&answers);
    assert!(answers.iter().any(|(s, _)| *s == 202), "{answers:?}");
    let status = pr_comment(42, "reader", "/audit status");
    let started = Instant::now();
    let answer = sender.send("issue_comment", "status-behind", &status).await;
    assert_eq!(answer, 200, "answered before the queue drains");
    assert!(started.elapsed() < WINDOW);
    let replies: Vec<String> =
        l.gh.replies_where(42, |c| c.starts_with("auditloop: status"));
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(
        replies[0].contains("queued ahead of this one"),
        "{}",
        replies[0]
    );
    let all = until(Duration::from_secs(60), || waivers_recorded(&l).len() == 6).await;
    assert!(all, "{:?}", waivers_recorded(&l));
    app.kill();
}
