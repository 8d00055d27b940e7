//! Git data for the fake: per-repository blobs, trees, commits and refs, with the Git Data
//! API routes in GitHub's shapes. SHAs are content-derived (40 hex, stable per content),
//! not git's own. Non-forced ref updates that are not fast-forwards answer 422.

use std::collections::{BTreeMap, HashMap, HashSet};

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::fake::{reply, Answer, State};
use super::github_objects as gh;

#[derive(Debug, Clone)]
pub struct GitCommit {
    pub tree: String,
    pub parents: Vec<String>,
    pub message: String,
}

#[derive(Debug, Default, Clone)]
pub struct GitRepo {
    pub blobs: HashMap<String, String>,
    /// Trees flattened: full path -> blob SHA.
    pub trees: HashMap<String, BTreeMap<String, String>>,
    pub commits: HashMap<String, GitCommit>,
    /// `heads/<branch>` -> commit SHA.
    pub refs: BTreeMap<String, String>,
}

/// A commit someone else pushes to `branch` just before the app's next ref update of it.
#[derive(Debug, Clone)]
pub struct RefMove {
    pub repo: String,
    pub branch: String,
    pub files: Vec<(String, String)>,
    pub message: String,
}

fn sha_of(kind: &str, content: &str) -> String {
    let digest = Sha256::digest(format!("{kind}\0{content}").as_bytes());
    hex::encode(digest)[..40].to_owned()
}

impl GitRepo {
    fn put_blob(&mut self, content: &str) -> String {
        let sha = sha_of("blob", content);
        self.blobs.insert(sha.clone(), content.to_owned());
        sha
    }

    fn put_tree(&mut self, entries: BTreeMap<String, String>) -> String {
        let sha = sha_of("tree", &serde_json::to_string(&entries).unwrap());
        self.trees.insert(sha.clone(), entries);
        sha
    }

    fn put_commit(&mut self, tree: &str, parents: Vec<String>, message: &str) -> String {
        let sha = sha_of("commit", &format!("{tree}\n{parents:?}\n{message}"));
        self.commits.insert(
            sha.clone(),
            GitCommit {
                tree: tree.to_owned(),
                parents,
                message: message.to_owned(),
            },
        );
        sha
    }

    /// Whether `ancestor` is `commit` or in its history.
    pub fn is_ancestor(&self, ancestor: &str, commit: &str) -> bool {
        let mut stack = vec![commit.to_owned()];
        let mut seen = HashSet::new();
        while let Some(c) = stack.pop() {
            if c == ancestor {
                return true;
            }
            if seen.insert(c.clone()) {
                if let Some(found) = self.commits.get(&c) {
                    stack.extend(found.parents.iter().cloned());
                }
            }
        }
        false
    }

    /// Commits `files` on top of `branch` (a root commit when it is absent) and moves it.
    pub fn commit_files(
        &mut self,
        branch: &str,
        files: &[(String, String)],
        message: &str,
    ) -> String {
        let head = self.refs.get(&format!("heads/{branch}")).cloned();
        let mut entries = head
            .as_ref()
            .map(|h| self.trees[&self.commits[h].tree].clone())
            .unwrap_or_default();
        for (path, content) in files {
            let blob = self.put_blob(content);
            entries.insert(path.clone(), blob);
        }
        let tree = self.put_tree(entries);
        let commit = self.put_commit(&tree, head.into_iter().collect(), message);
        self.refs.insert(format!("heads/{branch}"), commit.clone());
        commit
    }
}

fn not_found() -> Answer {
    reply(
        404,
        json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest/git"}),
    )
}

fn unprocessable(message: &str) -> Answer {
    reply(
        422,
        json!({"message": message, "documentation_url": "https://docs.github.com/rest/git"}),
    )
}

fn ref_etag(sha: &str) -> String {
    format!("W/\"{}\"", sha_of("ref", sha))
}

fn commit_body(repo: &str, sha: &str, c: &GitCommit) -> Value {
    gh::git_commit(repo, sha, &c.tree, &c.parents, &c.message)
}

/// The SHA the fake gives directory `dir` of the flattened tree `tree`.
pub fn dir_sha(dir: &str, tree: &BTreeMap<String, String>) -> String {
    sha_of("dir", &format!("{dir}{tree:?}"))
}

/// Tree entries as GitHub lists them: directories as `tree` entries, files as `blob`s.
fn tree_entries(repo: &GitRepo, tree: &BTreeMap<String, String>, recursive: bool) -> Vec<Value> {
    let mut out = BTreeMap::new();
    for (path, blob) in tree {
        let parts: Vec<&str> = path.split('/').collect();
        for depth in 1..parts.len() {
            let dir = parts[..depth].join("/");
            out.entry(dir.clone()).or_insert_with(|| {
                json!({"path": dir, "mode": "040000", "type": "tree", "sha": dir_sha(&dir, tree)})
            });
        }
        let size = repo.blobs.get(blob).map_or(0, String::len);
        out.insert(
            path.clone(),
            json!({"path": path, "mode": "100644", "type": "blob", "sha": blob, "size": size}),
        );
    }
    out.into_iter()
        .filter(|(path, _)| recursive || !path.contains('/'))
        .map(|(_, v)| v)
        .collect()
}

/// A ref name from its percent-encoded path segments, as GitHub decodes it.
fn ref_name(segs: &[&str]) -> String {
    percent_encoding::percent_decode_str(&segs.join("/"))
        .decode_utf8_lossy()
        .into_owned()
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
    let repo = key.clone();
    let repo = repo.as_str();
    if method == "PATCH" {
        if let ["git", "refs", "heads", branch @ ..] = rest {
            fire_ref_moves(state, &key, &ref_name(branch));
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
            return Some(reply(200, gh::code_comparison(repo, basehead, paths)));
        }
    }
    if let ("POST", ["git", "trees"]) = (method, rest) {
        check_written(state, body);
    }
    // A pull request's head commit is in the base repository too (`refs/pull/N/head`).
    let pull_heads: HashSet<String> = state
        .pulls
        .values()
        .filter_map(|p| p["head"]["sha"].as_str().map(str::to_owned))
        .collect();
    let git = state.git.entry(key).or_default();
    let answer = match (method, rest) {
        // GitHub's ETag changes when the ref moves; a match answers 304.
        ("GET", ["git", "ref", name @ ..]) => match git.refs.get(&ref_name(name)) {
            Some(sha) if if_none_match == Some(ref_etag(sha).as_str()) => Answer::empty(304),
            Some(sha) => reply(200, gh::git_ref(repo, &ref_name(name), sha))
                .insert_header("etag", &ref_etag(sha)),
            None => not_found(),
        },
        ("GET", ["git", "commits", sha]) => match git.commits.get(*sha) {
            Some(c) => reply(200, commit_body(repo, sha, c)),
            None => not_found(),
        },
        ("GET", ["git", "trees", sha]) => match git.trees.get(*sha) {
            Some(tree) => {
                let recursive = query.split('&').any(|kv| kv.starts_with("recursive="));
                let entries = tree_entries(git, tree, recursive);
                reply(200, gh::git_tree(repo, sha, entries))
            }
            None => not_found(),
        },
        ("GET", ["git", "blobs", sha]) => match git.blobs.get(*sha) {
            Some(content) => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(content);
                // GitHub wraps base64 content at 60 columns.
                let wrapped: Vec<String> = encoded
                    .as_bytes()
                    .chunks(60)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                reply(
                    200,
                    gh::blob(repo, sha, content.len(), wrapped.join("\n") + "\n"),
                )
            }
            None => not_found(),
        },
        ("POST", ["git", "trees"]) => create_tree(repo, git, body),
        ("POST", ["git", "commits"]) => {
            let tree = body["tree"].as_str().unwrap_or_default().to_owned();
            let parents: Vec<String> = body["parents"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|p| p.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if !git.trees.contains_key(&tree)
                || parents.iter().any(|p| !git.commits.contains_key(p))
            {
                return Some(unprocessable(
                    "Tree SHA does not exist or is not a tree object",
                ));
            }
            let sha = git.put_commit(&tree, parents, body["message"].as_str().unwrap_or_default());
            reply(201, commit_body(repo, &sha, &git.commits[&sha]))
        }
        ("POST", ["git", "refs"]) => {
            let Some(name) = body["ref"].as_str().and_then(|r| r.strip_prefix("refs/")) else {
                return Some(unprocessable("Reference name must start with 'refs/'"));
            };
            let sha = body["sha"].as_str().unwrap_or_default();
            if git.refs.contains_key(name) {
                unprocessable("Reference already exists")
            } else if !git.commits.contains_key(sha) && !pull_heads.contains(sha) {
                unprocessable("Object does not exist")
            } else {
                git.refs.insert(name.to_owned(), sha.to_owned());
                reply(201, gh::git_ref(repo, name, sha))
            }
        }
        ("PATCH", ["git", "refs", name @ ..]) => {
            let name = ref_name(name);
            let sha = body["sha"].as_str().unwrap_or_default();
            let force = body["force"].as_bool().unwrap_or(false);
            match git.refs.get(&name).cloned() {
                None => unprocessable("Reference does not exist"),
                Some(_) if !git.commits.contains_key(sha) => unprocessable("Object does not exist"),
                Some(old) if !force && !git.is_ancestor(&old, sha) => {
                    unprocessable("Update is not a fast forward")
                }
                Some(_) => {
                    git.refs.insert(name.clone(), sha.to_owned());
                    reply(200, gh::git_ref(repo, &name, sha))
                }
            }
        }
        ("GET", ["git", "matching-refs", prefix @ ..]) => {
            let prefix = ref_name(prefix);
            let refs: Vec<Value> = git
                .refs
                .iter()
                .filter(|(name, _)| name.starts_with(&prefix))
                .map(|(name, sha)| gh::git_ref(repo, name, sha))
                .collect();
            reply(200, json!(refs))
        }
        ("DELETE", ["git", "refs", name @ ..]) => match git.refs.remove(&ref_name(name)) {
            Some(_) => Answer::empty(204),
            None => unprocessable("Reference does not exist"),
        },
        ("GET", ["compare", basehead]) => {
            let Some((base, head)) = basehead.split_once("...") else {
                return Some(not_found());
            };
            if !git.commits.contains_key(base) || !git.commits.contains_key(head) {
                return Some(not_found());
            }
            let status = match (
                base == head,
                git.is_ancestor(base, head),
                git.is_ancestor(head, base),
            ) {
                (true, _, _) => "identical",
                (_, true, _) => "ahead",
                (_, _, true) => "behind",
                _ => "diverged",
            };
            let (ahead, behind) = match status {
                "ahead" => (1, 0),
                "behind" => (0, 1),
                "diverged" => (1, 1),
                _ => (0, 0),
            };
            // The head's side, oldest first, each with its tree, as GitHub lists it.
            let mut side = Vec::new();
            let mut at = Some(head.to_string());
            while let Some(c) = at.filter(|c| c != base && !git.is_ancestor(c, base)) {
                let commit = &git.commits[&c];
                side.push((c.clone(), commit.tree.clone()));
                at = commit.parents.first().cloned();
            }
            side.reverse();
            let base_tree = git.commits[base].tree.clone();
            reply(
                200,
                gh::comparison(
                    repo,
                    (base, &base_tree),
                    head,
                    status,
                    (ahead, behind),
                    &side,
                ),
            )
        }
        _ => return None,
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

fn create_tree(repo: &str, git: &mut GitRepo, body: &Value) -> Answer {
    let mut entries = match body["base_tree"].as_str() {
        Some(base) => match git.trees.get(base) {
            Some(t) => t.clone(),
            None => return unprocessable("Invalid tree info"),
        },
        None => BTreeMap::new(),
    };
    for entry in body["tree"].as_array().cloned().unwrap_or_default() {
        let Some(path) = entry["path"].as_str() else {
            return unprocessable("Invalid tree info");
        };
        if path.is_empty()
            || path.starts_with('/')
            || path.split('/').any(|s| s.is_empty() || s == "..")
        {
            return unprocessable("Invalid tree info");
        }
        match (
            entry.get("content").and_then(Value::as_str),
            entry.get("sha"),
        ) {
            (Some(content), _) => {
                let blob = git.put_blob(content);
                entries.insert(path.to_owned(), blob);
            }
            (None, Some(Value::Null)) => {
                entries.remove(path);
            }
            (None, Some(Value::String(sha))) if git.blobs.contains_key(sha) => {
                entries.insert(path.to_owned(), sha.clone());
            }
            _ => return unprocessable("Invalid tree info"),
        }
    }
    let sha = git.put_tree(entries);
    let listed = tree_entries(git, &git.trees[&sha].clone(), false);
    reply(201, gh::git_tree(repo, &sha, listed))
}
