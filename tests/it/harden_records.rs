//! Failing closed on the records branch: a legal but unusual branch name works end to end;
//! a rewound branch, a hand-edited record (any event, or not JSON), an index that
//! disagrees with the records, are each detected: the gate fails saying what was found
//! and how to repair it, writes are refused with the same words, no delivery is a 5xx and
//! `/audit status` still answers, naming the damage first. A view computed from an older
//! records commit never replaces a newer one.

use crate::support;

use auditloop::engine::layout::{shard_path, IndexMap, NEXT_PATH};
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, BRANCH, SHA1};
use support::deliveries::REPO;
use support::fake::APP_SLUG;
use support::layouts::record_file;
use support::steps::new_command;

const VETO: &str = "/audit veto webhook-replay --from-round 1 --reason \"Replay must be fixed\"";

#[tokio::test]
async fn a_records_branch_named_with_plus_and_hash_works_end_to_end() {
    let branch = "audit+records#1";
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        &format!("records_branch: \"{branch}\"\n"),
    );
    l.pull_event("opened", 42, SHA1).await;
    l.ok("alice", &new_command(""), false).await;
    let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    let files = l.gh.branch_files(REPO, branch);
    let record = auditloop::engine::record::load_record(&files[&record_file("AUD-1")]).unwrap();
    assert_eq!(record.runs_used(), 1);
    assert_eq!(l.gh.branch_log(REPO, branch).len(), 2);
    assert!(l.gh.branch_head(REPO, BRANCH).is_none(), "no other branch");
    // The ref went into the path encoded, never as a fragment, and into the commit whole.
    let requests = l.gh.requests();
    assert!(requests
        .iter()
        .any(|r| r.method == "GET" && r.path.ends_with("/git/ref/heads/audit%2Brecords%231")));
    assert!(requests
        .iter()
        .any(|r| r.path.ends_with("/createCommitOnBranch")
            && r.body["variables"]["input"]["branch"]["branchName"] == branch));
    let gate = l.gate(SHA1);
    assert_eq!(
        gate["external_id"],
        json!(l.gh.branch_head(REPO, branch).unwrap())
    );
    assert!(
        gate["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("audit%2Brecords%231"),
        "the record link encodes the branch"
    );
}

#[tokio::test]
async fn a_branch_name_git_refuses_is_a_config_error_not_a_5xx() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(".github/auditloop.yml", "records_branch: \"bad..name\"\n");
    l.pull_event("opened", 42, SHA1).await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure");
    assert!(gate["output"]["summary"]
        .as_str()
        .unwrap()
        .contains("records_branch"));
    l.comment(42, "alice", &new_command("")).await;
    let refusal = l.last_reply(42);
    assert!(refusal.starts_with("auditloop: refused"), "{refusal}");
    assert!(refusal.contains("not a valid git branch name"), "{refusal}");
}

/// PR 42 certified, then a veto of a key the certified run reports: the gate fails.
/// Returns (certified commit, veto commit).
async fn certified_then_vetoed(l: &mut Loop) -> (String, String) {
    l.with_run("certified").await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    let certified = l.head().unwrap();
    l.ok("maint", VETO, true).await;
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");
    let vetoed = l.head().unwrap();
    assert_eq!(l.gate(SHA1)["external_id"], json!(vetoed));
    (certified, vetoed)
}

fn set_branch(l: &Loop, sha: Option<&str>) {
    let mut state = l.gh.state();
    let refs = &mut state.git.get_mut(REPO).unwrap().refs;
    match sha {
        Some(sha) => refs.insert(format!("heads/{BRANCH}"), sha.to_owned()),
        None => refs.remove(&format!("heads/{BRANCH}")),
    };
}

fn summary(l: &Loop) -> String {
    l.gate(SHA1)["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The damage `found` is on the gate (failing, with how to repair), in the refusal of a
/// write, and first in `/audit status`; nothing is written and no delivery is a 5xx.
async fn fails_closed(l: &mut Loop, found: &str) {
    let mark = l.mark();
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    let s = summary(l);
    assert!(s.contains(found), "gate summary lacks {found:?}:\n{s}");
    assert!(s.contains("must repair it"), "{s}");
    l.comment(
        42,
        "maint",
        "/audit override --budget 9 --note \"more runs\"",
    )
    .await;
    let refusal = l.last_reply(42);
    assert!(refusal.starts_with("auditloop: refused"), "{refusal}");
    assert!(
        refusal.contains(found),
        "refusal lacks {found:?}:\n{refusal}"
    );
    assert!(refusal.contains("must repair it"), "{refusal}");
    l.comment(42, "reader", "/audit status").await;
    let status = l.last_reply(42);
    assert!(
        status.starts_with("auditloop: status\n\n**Damaged records — "),
        "{status}"
    );
    assert!(status.contains(found), "status lacks {found:?}:\n{status}");
    assert!(status.contains("must repair it"), "{status}");
    assert_eq!(l.mark().commits, mark.commits, "nothing written");
}

#[tokio::test]
async fn a_rewound_records_branch_fails_the_gate_until_it_is_moved_forward_again() {
    let mut l = Loop::start(42).await;
    let (certified, vetoed) = certified_then_vetoed(&mut l).await;
    // Someone with push access force-moves the branch back to the certified commit.
    set_branch(&l, Some(&certified));
    fails_closed(&mut l, "was rewound or rewritten").await;
    names_the_last_good_commit_shortly(&l, &vetoed);
    let s = summary(&l);
    assert!(
        s.contains(&vetoed),
        "the repair names the commit to restore: {s}"
    );
    // The run keeps naming the newest commit GitHub saw, so the rewind stays visible.
    assert_eq!(l.gate(SHA1)["external_id"], json!(vetoed));
    l.comment(42, "reader", "/audit gate").await;
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");
    assert!(summary(&l).contains("was rewound or rewritten"));

    // Repaired: the veto is back in force, and commands work again.
    set_branch(&l, Some(&vetoed));
    l.comment(42, "reader", "/audit gate").await;
    let s = summary(&l);
    assert!(!s.contains("rewound"), "{s}");
    assert_eq!(l.gate(SHA1)["conclusion"], "failure", "the veto holds: {s}");
    l.ok(
        "maint",
        "/audit override --budget 9 --note \"more runs\"",
        true,
    )
    .await;
}

/// The gate, the refusal and `/audit status` name the last good commit by its short SHA,
/// linked to its page; the full SHA shows only in the command that restores it.
fn names_the_last_good_commit_shortly(l: &Loop, good: &str) {
    let replies = l.replies(42);
    let refusal = replies
        .iter()
        .rev()
        .find(|r| r.starts_with("auditloop: refused"))
        .unwrap();
    let status = replies
        .iter()
        .rev()
        .find(|r| r.starts_with("auditloop: status"))
        .unwrap();
    let short = &good[..7];
    for (name, view) in [
        ("gate", &summary(l)),
        ("refusal", refusal),
        ("status", status),
    ] {
        let html = crate::views_render::gfm(view);
        let seen = crate::views_render::visible(&html);
        let full = seen.matches(good).count();
        assert!(full >= 1, "{name}: {seen}");
        assert_eq!(
            full,
            seen.matches(&format!("origin {good}:")).count(),
            "{name}: {seen}"
        );
        assert!(
            seen.contains(&format!(
                "git push --force origin {good}:refs/heads/{BRANCH}"
            )),
            "{name}: {seen}"
        );
        assert!(
            html.contains(&format!(
                "<a href=\"https://github.com/{REPO}/commit/{good}\"><code>{short}</code></a>"
            )),
            "{name}: {html}"
        );
    }
}

fn edit_record(l: &Loop, edit: impl FnOnce(&mut Value)) {
    let mut record = l.record("AUD-1");
    edit(&mut record);
    let text = serde_json::to_string_pretty(&record).unwrap() + "\n";
    let path = record_file("AUD-1");
    l.gh.commit_files(REPO, BRANCH, &[(&path, &text)], "hand edit");
}

/// Edits by hand the shard of `map` that holds `key` (layout version 2's index).
fn edit_shard(l: &Loop, map: IndexMap, key: &str, edit: impl FnOnce(&mut Value)) {
    let path = shard_path(map, key);
    let mut shard: Value = serde_json::from_str(&l.files()[&path]).unwrap();
    edit(&mut shard);
    let text = serde_json::to_string_pretty(&shard).unwrap() + "\n";
    l.gh.commit_files(REPO, BRANCH, &[(&path, &text)], "hand edit");
}

#[tokio::test]
async fn every_kind_of_hand_edit_is_caught() {
    type Edit = fn(&Loop);
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "actor of the first event",
            |l| edit_record(l, |r| r["history"][0]["actor"] = json!("mallory")),
            "history event 1",
        ),
        (
            "time of the first event",
            |l| edit_record(l, |r| r["history"][0]["at"] = json!("2020-01-01T00:00:00Z")),
            "history event 1",
        ),
        (
            "verdict of the run",
            |l| edit_record(l, |r| r["history"][1]["verdict"] = json!("certified")),
            "history event 2",
        ),
        (
            "delivery of the run",
            |l| edit_record(l, |r| r["history"][1]["delivery"] = json!("forged")),
            "history event 2",
        ),
        (
            "prev of the run",
            |l| edit_record(l, |r| r["history"][1]["prev"] = json!(null)),
            "history event",
        ),
        (
            "reason of the newest event",
            |l| edit_record(l, |r| r["history"][2]["reason"] = json!("never mind")),
            "history event 3",
        ),
        (
            "actor of the newest event",
            |l| edit_record(l, |r| r["history"][2]["actor"] = json!("mallory")),
            "history event 3",
        ),
        (
            "newest event removed",
            |l| {
                edit_record(l, |r| {
                    r["history"].as_array_mut().unwrap().pop();
                });
            },
            "records/000/AUD-1.json",
        ),
        (
            "a derived field",
            |l| edit_record(l, |r| r["audit_budget"] = json!(99)),
            "records/000/AUD-1.json",
        ),
        (
            "not JSON at all",
            |l| {
                let path = record_file("AUD-1");
                l.gh.commit_files(REPO, BRANCH, &[(&path, "not json {")], "oops");
            },
            "not valid JSON",
        ),
        (
            "index names a missing record",
            |l| edit_shard(l, IndexMap::Pulls, "42", |s| s["42"] = json!("AUD-7")),
            "AUD-7",
        ),
        (
            "index maps the PR to another PR's record",
            |l| {
                edit_record(l, |r| r["pull_request"] = json!(43));
            },
            "43",
        ),
        (
            "index went back",
            |l| {
                // The next number and the shard that holds the run's invocation, as they
                // were before the record.
                edit_shard(l, IndexMap::Invocations, "ci-run-1", |s| {
                    s.as_object_mut().unwrap().remove("ci-run-1");
                });
                let next = json!({"next": 1}).to_string();
                l.gh.commit_files(REPO, BRANCH, &[(NEXT_PATH, &next)], "hand edit");
            },
            "the index on auditloop-records went back",
        ),
        (
            "an invocation dropped from its shard, the number kept",
            |l| {
                edit_shard(l, IndexMap::Invocations, "ci-run-1", |s| {
                    s.as_object_mut().unwrap().remove("ci-run-1");
                });
            },
            "the index on auditloop-records went back",
        ),
        (
            "index not JSON",
            |l| {
                l.gh.commit_files(REPO, BRANCH, &[(NEXT_PATH, "[")], "oops");
            },
            "next.json and its shards",
        ),
        (
            "index shard not JSON",
            |l| {
                let path = shard_path(IndexMap::Pulls, "42");
                l.gh.commit_files(REPO, BRANCH, &[(&path, "[")], "oops");
            },
            "next.json and its shards",
        ),
    ];
    for (what, edit, found) in cases {
        let mut l = Loop::start(42).await;
        l.with_run("needs_remediation").await;
        l.ok("maint", VETO, true).await;
        edit(&l);
        eprintln!("case: {what}");
        fails_closed(&mut l, found).await;
    }
}

#[tokio::test]
async fn status_on_a_damaged_record_says_so_first_and_how_to_repair() {
    let mut l = Loop::start(42).await;
    l.with_record().await;
    let path = record_file("AUD-1");
    l.gh.commit_files(REPO, BRANCH, &[(&path, "{")], "oops");
    l.comment(42, "reader", "/audit status").await;
    let status = l.last_reply(42);
    assert!(
        status.starts_with(&format!("auditloop: status\n\n**Damaged records — {path}")),
        "{status}"
    );
    assert!(!status.contains("No audit record exists"), "{status}");
    assert!(status.contains("must repair it"), "{status}");
}

#[tokio::test]
async fn a_view_from_an_older_records_commit_never_replaces_a_newer_one() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let runs_before = l.gh.gate_runs(SHA1).len();
    // While `/audit gate` works from the commit it read, another delivery commits and
    // publishes a view of the newer commit. GitHub resolves a query's fields one after
    // another, not from one snapshot: the records ref can be read before that commit and
    // the check runs after its view.
    l.gh.on_next("POST", "/graphql/repository", |state| {
        let read = state.git[REPO].refs[&format!("heads/{BRANCH}")].clone();
        let newer = state.git.get_mut(REPO).unwrap().commit_files(
            BRANCH,
            &[("notes.txt".to_owned(), "x".to_owned())],
            "newer [skip ci]",
        );
        let ours = state
            .check_runs
            .iter_mut()
            .rev()
            .find(|c| c.body["head_sha"] == SHA1 && c.body["app"]["slug"] == APP_SLUG)
            .unwrap();
        ours.body["external_id"] = json!(newer);
        ours.body["output"]["title"] = json!("the newer view");
        let body = json!({"query": auditloop::github::first_reads::FIRST_READS, "variables": {
            "owner": "octo-org", "name": "hello", "number": 42,
            "config": "main:.github/auditloop.yml", "records": format!("refs/heads/{BRANCH}"),
            "files": false, "listing": false, "index": "", "record": "", "withRecord": false, "patterns": "", "withCommits": false, "withThreads": false, "withSharing": false}});
        let call = support::fake_graphql::parse(state, "", "POST", "/graphql", &body)?;
        let mut answer = support::fake_graphql::answer(state, &call).body()?.clone();
        answer["data"]["repository"]["records"]["target"]["oid"] = json!(read);
        Some(support::fake::reply(200, answer))
    });
    l.comment(42, "reader", "/audit gate").await;
    let gate = l.gate(SHA1);
    assert_eq!(gate["output"]["title"], "the newer view", "{gate:#}");
    assert_eq!(l.gh.gate_runs(SHA1).len(), runs_before);
}

#[tokio::test]
async fn a_deleted_records_branch_fails_the_gate_and_status_still_answers() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let last = l.head().unwrap();
    set_branch(&l, None);
    l.comment(42, "reader", "/audit gate").await;
    let s = summary(&l);
    assert_eq!(l.gate(SHA1)["conclusion"], "failure");
    assert!(s.contains("is missing") && s.contains(&last[..7]), "{s}");
    l.comment(42, "reader", "/audit status").await;
    assert!(
        l.last_reply(42).starts_with("auditloop: status"),
        "{}",
        l.last_reply(42)
    );
    // The next write recreates the branch where it was: history continues at AUD-1.
    l.comment(42, "maint", VETO).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log().len(), 3);
    assert_eq!(l.history("AUD-1").len(), 3);
}

#[derive(Clone, Default)]
struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_push_onto_rewound_records_is_not_rebound_and_says_so_in_the_log() {
    let logs = Logs::default();
    let writer = logs.clone();
    // The test runtime runs the app on this thread, so a thread-local subscriber sees it.
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter("auditloop=warn")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut l = Loop::start(42).await;
    let (certified, vetoed) = certified_then_vetoed(&mut l).await;
    set_branch(&l, Some(&certified));
    l.gh.set_pull_head(42, support::audit::SHA2);
    l.pull_event("synchronize", 42, support::audit::SHA2).await;
    // Nothing written on the rewound branch, the new head's gate fails closed...
    assert_eq!(l.head().as_deref(), Some(certified.as_str()));
    let gate = l.gate(support::audit::SHA2);
    assert_eq!(gate["conclusion"], "failure", "{gate:#}");
    assert_eq!(gate["external_id"], json!(vetoed));
    // ...and the operator's log names the repository, the PR and why.
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("the record was not rebound"))
        .unwrap_or_else(|| panic!("no rebind warning in:\n{text}"));
    assert!(line.contains(&format!("repo={REPO}")), "{line}");
    assert!(line.contains("pr=42"), "{line}");
    assert!(line.contains("rewound or rewritten"), "{line}");
}
