//! The tests' repository as a test sets and reads it: files of the default branch and of a
//! pull request's head (what the contents API serves), permissions, check runs of other
//! apps, issues, pull requests and the replies on them.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::deliveries::REPO;
use super::fake::{FakeGitHub, State, APP_SLUG};
use auditloop_fake_github::issues;
use auditloop_fake_github::objects as gh;

/// The files of `git_ref` as the contents API serves them: the default branch (`main`)
/// has `State::files`; any other ref is a PR's head, which sees its own changes over them.
pub fn files_at(state: &State, git_ref: &str) -> BTreeMap<String, String> {
    let mut files = state.files.clone();
    if git_ref != "main" {
        files.extend(state.head_files.clone());
    }
    files
}

impl State {
    /// The issues opened so far as `GET /repos/{o}/{r}/issues` lists them, newest first
    /// (as `sort=created&direction=desc` asks).
    pub fn issue_listing(&self) -> Value {
        self.issue_listing_for("state=all")
    }

    /// The listing as `query` asks it: `labels` (every one named), `state` (`open` when
    /// not given, `closed` or `all`).
    pub fn issue_listing_for(&self, query: &str) -> Value {
        Value::Array(issues::listed(REPO, APP_SLUG, self.issues.iter(), query))
    }
}

impl FakeGitHub {
    /// A file on the default branch, as the contents API serves it.
    pub fn set_file(&self, path: &str, text: &str) {
        self.state().files.insert(path.to_owned(), text.to_owned());
    }

    /// Deletes a file of the default branch, as a push that removes it would.
    pub fn remove_file(&self, path: &str) {
        self.state().files.remove(path);
    }

    /// A file as a PR's head branch holds it, served for any `ref` but the default branch.
    pub fn set_head_file(&self, path: &str, text: &str) {
        self.state()
            .head_files
            .insert(path.to_owned(), text.to_owned());
    }

    pub fn set_permission(&self, login: &str, role: &str) {
        self.state().permissions.set(login, role);
    }

    /// A check run of another app (CI) on `sha`.
    pub fn add_ci_check(&self, sha: &str, name: &str, status: &str, conclusion: Option<&str>) {
        let mut state = self.state();
        let id = 90_000 + state.check_runs.len() as u64;
        let fields =
            json!({"name": name, "head_sha": sha, "status": status, "conclusion": conclusion});
        state.check_runs.create(REPO, id, "ci", &fields);
    }

    /// Issue `number` of the repository, opened by someone with `labels`.
    pub fn add_issue(&self, number: u64, title: &str, body: &str, labels: &[&str], open: bool) {
        let issue = json!({"number": number, "title": title, "body": body, "labels": labels,
            "state": if open { "open" } else { "closed" }});
        self.state().issues.push(issue);
    }

    /// The issues whose body holds the dashboard's marker, oldest first.
    pub fn dashboards(&self) -> Vec<Value> {
        self.state()
            .issues
            .iter()
            .filter(|i| {
                i["body"]
                    .as_str()
                    .is_some_and(|b| b.contains("<!-- auditloop:dashboard -->"))
            })
            .cloned()
            .collect()
    }

    /// Pull request `number`'s title, as its author edits it.
    pub fn set_pull_title(&self, number: u64, title: &str) {
        if let Some(p) = self.state().pulls.get_mut(&number) {
            p["title"] = json!(title);
        }
    }

    /// Issue `number` closed by hand.
    pub fn close_issue(&self, number: u64) {
        if let Some(i) = self
            .state()
            .issues
            .iter_mut()
            .find(|i| i["number"] == number)
        {
            i["state"] = json!("closed");
        }
    }

    /// A check run named `name` that another App (`slug`) made on `sha`.
    pub fn add_foreign_check(&self, sha: &str, name: &str, slug: &str, conclusion: &str) {
        let mut state = self.state();
        let id = 95_000 + state.check_runs.len() as u64;
        let fields =
            json!({"name": name, "head_sha": sha, "status": "completed", "conclusion": conclusion});
        state.check_runs.create(REPO, id, slug, &fields);
    }

    /// Our check runs on `sha`, oldest first.
    pub fn gate_runs(&self, sha: &str) -> Vec<Value> {
        self.state()
            .check_runs
            .iter()
            .filter(|c| c.body["head_sha"] == sha && c.body["app"]["slug"] == APP_SLUG)
            .map(|c| c.body.clone())
            .collect()
    }

    pub fn pull_body(&self, number: u64) -> String {
        self.state().pulls[&number]["body"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The PR body as a person edited it (no `edited` event is delivered).
    pub fn set_pull_body(&self, number: u64, body: &str) {
        self.state().pulls.get_mut(&number).unwrap()["body"] = json!(body);
    }

    /// Makes PR `number` come from a fork (`forker/hello`), which GitHub leaves out of a
    /// commit's pull-request listing and of a check run's `pull_requests`.
    pub fn make_fork(&self, number: u64) {
        let mut state = self.state();
        let pr = state.pulls.get_mut(&number).expect("a pull request");
        pr["head"]["repo"] = auditloop_fake_github::objects::repository("forker/hello");
        pr["head"]["label"] = serde_json::json!("forker:feature");
        pr["head"]["user"] = auditloop_fake_github::objects::user("forker");
    }

    /// The commits of PR `number` as GitHub links them: `(sha, author, committer)` logins,
    /// `None` where no account is linked.
    pub fn set_pull_commits(&self, number: u64, commits: &[(&str, Option<&str>, Option<&str>)]) {
        let list = commits
            .iter()
            .map(
                |(oid, author, committer)| auditloop_fake_github::graphql::PullCommitInfo {
                    oid: (*oid).to_owned(),
                    author: author.map(str::to_owned),
                    committer: committer.map(str::to_owned),
                },
            )
            .collect();
        self.state().pull_commits.insert(number, list);
    }

    pub fn set_pull_head(&self, number: u64, sha: &str) {
        let mut s = self.state();
        let pull = s.pulls.get_mut(&number).unwrap();
        let left = pull["head"]["sha"].as_str().map(str::to_owned);
        gh::set_pull_head(pull, sha);
        s.left_heads.extend(left);
    }

    pub fn close_pull(&self, number: u64, merged: bool) {
        let mut s = self.state();
        gh::close_pull(s.pulls.get_mut(&number).unwrap(), merged);
    }

    /// Every reply on `issue`, newest last; the test has now seen them all.
    pub fn comments_on(&self, issue: u64) -> Vec<String> {
        self.replies_where(issue, |_| true)
    }

    /// The replies on `issue` that `keep` selects, newest last; only those count as seen.
    pub fn replies_where(&self, issue: u64, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let mut state = self.state();
        let kept: Vec<(u64, String)> = state
            .comments
            .iter()
            .filter(|c| c.issue == issue && keep(&c.body))
            .map(|c| (c.id, c.body.clone()))
            .collect();
        state.seen_comments.extend(kept.iter().map(|(id, _)| *id));
        kept.into_iter().map(|(_, body)| body).collect()
    }

    /// The newest reply on `issue`; earlier ones stay unseen.
    pub fn last_comment_on(&self, issue: u64) -> Option<String> {
        let mut state = self.state();
        let last = state.comments.iter().rev().find(|c| c.issue == issue)?;
        let (id, body) = (last.id, last.body.clone());
        state.seen_comments.insert(id);
        Some(body)
    }
}
