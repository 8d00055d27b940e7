//! The Git Data API as the tests' fake serves it: the shared fake's routes
//! (`auditloop_fake_github::git`), with what only the tests do around them: a push by
//! someone else landed just before the app's next update of a branch, the files the app
//! writes checked against their schemas, and code comparisons a test sets.

use auditloop_fake_github::git::{self as shared, GitRepo};
use auditloop_fake_github::objects as gh;
use serde_json::Value;

use super::fake::{reply, Answer, State};

/// A commit someone else pushes to `branch` just before the app's next ref update of it.
#[derive(Debug, Clone)]
pub struct RefMove {
    pub repo: String,
    pub branch: String,
    pub files: Vec<(String, String)>,
    pub message: String,
}

/// Lands the first pending push by someone else to `branch` (`FakeGitHub::move_ref_once`):
/// called just before each update of the branch, REST or GraphQL.
pub fn fire_ref_moves(state: &mut State, repo: &str, branch: &str) {
    if let Some(pos) = state
        .ref_moves
        .iter()
        .position(|m| m.repo == repo && m.branch == branch)
    {
        let m = state.ref_moves.remove(pos);
        let git = state.git.entry(m.repo).or_default();
        git.commit_files(&m.branch, &m.files, &m.message);
    }
}

/// The Git Data routes; `None` when the path is not one of them.
pub fn route(
    state: &mut State,
    method: &str,
    segs: &[&str],
    query: &str,
    body: &Value,
    if_none_match: Option<&str>,
) -> Option<Answer> {
    let ["repos", owner, name, rest @ ..] = segs else {
        return None;
    };
    let key = format!("{owner}/{name}");
    if method == "PATCH" {
        if let ["git", "refs", "heads", branch @ ..] = rest {
            fire_ref_moves(state, &key, &shared::ref_name(branch));
        }
    }
    if let ("POST", ["git", "refs"]) = (method, rest) {
        if let Some(branch) = body["ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("refs/heads/"))
        {
            fire_ref_moves(state, &key, branch);
        }
    }
    if let ("GET", ["compare", basehead]) = (method, rest) {
        if let Some(paths) = state.comparisons.get(*basehead) {
            return Some(reply(200, gh::code_comparison(&key, basehead, paths)));
        }
    }
    if let ("POST", ["git", "trees"]) = (method, rest) {
        check_written(state, body);
    }
    // A pull request's head commit is in the base repository too (`refs/pull/N/head`),
    // and stays there after a push moves the head on.
    let (pulls, left) = (&state.pulls, &state.left_heads);
    let pull_head =
        |sha: &str| left.contains(sha) || pulls.values().any(|p| p["head"]["sha"] == sha);
    let git: &mut GitRepo = state.git.entry(key.clone()).or_default();
    let call = shared::Call {
        method,
        rest,
        query,
        body,
        if_none_match,
    };
    let answered = shared::route(git, &key, &call, &pull_head)?;
    // REST answers carry the rate-limit headers, as `reply` adds them.
    let answer = match answered.body {
        Some(_) => Answer::carry(answered)
            .insert_header("x-ratelimit-remaining", "4999")
            .insert_header("x-ratelimit-limit", "5000"),
        None => Answer::carry(answered),
    };
    Some(answer)
}

/// Checks each file a tree carries inline (the only way the app writes the records branch)
/// against its schema, unless the test wrote it.
fn check_written(state: &mut State, body: &Value) {
    if state.written_by_the_test.is_some() {
        return;
    }
    for entry in body["tree"].as_array().into_iter().flatten() {
        if let (Some(path), Some(content)) = (entry["path"].as_str(), entry["content"].as_str()) {
            if let Err(e) = super::schemas::check_written(path, content) {
                state.schema_violations.push(e);
            }
        }
    }
}
