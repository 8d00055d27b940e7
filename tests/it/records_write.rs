//! Writing the records branch: one commit per change, compare-and-swap, re-applied to the
//! new state when the branch moved, never lost, never doubled.

use crate::support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use auditloop::engine::ids::RepoName;
use auditloop::records::{commit_change, Change, CommitOutcome, Files, Snapshot, MAX_ATTEMPTS};
use support::fake::FakeGitHub;

const REPO: &str = "octo/widgets";
const BRANCH: &str = "auditloop-records";
/// The records commit on an existing branch, as the fake records it.
const COMMIT: &str = "/graphql/createCommitOnBranch";

fn repo() -> RepoName {
    RepoName::new(REPO).unwrap()
}

fn all(_: &str, _: &Files) -> bool {
    true
}

fn put(files: &[(&str, &str)]) -> Change {
    Change {
        files: files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect(),
    }
}

/// Bumps `counter` and appends `line` to `log.txt`: a change that depends on the state.
fn bump(snapshot: &Snapshot, line: &str) -> Change {
    let n: u32 = snapshot
        .file("counter")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let log = format!("{}{line}\n", snapshot.file("log.txt").unwrap_or_default());
    put(&[("counter", &(n + 1).to_string()), ("log.txt", &log)])
}

/// A commit of `files` on the records branch, as one of layout version 2 holds them (a
/// branch without `layout.json` is version 1's, which the first write converts).
fn seed(gh: &FakeGitHub, files: &[(&str, &str)], message: &str) {
    let layout = auditloop::engine::record::shards::layout_json();
    let mut all = vec![(auditloop::engine::layout::LAYOUT_PATH, layout.as_str())];
    all.extend_from_slice(files);
    gh.commit_files(REPO, BRANCH, &all, message);
}

fn count(gh: &FakeGitHub, method: &str, path: &str) -> usize {
    gh.git_requests()
        .iter()
        .filter(|r| r.method == method && r.path.contains(path))
        .count()
}

async fn write(
    gh: &FakeGitHub,
    message: &str,
    apply: impl Fn(&Snapshot) -> Result<Change, String>,
) -> CommitOutcome<String> {
    gh.written_by_the_test("these tests write their own content through the records layer");
    let api = gh.installation_api("d-write").await;
    commit_change(&api, &repo(), BRANCH, message, all, apply)
        .await
        .expect("commit_change")
}

#[tokio::test]
async fn the_first_write_creates_an_orphan_branch_in_one_commit() {
    let gh = FakeGitHub::start().await;
    gh.commit_files(REPO, "main", &[("README.md", "code")], "init");
    let out = write(&gh, "AUD-1: created", |_| {
        Ok(put(&[
            ("index.json", "{}"),
            ("records/AUD-1.json", "{\"id\":1}"),
        ]))
    })
    .await;
    let CommitOutcome::Committed {
        commit,
        snapshot,
        attempts,
        ..
    } = out
    else {
        panic!("{out:?}")
    };
    assert_eq!(attempts, 1);
    assert_eq!(Some(commit.to_string()), gh.branch_head(REPO, BRANCH));
    assert_eq!(snapshot.file("records/AUD-1.json"), Some("{\"id\":1}"));
    assert_eq!(gh.branch_log(REPO, BRANCH), ["AUD-1: created [skip ci]"]);
    let files = gh.branch_files(REPO, BRANCH);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["index.json", "layout.json", "records/AUD-1.json"]
    );
    let posts = gh.git_requests();
    let commit_body = &posts
        .iter()
        .find(|r| r.path.ends_with("/git/commits"))
        .unwrap()
        .body;
    assert_eq!(
        commit_body["parents"],
        serde_json::json!([]),
        "a root commit"
    );
    let tree_body = &posts
        .iter()
        .find(|r| r.path.ends_with("/git/trees"))
        .unwrap()
        .body;
    assert!(tree_body.get("base_tree").is_none());
    let create = posts
        .iter()
        .find(|r| r.method == "POST" && r.path.ends_with("/git/refs"))
        .unwrap();
    assert_eq!(create.body["ref"], "refs/heads/auditloop-records");
    assert_eq!(count(&gh, "POST", "/git/blobs"), 0, "contents go inline");
    assert_eq!(count(&gh, "PATCH", "/git/refs"), 0);
}

#[tokio::test]
async fn a_second_write_keeps_the_other_files() {
    let gh = FakeGitHub::start().await;
    write(&gh, "one", |_| Ok(put(&[("records/AUD-1.json", "1")]))).await;
    let out = write(&gh, "two", |_| Ok(put(&[("records/AUD-2.json", "2")]))).await;
    assert!(matches!(out, CommitOutcome::Committed { .. }), "{out:?}");
    let files = gh.branch_files(REPO, BRANCH);
    assert_eq!(
        files.get("records/AUD-1.json").map(String::as_str),
        Some("1")
    );
    assert_eq!(
        files.get("records/AUD-2.json").map(String::as_str),
        Some("2")
    );
    assert_eq!(
        gh.branch_log(REPO, BRANCH),
        ["two [skip ci]", "one [skip ci]"]
    );
    // The second commit is a compare-and-swap on the head the change was made on.
    let update = gh
        .git_requests()
        .into_iter()
        .find(|r| r.path.ends_with(COMMIT))
        .unwrap();
    let first = gh.branch_messages(REPO, BRANCH).len();
    assert_eq!(first, 2);
    let input = &update.body["variables"]["input"];
    assert_eq!(input["expectedHeadOid"].as_str().map(str::len), Some(40));
    assert!(input["fileChanges"].get("deletions").is_none());
}

#[tokio::test]
async fn a_concurrent_push_is_retried_and_both_changes_are_kept() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "1"), ("log.txt", "a\n")], "a");
    gh.move_ref_once(
        REPO,
        BRANCH,
        &[("counter", "2"), ("log.txt", "a\nb\n")],
        "b",
    );
    let calls = AtomicU32::new(0);
    let out = write(&gh, "c", |s| {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok(bump(s, "c"))
    })
    .await;
    let CommitOutcome::Committed { attempts, .. } = out else {
        panic!("{out:?}")
    };
    assert_eq!(
        (attempts, calls.load(Ordering::SeqCst)),
        (2, 2),
        "applied again to the new state"
    );
    let files = gh.branch_files(REPO, BRANCH);
    assert_eq!(files["counter"], "3");
    assert_eq!(files["log.txt"], "a\nb\nc\n");
    assert_eq!(gh.branch_log(REPO, BRANCH), ["c [skip ci]", "b", "a"]);
}

#[tokio::test]
async fn a_concurrent_creation_of_the_branch_is_retried_on_top_of_it() {
    let gh = FakeGitHub::start().await;
    let layout = auditloop::engine::record::shards::layout_json();
    let first = [
        ("layout.json", layout.as_str()),
        ("counter", "1"),
        ("log.txt", "a\n"),
    ];
    gh.move_ref_once(REPO, BRANCH, &first, "a");
    let out = write(&gh, "b", |s| Ok(bump(s, "b"))).await;
    assert!(
        matches!(out, CommitOutcome::Committed { attempts: 2, .. }),
        "{out:?}"
    );
    assert_eq!(gh.branch_files(REPO, BRANCH)["log.txt"], "a\nb\n");
    assert_eq!(gh.branch_log(REPO, BRANCH), ["b [skip ci]", "a"]);
}

#[tokio::test]
async fn a_refusal_after_the_re_read_writes_nothing() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("state", "open")], "a");
    gh.move_ref_once(REPO, BRANCH, &[("state", "certified")], "certify");
    let moved_to = std::sync::Mutex::new(None);
    let out = write(&gh, "report", |s| match s.file("state") {
        Some("open") => Ok(put(&[("state", "reported")])),
        other => {
            *moved_to.lock().unwrap() = s.commit.clone();
            Err(format!("refused: {other:?}"))
        }
    })
    .await;
    assert!(
        matches!(&out, CommitOutcome::Refused(e) if e.contains("certified")),
        "{out:?}"
    );
    let head = gh.branch_head(REPO, BRANCH);
    assert_eq!(
        head,
        moved_to
            .lock()
            .unwrap()
            .as_ref()
            .map(std::string::ToString::to_string)
    );
    assert_eq!(gh.branch_files(REPO, BRANCH)["state"], "certified");
    assert_eq!(gh.branch_log(REPO, BRANCH), ["certify", "a"]);
}

#[tokio::test]
async fn a_refusal_on_the_first_read_makes_no_write_call() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("state", "open")], "a");
    let out = write(&gh, "x", |_| Err("no".to_owned())).await;
    assert!(matches!(out, CommitOutcome::Refused(_)));
    assert!(gh.git_requests().iter().all(|r| r.method == "GET"));
}

#[tokio::test]
async fn a_change_to_the_same_content_commits_nothing() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("index.json", "{}")], "a");
    let out = write(&gh, "again", |_| Ok(put(&[("index.json", "{}")]))).await;
    assert!(matches!(out, CommitOutcome::Unchanged { .. }), "{out:?}");
    assert!(gh.git_requests().iter().all(|r| r.method == "GET"));
    assert_eq!(gh.branch_log(REPO, BRANCH), ["a"]);
}

#[tokio::test]
async fn twenty_concurrent_writers_all_land_once_in_one_linear_history() {
    let gh = Arc::new(FakeGitHub::start().await);
    let api = gh.installation_api("d-many").await;
    let tasks = (0..20).map(|i| {
        let api = api.clone();
        async move {
            let line = format!("writer-{i}");
            commit_change(&api, &repo(), BRANCH, &format!("write {i}"), all, |s| {
                Ok::<_, String>(bump(s, &line))
            })
            .await
        }
    });
    let outcomes = futures::future::join_all(tasks).await;
    for out in &outcomes {
        assert!(
            matches!(out, Ok(CommitOutcome::Committed { .. })),
            "{out:?}"
        );
    }
    let files = gh.branch_files(REPO, BRANCH);
    assert_eq!(files["counter"], "20");
    let mut lines: Vec<&str> = files["log.txt"].lines().collect();
    lines.sort_unstable();
    let mut want: Vec<String> = (0..20).map(|i| format!("writer-{i}")).collect();
    want.sort();
    assert_eq!(lines, want, "each change exactly once");
    let log = gh.branch_log(REPO, BRANCH);
    assert_eq!(log.len(), 20);
    assert!(log.iter().all(|m| m.ends_with(" [skip ci]")), "{log:?}");
    // Each commit after the first names the attempt that made it, once.
    let messages = gh.branch_messages(REPO, BRANCH);
    let nonces: std::collections::BTreeSet<&str> = messages[..19]
        .iter()
        .map(|m| {
            m.lines()
                .last()
                .unwrap()
                .strip_prefix("Auditloop-Write: ")
                .unwrap()
        })
        .collect();
    assert_eq!(nonces.len(), 19, "{messages:#?}");
}

#[tokio::test]
async fn a_lost_answer_to_a_landed_update_is_not_applied_twice() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "1"), ("log.txt", "a\n")], "a");
    gh.lose_next_answer("POST", COMMIT);
    let out = write(&gh, "b", |s| Ok(bump(s, "b"))).await;
    assert!(
        matches!(out, CommitOutcome::Committed { attempts: 1, .. }),
        "{out:?}"
    );
    assert_eq!(gh.branch_files(REPO, BRANCH)["log.txt"], "a\nb\n");
    assert_eq!(
        count(&gh, "POST", COMMIT),
        1,
        "an update is never blindly repeated"
    );
}

#[tokio::test]
async fn a_lost_answer_to_a_landed_update_built_upon_is_recognised() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "1"), ("log.txt", "a\n")], "a");
    gh.lose_update_then_move(REPO, BRANCH, &[("other", "x")], "c");
    let out = write(&gh, "b", |s| Ok(bump(s, "b"))).await;
    assert!(
        matches!(out, CommitOutcome::Committed { attempts: 1, .. }),
        "{out:?}"
    );
    assert_eq!(gh.branch_log(REPO, BRANCH), ["c", "b [skip ci]", "a"]);
    assert_eq!(gh.branch_files(REPO, BRANCH)["log.txt"], "a\nb\n");
    assert_eq!(
        count(&gh, "POST", "/graphql/repository"),
        1,
        "one look at the history"
    );
}

#[tokio::test]
async fn a_lost_answer_to_a_landed_creation_is_recognised() {
    let gh = FakeGitHub::start().await;
    gh.lose_next_answer("POST", "/git/refs");
    let out = write(&gh, "a", |s| Ok(bump(s, "a"))).await;
    assert!(
        matches!(out, CommitOutcome::Committed { attempts: 1, .. }),
        "{out:?}"
    );
    assert_eq!(gh.branch_log(REPO, BRANCH), ["a [skip ci]"]);
}

#[tokio::test]
async fn an_update_github_did_not_carry_out_is_applied_again() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "1"), ("log.txt", "a\n")], "a");
    gh.fail_next("POST", COMMIT, 502, &[]);
    let out = write(&gh, "b", |s| Ok(bump(s, "b"))).await;
    assert!(
        matches!(out, CommitOutcome::Committed { attempts: 2, .. }),
        "{out:?}"
    );
    assert_eq!(gh.branch_log(REPO, BRANCH), ["b [skip ci]", "a"]);
}

#[tokio::test]
async fn a_refused_update_other_than_a_conflict_is_an_error() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "1")], "a");
    gh.fail_next("POST", COMMIT, 409, &[]);
    let api = gh.installation_api("d-409").await;
    let got = commit_change(&api, &repo(), BRANCH, "b", all, |s| {
        Ok::<_, String>(bump(s, "b"))
    })
    .await;
    assert_eq!(got.err().and_then(|e| e.status()), Some(409));
    assert_eq!(gh.branch_log(REPO, BRANCH), ["a"]);
}

#[tokio::test]
async fn a_branch_that_keeps_moving_gives_up_after_the_bound() {
    let gh = FakeGitHub::start().await;
    seed(&gh, &[("counter", "0")], "a");
    for i in 0..MAX_ATTEMPTS {
        gh.move_ref_once(REPO, BRANCH, &[("other", &i.to_string())], &format!("m{i}"));
    }
    let api = gh.installation_api("d-busy").await;
    let got = commit_change(&api, &repo(), BRANCH, "b", all, |s| {
        Ok::<_, String>(bump(s, "b"))
    })
    .await;
    assert_eq!(got.err().and_then(|e| e.status()), Some(422));
    assert_eq!(count(&gh, "POST", COMMIT), MAX_ATTEMPTS as usize);
    assert!(!gh.branch_files(REPO, BRANCH).contains_key("log.txt"));
}
