//! The loop simulator's side of the fake: a pull request whose heads are real commits
//! (so the app can read each cited file at each candidate, `object(expression:
//! "<sha>:<path>")`) and whose diff lists every file it adds with its patch (so review
//! threads have lines to sit on); and what the simulator reads back: the record's state,
//! the check run's summary, the review threads.

use std::fmt::Write as _;

use auditloop_fake_github::pulls;
use serde_json::{json, Value};

use crate::fake::Fake;
use crate::payloads::BRANCH;

/// Lines in every file the simulator writes: each cited line lies in the file.
const LINES: u32 = 40;

/// The text of `path` in PR `pr` after the fixer's `version`th change to it. The PR is
/// named so that no two PRs share a head: PRs on one head share its check run.
fn content(pr: u64, path: &str, version: u32) -> String {
    (1..=LINES).fold(String::new(), |mut text, i| {
        let _ = writeln!(text, "// PR {pr}: {path} v{version} line {i}");
        text
    })
}

/// The patch of a file the pull request adds: every line of it in one hunk.
fn added(text: &str) -> String {
    let lines: Vec<String> = text.lines().map(|l| format!("+{l}")).collect();
    format!("@@ -0,0 +1,{} @@\n{}", lines.len(), lines.join("\n"))
}

fn branch(pr: u64) -> String {
    format!("feature-{pr}")
}

/// Commits `files` at `version` on the PR's branch, points the PR at the commit and lists
/// the branch's files as its diff; the new head and the one before (`None` at opening).
fn commit(
    fake: &Fake,
    repo: &str,
    pr: u64,
    files: &[(String, String)],
) -> (Option<String>, String) {
    let mut data = fake.data.lock().unwrap();
    let git = data.git.entry(repo.to_owned()).or_default();
    let head = git.commit_files(&format!("heads/{}", branch(pr)), files);
    let tree = git.tree_of(&head).cloned().unwrap_or_default();
    let diff: Vec<pulls::PullFile> = tree
        .iter()
        .map(|(path, blob)| {
            let text = git.blobs.get(blob).cloned().unwrap_or_default();
            pulls::file(path, "added", &added(&text))
        })
        .collect();
    data.pull_files.insert((repo.to_owned(), pr), diff);
    let before = data.pulls.get_mut(&(repo.to_owned(), pr)).map(|pull| {
        let old = pull["head"]["sha"].as_str().unwrap_or_default().to_owned();
        pull["head"]["sha"] = json!(head);
        old
    });
    if let Some(old) = &before {
        // The old head stays in the repository, as a pushed-over head does on GitHub.
        data.left_heads.insert((repo.to_owned(), old.clone()));
    }
    (before, head)
}

/// Opens PR `pr` adding `paths`, each at version 0; its head.
pub fn open(fake: &Fake, repo: &str, pr: u64, paths: &[&str]) -> String {
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| ((*p).to_owned(), content(pr, p, 0)))
        .collect();
    let (_, head) = commit(fake, repo, pr, &files);
    fake.add_pull(repo, pr, &head);
    head
}

/// The fixer's push before round `round`: `paths` changed; the old head and the new.
pub fn push(fake: &Fake, repo: &str, pr: u64, paths: &[&str], round: u32) -> (String, String) {
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| ((*p).to_owned(), content(pr, p, round)))
        .collect();
    let (before, head) = commit(fake, repo, pr, &files);
    (before.expect("the pull request is open"), head)
}

/// The record of PR `pr` as the records branch holds it.
pub fn record(fake: &Fake, repo: &str, pr: u64) -> Value {
    let data = fake.data.lock().unwrap();
    let text = data
        .git
        .get(repo)
        .and_then(|g| crate::branch::pull_record_text(g, BRANCH, pr));
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// The App's latest check run on `head`: its conclusion and title, and its summary.
pub fn check_run(fake: &Fake, repo: &str, head: &str) -> (String, String) {
    let data = fake.data.lock().unwrap();
    let runs = data.runs.latest(repo, head);
    let ours = runs
        .iter()
        .find(|r| r["app"]["slug"] == crate::fake_data::SLUG);
    let field = |v: &Value| v.as_str().unwrap_or("-").to_owned();
    ours.map_or_else(
        || ("none".to_owned(), String::new()),
        |r| {
            let title = field(&r["output"]["title"]);
            let said = format!("{}: {title}", field(&r["conclusion"]));
            (said, field(&r["output"]["summary"]))
        },
    )
}

/// The summary's convergence line, without its label.
pub fn convergence(summary: &str) -> Option<String> {
    summary.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("**Convergence:**")?;
        Some(rest.trim().trim_end_matches('.').to_owned())
    })
}

/// PR `pr`'s review threads as the fake keeps them: node id and whether resolved.
pub fn threads(fake: &Fake, repo: &str, pr: u64) -> Vec<(String, bool)> {
    let data = fake.data.lock().unwrap();
    let kept = data.reviews.threads_of(repo, pr);
    kept.iter()
        .map(|t| (t.node_id(), t.resolved_by.is_some()))
        .collect()
}

/// Reviews the App posted on PR `pr`.
pub fn reviews(fake: &Fake, repo: &str, pr: u64) -> usize {
    fake.data.lock().unwrap().reviews.reviews_of(repo, pr).len()
}
