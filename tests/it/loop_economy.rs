//! The call economy of each command, measured by the fake from what it received: calls,
//! writes (`Recorded::is_write`: every method but GET, a GraphQL query aside), and the
//! longest chain of dependent calls (a call depends on another when it started after the
//! other's answer was sent). Every answer is delayed a little so that calls made together
//! overlap for real; no timing is asserted, only counts. The process has handled a
//! delivery before each measured one (steady state).
//! `cargo test --test it loop_economy -- --nocapture` prints the table.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1, SHA2};

const SHA3: &str = "3333333333333333333333333333333333333333";
use support::deliveries::pull_request;
use support::fake::Recorded;

/// Long enough that two calls sent together are not taken for a chain even when the test
/// binary's other tests keep a 2-core machine busy (a call sent together with another
/// would have to reach the fake this much later than it).
const DELAY: Duration = Duration::from_millis(150);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub calls: usize,
    pub writes: usize,
    pub sequential: usize,
    /// The primary rate limit spent: a point per REST call, a GraphQL document's points
    /// by GitHub's formula (`support::graphql_cost`).
    pub points: usize,
}

/// The points one recorded call costs.
fn points_of(r: &Recorded) -> usize {
    if r.graphql.is_none() {
        return 1;
    }
    let query = r.body["query"].as_str().unwrap_or_default();
    let points = support::graphql_cost::points(query, &r.body["variables"]).unwrap_or(1);
    usize::try_from(points).unwrap_or(usize::MAX)
}

/// The calls of one delivery (by its `X-GitHub-Delivery` header; the token mint excluded).
fn calls_of<'a>(requests: &'a [Recorded], id: &str) -> Vec<&'a Recorded> {
    requests
        .iter()
        .filter(|r| r.headers.get("x-github-delivery").map(String::as_str) == Some(id))
        .filter(|r| !r.path.ends_with("/access_tokens"))
        .collect()
}

/// The longest chain of calls each of which started after the previous one was answered.
pub fn longest_chain(calls: &[&Recorded]) -> usize {
    let mut sorted: Vec<&&Recorded> = calls.iter().collect();
    sorted.sort_by_key(|r| r.started);
    let mut depth = vec![1usize; sorted.len()];
    for i in 0..sorted.len() {
        for j in 0..i {
            if sorted[i].started >= sorted[j].answered {
                depth[i] = depth[i].max(depth[j] + 1);
            }
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

pub fn cost_of(requests: &[Recorded], id: &str) -> Cost {
    let calls = calls_of(requests, id);
    Cost {
        calls: calls.len(),
        writes: calls.iter().filter(|r| r.is_write()).count(),
        sequential: longest_chain(&calls),
        points: calls.iter().map(|r| points_of(r)).sum(),
    }
}

struct Table {
    rows: Vec<(String, Cost, Vec<String>)>,
    over: Vec<String>,
}

impl Table {
    fn check(&mut self, l: &Loop, what: &str, id: &str, bound: Cost) {
        let requests = l.gh.requests();
        let cost = cost_of(&requests, id);
        let of = calls_of(&requests, id);
        let t0 = of.iter().map(|r| r.started).min();
        let routes: Vec<String> = of
            .iter()
            .map(|r| {
                let at = |i: std::time::Instant| t0.map_or(0, |t| (i - t).as_millis() / 150);
                format!(
                    "{}..{} {} {}",
                    at(r.started),
                    at(r.answered),
                    r.method,
                    r.path
                )
            })
            .collect();
        assert!(cost.calls > 0, "{what}: no call carried delivery {id}");
        if cost.calls > bound.calls
            || cost.writes > bound.writes
            || cost.sequential > bound.sequential
            || cost.points > bound.points
        {
            self.over
                .push(format!("{what}: {cost:?}, bound {bound:?}: {routes:#?}"));
        }
        self.rows.push((what.to_owned(), cost, routes));
    }

    fn print(&self) {
        println!(
            "\n| command | calls | writes | sequential | points |\n| --- | --- | --- | --- | --- |"
        );
        for (what, c, _) in &self.rows {
            println!(
                "| {what} | {} | {} | {} | {} |",
                c.calls, c.writes, c.sequential, c.points
            );
        }
        if std::env::var_os("ECONOMY_ROUTES").is_some() {
            for (what, _, routes) in &self.rows {
                println!("\n{what}:\n  {}", routes.join("\n  "));
            }
        }
    }
}

/// A bound whose points are its calls: every call is a REST call or a GraphQL document of
/// 1 point.
const fn bound(calls: usize, writes: usize, sequential: usize) -> Cost {
    Cost {
        calls,
        writes,
        sequential,
        points: calls,
    }
}

/// The bounds: a command at most 6 calls, 3 writes, 3 sequential (its claim, one read, one
/// commit and one publish); `status` and `help` 4, 3 and 3; `gate` 2, 1 and 2; a PR
/// opening 2 calls; a `file` disposition, which opens an issue, 8 calls.
///
/// What the records-branch defences cost on top of the leanest answer:
/// - every command that writes reads the head's check runs before its commit (inside the
///   first reads' query): the records commit our run names is what the write must extend,
///   so a rewound or hand-edited branch is refused instead of written on;
/// - every reply (`status`, `help`) claims `refs/auditloop/claims/...` before posting
///   (+1 write), so replicas handling one delivery reply once;
/// - every command that changes a record claims its one outcome (+1 write, made with the
///   early reads, so not in the chain): a delivery is refused or carried out by one
///   handling only, across replicas and redeliveries. Its holder then posts a refusal
///   without a look or a reply claim.
/// - a push reads the PR with the early reads (inside the query): the record is rebound to the
///   head the PR has now, never to a late delivery's old one.
/// - writes go one at a time, as GitHub asks of an integration (the write governor): the
///   `+1` and the reply of `status` and `help` no longer go beside their claim, one more in
///   the chain.
///
/// What brought them down: a records commit on an existing branch is one
/// `createCommitOnBranch` (1 write, 1 in the chain), where the Git Data API took a tree, a
/// commit and a ref update (3 and 3), and its answer brings the PR's body back, where a
/// read followed; the configuration, the records ref, the PR and its head's runs are one
/// GraphQL query (`FirstReads`, 1 point), where REST took four calls; the body's update,
/// the +1 and the check run are one mutation (`Views`), where REST took three; a report
/// that may pass lists the PRs sharing its head beside its commit.
const COMMAND: Cost = bound(6, 3, 3);
const READ_ONLY: Cost = bound(4, 3, 3);

async fn command(l: &mut Loop, t: &mut Table, what: &str, login: &str, body: &str, b: Cost) {
    let id = l.comment(42, login, body).await;
    assert!(l.refusals(42).is_empty(), "{what}: {:?}", l.refusals(42));
    t.check(l, what, &id, b);
}

#[tokio::test]
async fn each_command_stays_within_its_call_economy() {
    let mut l = Loop::start(42).await;
    let mut t = Table {
        rows: Vec::new(),
        over: Vec::new(),
    };
    // Warm the process: the App's slug and the installation token are read once per start.
    let sha7 = "7777777777777777777777777777777777777777";
    l.gh.add_pull(7, sha7, "", "bob");
    l.pull_event("opened", 7, sha7).await;
    l.gh.set_delay(DELAY);

    let opened = "economy-opened";
    let mut payload = pull_request("opened", 42, SHA1);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    let r = l.app.deliver("pull_request", opened, &payload).await;
    assert_eq!(r.status(), 200);
    t.check(&l, "PR opened (no record)", opened, bound(2, 1, 2));

    let new = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";
    // The first write to a repository without a records branch first looks for one to
    // recover in the head's check runs (docs/reference.md#a-lost-or-rewound-branch): one more call and round trip.
    command(
        &mut l,
        &mut t,
        "new (first write)",
        "alice",
        new,
        bound(9, 5, 7),
    )
    .await;

    let mut first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    let mut extra = first["findings"][0].clone();
    extra["id"] = json!("A-03");
    extra["key"] = json!("413-body-2");
    first["findings"].as_array_mut().unwrap().push(extra);
    let body = report_comment(&first);
    // The PR changes the lines its blocking finding cites: the report posts its thread in
    // the views' one mutation (reference: "Review threads").
    let hunk = "\n+line".repeat(30);
    let patch = format!("@@ -79,0 +80,30 @@{hunk}");
    l.gh.set_pull_files(42, &[("src/server/webhook.rs", "modified", &patch)]);
    command(&mut l, &mut t, "report", "auditor", &body, COMMAND).await;
    assert_eq!(l.gh.review_threads(42).len(), 1, "{:#?}", l.gh.reviews(42));
    let waive = "/audit waive A-02 --basis triage-threshold --reason \"cosmetic\"";
    command(&mut l, &mut t, "waive", "maint", waive, COMMAND).await;
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    command(&mut l, &mut t, "veto", "maint", veto, COMMAND).await;
    let fix = "/audit dispose A-01 fix --note \"fixing now\"";
    command(&mut l, &mut t, "dispose fix", "maint", fix, COMMAND).await;
    // + the search that makes `file` open its issue once, + the claim that keeps replicas
    // from opening it twice, + the issue, all before the commit.
    let file = "/audit dispose A-03 file --note \"tracked separately\"";
    command(
        &mut l,
        &mut t,
        "dispose file",
        "maint",
        file,
        bound(8, 5, 6),
    )
    .await;
    let over = "/audit override --budget 5 --note \"more runs\"";
    command(&mut l, &mut t, "override", "maint", over, COMMAND).await;

    l.gh.set_pull_head(42, SHA2);
    let sync = "economy-sync";
    let mut payload = pull_request("synchronize", 42, SHA2);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    // As GitHub sends it: the heads before and after the push.
    payload["before"] = json!(SHA1);
    payload["after"] = json!(SHA2);
    let r = l.app.deliver("pull_request", sync, &payload).await;
    assert_eq!(r.status(), 200);
    // + the old head's check runs (listed with the new head's, from the payload's
    // `before`), naming the records commit the rebind must extend.
    t.check(&l, "PR synchronize (rebind)", sync, bound(4, 2, 3));

    let baseline = "/audit baseline --evidence \"CI run 2 green\"";
    command(&mut l, &mut t, "baseline", "alice", baseline, COMMAND).await;
    let mut second = report("AUD-1", 42, SHA2, "ci-run-2", "needs_human_decision");
    second["limitations"][0]
        .as_object_mut()
        .unwrap()
        .remove("authority");
    let body = report_comment(&second);
    command(
        &mut l,
        &mut t,
        "report (needs_human_decision)",
        "auditor",
        &body,
        COMMAND,
    )
    .await;
    let resolve = "/audit resolve L-01 --note \"accepted for now\"";
    command(&mut l, &mut t, "resolve", "maint", resolve, COMMAND).await;
    // The head's check runs come with the first reads: status names damaged records (a
    // rewind, a hand edit) first, judged against the records commit our run names, and
    // shows the evidence checks.
    command(
        &mut l,
        &mut t,
        "status",
        "reader",
        "/audit status",
        READ_ONLY,
    )
    .await;
    assert!(l.last_reply(42).starts_with("auditloop: status"));
    command(
        &mut l,
        &mut t,
        "gate",
        "reader",
        "/audit gate",
        // The head's check runs are read (in the first reads), never taken from memory: the
        // lineage check needs what our run names on GitHub now, the forged-gate warning
        // every run. Its +1 rides with the check run's update, one write.
        bound(2, 1, 2),
    )
    .await;
    command(&mut l, &mut t, "help", "reader", "/audit help", READ_ONLY).await;
    assert!(l.last_reply(42).starts_with("auditloop: help"));

    let refused = l
        .comment(42, "reader", "/audit veto x --reason \"not mine to give\"")
        .await;
    assert_eq!(l.refusals(42).len(), 1);
    // + the reply's claim.
    t.check(&l, "refusal (permission)", &refused, bound(4, 2, 2));

    // A second PR in steady state: its first record, then a report that certifies (a
    // passing gate also asks which open PRs share the head; that answer is the body read).
    l.gh.add_pull(43, SHA3, "Hardens intake.\n\nCloses #13\n", "alice");
    let opened = "economy-opened-43";
    let mut payload = pull_request("opened", 43, SHA3);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(43));
    let r = l.app.deliver("pull_request", opened, &payload).await;
    assert_eq!(r.status(), 200);
    // A head this process has not seen: its check runs are listed once.
    t.check(&l, "PR opened (records exist)", opened, bound(2, 1, 2));
    let id = l.comment(43, "alice", new).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    t.check(&l, "new", &id, COMMAND);
    let mut certified = report("AUD-2", 43, SHA3, "ci-run-43", "certified");
    certified["covered_tasks"] = json!(["#13"]);
    let id = l.comment(43, "auditor", &report_comment(&certified)).await;
    assert!(l.refusals(43).is_empty(), "{:?}", l.refusals(43));
    assert_eq!(l.gate(SHA3)["conclusion"], "success", "{:#}", l.gate(SHA3));
    t.check(&l, "report (certifies)", &id, COMMAND);
    t.print();
    assert!(t.over.is_empty(), "{:#?}", t.over);
}

/// What a write costs when it starts from a records commit the other replica made: each
/// delivery goes to the replica that did not handle the one before (the Deployment's
/// Service spreads deliveries over its two replicas). A replica whose last look found the
/// branch moved (or that never read it) asks the first reads' query for the commit's
/// listing, the index and the PR's record (the one its last look at the index named, or
/// else the one the PR body's stamp names), so the turn costs what a command costs in one
/// process.
const TURNS: Cost = COMMAND;

#[tokio::test]
async fn two_replicas_taking_turns_stay_within_their_economy() {
    let mut l = Loop::start(42).await;
    let mut other = support::harness::TestApp::start(&l.gh).await;
    let mut t = Table {
        rows: Vec::new(),
        over: Vec::new(),
    };
    // Warm both processes: the App's slug and the installation token, once per start.
    for (n, sha) in [
        (7, "7777777777777777777777777777777777777777"),
        (8, "8888888888888888888888888888888888888888"),
    ] {
        l.gh.add_pull(n, sha, "", "bob");
        l.pull_event("opened", n, sha).await;
        std::mem::swap(&mut l.app, &mut other);
    }
    l.pull_event("opened", 42, SHA1).await;
    let new = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";
    std::mem::swap(&mut l.app, &mut other);
    l.comment(42, "alice", new).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l.gh.set_delay(DELAY);

    let mut first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    let mut extra = first["findings"][0].clone();
    extra["id"] = json!("A-03");
    extra["key"] = json!("413-body-2");
    first["findings"].as_array_mut().unwrap().push(extra);
    let steps: Vec<(&str, &str, String, Cost)> = vec![
        ("report", "auditor", report_comment(&first), TURNS),
        (
            "waive",
            "maint",
            "/audit waive A-02 --basis triage-threshold --reason \"cosmetic\"".into(),
            TURNS,
        ),
        (
            "veto",
            "maint",
            "/audit veto webhook-replay --reason \"must be fixed\"".into(),
            TURNS,
        ),
        (
            "dispose fix",
            "maint",
            "/audit dispose A-01 fix --note \"fixing now\"".into(),
            TURNS,
        ),
        (
            "override",
            "maint",
            "/audit override --budget 5 --note \"more runs\"".into(),
            TURNS,
        ),
        ("status", "reader", "/audit status".into(), READ_ONLY),
        ("gate", "reader", "/audit gate".into(), bound(2, 1, 2)),
    ];
    for (what, login, body, b) in steps {
        std::mem::swap(&mut l.app, &mut other);
        command(&mut l, &mut t, what, login, &body, b).await;
        if what == "status" {
            assert!(l.last_reply(42).starts_with("auditloop: status"));
        }
    }
    t.print();
    assert!(t.over.is_empty(), "{:#?}", t.over);
}

/// `status` skips the look for an earlier reply when its +1 is new; when the +1 was there
/// already (an attempt got that far), it looks, so a reply is never posted twice.
#[tokio::test]
async fn a_status_redelivered_after_its_reply_was_posted_replies_once() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    l.gh.lose_next_answer("POST", "/issues/42/comments");
    let payload = support::deliveries::pr_comment(42, "reader", "/audit status");
    let first = l
        .app
        .deliver("issue_comment", "status-lost", &payload)
        .await;
    assert_eq!(first.status(), 502, "the reply's answer was lost");
    let again = l
        .app
        .deliver("issue_comment", "status-lost", &payload)
        .await;
    assert_eq!(again.status(), 200);
    let replies: Vec<String> =
        l.gh.comments_on(42)
            .into_iter()
            .filter(|c| c.starts_with("auditloop: status"))
            .collect();
    assert_eq!(replies.len(), 1, "{replies:#?}");
}

/// The cost of the commands that end a record and of a report marked recurring, with the
/// pattern library kept and with `patterns: false`: the library and the Lessons ride in the
/// commit the change makes anyway, and the library is read with the record (its text is
/// known to the process that wrote it), so they add no call.
#[tokio::test]
async fn patterns_and_lessons_add_no_call() {
    async fn costs(config: Option<&str>) -> Vec<(String, Cost)> {
        let mut l = Loop::start(42).await;
        if let Some(text) = config {
            l.gh.set_file(".github/auditloop.yml", text);
        }
        l.pull_event("opened", 42, SHA1).await;
        l.gh.set_delay(DELAY);
        let new = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";
        let mut out = Vec::new();
        let mut step = |l: &Loop, what: &str, id: &str| {
            out.push((what.to_owned(), cost_of(&l.gh.requests(), id)));
        };
        l.comment(42, "alice", new).await;
        let raised = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
        l.comment(42, "auditor", &report_comment(&raised)).await;
        let mut fixed = report("AUD-1", 42, SHA1, "ci-run-2", "certified");
        fixed["findings"]
            .as_array_mut()
            .unwrap()
            .retain(|f| f.get("key").is_none());
        let id = l.comment(42, "auditor", &report_comment(&fixed)).await;
        assert_eq!(l.record("AUD-1")["audit_state"], "certified");
        step(&l, "report (certifies, creates a pattern)", &id);
        l.gh.add_pull(43, SHA3, "Hardens intake.\n\nCloses #13\n", "alice");
        l.pull_event("opened", 43, SHA3).await;
        l.comment(43, "alice", new).await;
        let mut again = report("AUD-2", 43, SHA3, "ci-run-43", "needs_remediation");
        again["covered_tasks"] = json!(["#13"]);
        let id = l.comment(43, "auditor", &report_comment(&again)).await;
        let text = l.gate(SHA3)["output"]["text"].to_string();
        assert_eq!(text.contains("recurring"), config.is_none(), "{text}");
        step(&l, "report (marked recurring)", &id);
        let id = l.comment(43, "alice", "/audit gate").await;
        step(&l, "gate (marked recurring)", &id);
        assert!(l.refusals(42).is_empty() && l.refusals(43).is_empty());
        out
    }
    let with = costs(None).await;
    let without = costs(Some("patterns: false\n")).await;
    println!("\n| command | with patterns | patterns: false |\n| --- | --- | --- |");
    for ((what, a), (_, b)) in with.iter().zip(&without) {
        println!("| {what} | {a:?} | {b:?} |");
    }
    for ((what, a), (_, b)) in with.iter().zip(&without) {
        assert_eq!(
            (a.calls, a.writes),
            (b.calls, b.writes),
            "{what}: patterns cost calls"
        );
        assert!(a.sequential <= b.sequential, "{what}: {a:?} against {b:?}");
    }
}

/// `status` claims its reply with the first reads; when those fail, the claim is given
/// back, so the redelivery wins it at once and replies once, instead of waiting out a
/// claim nobody will act on.
#[tokio::test]
async fn a_status_whose_first_reads_fail_gives_its_early_claim_back() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    l.gh.fail_next("POST", "/graphql/repository", 403, &[]);
    let payload = support::deliveries::pr_comment(42, "reader", "/audit status");
    let first = l.app.deliver("issue_comment", "status-403", &payload).await;
    assert!(first.status().is_server_error(), "{}", first.status());
    let claims: Vec<String> = l.gh.state().git[support::deliveries::REPO]
        .refs
        .keys()
        .filter(|r| r.contains("claims/status-403/"))
        .cloned()
        .collect();
    assert!(claims.is_empty(), "given back: {claims:?}");
    let started = std::time::Instant::now();
    let again = l.app.deliver("issue_comment", "status-403", &payload).await;
    assert_eq!(again.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "no wait on a claim held by nobody"
    );
    let replies = l.gh.comments_on(42);
    let status: Vec<_> = replies
        .iter()
        .filter(|c| c.starts_with("auditloop: status"))
        .collect();
    assert_eq!(status.len(), 1, "{replies:#?}");
}

/// A first reads' query that asked for the records files and got a 5xx (GitHub gives up on
/// a query it cannot answer in time) is not tried again as it is: it is asked without
/// them at once, and the command is carried out, its records read through REST.
#[tokio::test]
async fn first_reads_that_fail_with_the_records_files_are_asked_without_them() {
    let mut l = Loop::start(42).await;
    // The first write leaves this process unsure whether someone else writes too, so the
    // next first reads ask for the records files.
    l.new_record(42).await;
    l.gh.fail_next("POST", "/graphql/repository", 502, &[]);
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let id = l.comment(42, "maint", veto).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.events_of("AUD-1", &id), 1);
    let asked: Vec<bool> = calls_of(&l.gh.requests(), &id)
        .iter()
        .filter(|r| r.path.ends_with("/graphql/repository"))
        .map(|r| r.body["variables"]["files"] == true)
        .collect();
    assert_eq!(asked, [true, false], "at the first 5xx, asked without");
}

/// The PR body's stamp only guesses which record to read ahead: a description that names
/// another record (edited by anyone) makes the query fetch that file too, and nothing
/// else. The index decides which record the command works on.
#[tokio::test]
async fn a_body_stamp_naming_another_record_only_changes_what_is_read_ahead() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    // A process that never read the branch: it asks the query for the records files.
    let fresh = support::harness::TestApp::start(&l.gh).await;
    let body = l.gh.pull_body(42);
    let stamp = body
        .lines()
        .find(|line| line.starts_with("<!-- auditloop:records:"))
        .expect("the body's stamp")
        .to_owned();
    let forged = body.replace(&stamp, &stamp.replace("AUD-1", "AUD-9"));
    assert_ne!(forged, body);
    l.gh.set_pull_body(42, &forged);
    let veto = "/audit veto webhook-replay --reason \"must be fixed\"";
    let mut payload = support::deliveries::pr_comment(42, "maint", veto);
    payload["issue"]["body"] = json!(forged);
    let r = fresh
        .deliver("issue_comment", "forged-stamp", &payload)
        .await;
    assert_eq!(r.status(), 200);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(
        l.events_of("AUD-1", "forged-stamp"),
        1,
        "on the record the index names"
    );
    let asked: Vec<String> = calls_of(&l.gh.requests(), "forged-stamp")
        .iter()
        .filter(|r| r.path.ends_with("/graphql/repository"))
        .filter(|r| {
            let query = r.body["query"].as_str().unwrap_or_default();
            query.starts_with("query FirstReads")
        })
        .map(|r| {
            r.body["variables"]["record"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    let forged =
        auditloop::engine::layout::record_path(&auditloop::engine::ids::AuditId::from_number(9));
    assert_eq!(asked, [forged]);
}

/// `help` reads no records, so its first reads never ask for the records files, even where
/// a command's would: right after this process's first write, which leaves it unsure
/// whether someone else writes too (see
/// `first_reads_that_fail_with_the_records_files_are_asked_without_them`).
#[tokio::test]
async fn help_never_asks_for_the_records_files() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let id = l.comment(42, "reader", "/audit help").await;
    assert!(l.last_reply(42).starts_with("auditloop: help"));
    let asked: Vec<bool> = calls_of(&l.gh.requests(), &id)
        .iter()
        .filter(|r| r.path.ends_with("/graphql/repository"))
        .map(|r| r.body["variables"]["files"] == true)
        .collect();
    assert_eq!(asked, [false]);
}

/// The sum of the write governor's waits so far, from `/metrics`.
async fn governor_waits(app: &support::harness::TestApp) -> f64 {
    let (_, text) = app.get_text("/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix("auditloop_write_wait_seconds_sum "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// At the operator's default write gap (a write a second), a quiet installation's command
/// sends its own writes together: none waits for the gap after the one before, and the
/// calls and round trips are those above (docs/reference.md#writes-at-githubs-pace).
#[tokio::test]
async fn a_quiet_command_at_the_default_write_gap_does_not_wait_on_its_own_writes() {
    let mut l = Loop::start(42).await;
    l.new_record(42).await;
    let app = support::harness::TestApp::start_spaced(&l.gh, Duration::from_secs(1)).await;
    let mut t = Table {
        rows: Vec::new(),
        over: Vec::new(),
    };
    // Steady state: the process has handled a delivery of this PR before (the App's slug,
    // the installation token, the PR's head and records).
    let mut warm = support::deliveries::pr_comment(42, "reader", "/audit gate");
    warm["issue"]["body"] = json!(l.gh.pull_body(42));
    assert_eq!(
        app.deliver("issue_comment", "quiet-warm", &warm)
            .await
            .status(),
        200
    );
    l.gh.set_delay(DELAY);
    for (id, login, body, b) in [
        (
            "quiet-report",
            "auditor",
            report_comment(&report(
                "AUD-1",
                42,
                SHA1,
                "ci-quiet-1",
                "needs_remediation",
            )),
            // + the diff its blocking finding's thread needs.
            bound(6, 3, 3),
        ),
        (
            "quiet-status",
            "reader",
            "/audit status".to_owned(),
            READ_ONLY,
        ),
    ] {
        // A quiet spell: the burst is back.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let before = governor_waits(&app).await;
        let mut payload = support::deliveries::pr_comment(42, login, &body);
        payload["issue"]["body"] = json!(l.gh.pull_body(42));
        let r = app.deliver("issue_comment", id, &payload).await;
        assert_eq!(r.status(), 200, "{id}");
        let waited = governor_waits(&app).await - before;
        assert!(
            waited < 0.2,
            "{id}: its writes waited {waited:.3} s on the governor"
        );
        t.check(&l, id, id, b);
    }
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert!(l.last_reply(42).starts_with("auditloop: status"));
    t.print();
    assert!(t.over.is_empty(), "{:#?}", t.over);
}
