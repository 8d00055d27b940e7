//! A repository's git data: blobs, trees, commits and refs, and the Git Data API routes in
//! GitHub's shapes. SHAs are content-derived (40 hex, stable per content), not git's own.
//! A ref update that is not a fast-forward, unless forced, answers 422, as GitHub does.

use std::collections::{BTreeMap, HashMap, HashSet};

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::objects as gh;
use crate::Reply;

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
    /// `heads/<branch>` (any ref without `refs/`) -> commit SHA.
    pub refs: BTreeMap<String, String>,
}

/// The fake's SHA of `content` of `kind`.
#[must_use]
pub fn sha_of(kind: &str, content: &str) -> String {
    let digest = Sha256::digest(format!("{kind}\0{content}").as_bytes());
    hex::encode(digest)[..40].to_owned()
}

/// Bytes written into a hash.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl GitRepo {
    pub fn put_blob(&mut self, content: &str) -> String {
        let sha = sha_of("blob", content);
        self.blobs
            .entry(sha.clone())
            .or_insert_with(|| content.to_owned());
        sha
    }

    pub fn put_tree(&mut self, entries: BTreeMap<String, String>) -> String {
        // `sha_of("tree", <the entries as JSON>)`, streamed into the hash: a tree of a
        // hundred thousand files is not copied into one string first.
        let mut hasher = Sha256::new();
        hasher.update(b"tree\0");
        let _ = serde_json::to_writer(HashWriter(&mut hasher), &entries);
        let sha = hex::encode(hasher.finalize())[..40].to_owned();
        self.trees.entry(sha.clone()).or_insert(entries);
        sha
    }

    pub fn put_commit(&mut self, tree: &str, parents: Vec<String>, message: &str) -> String {
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
    #[must_use]
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

    /// The flattened tree of `commit`.
    #[must_use]
    pub fn tree_of(&self, commit: &str) -> Option<&BTreeMap<String, String>> {
        self.trees.get(&self.commits.get(commit)?.tree)
    }

    /// The text of `path` at the head of `branch`.
    #[must_use]
    pub fn file(&self, branch: &str, path: &str) -> Option<&str> {
        let head = self.refs.get(&format!("heads/{branch}"))?;
        let blob = self.tree_of(head)?.get(path)?;
        self.blobs.get(blob).map(String::as_str)
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
            .and_then(|h| self.tree_of(h).cloned())
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

fn not_found() -> Reply {
    Reply::json(
        404,
        json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest/git"}),
    )
}

fn unprocessable(message: &str) -> Reply {
    Reply::json(
        422,
        json!({"message": message, "documentation_url": "https://docs.github.com/rest/git"}),
    )
}

/// The `ETag` GitHub gives a ref at `sha`: it changes when the ref moves.
#[must_use]
pub fn ref_etag(sha: &str) -> String {
    format!("W/\"{}\"", sha_of("ref", sha))
}

fn commit_body(repo: &str, sha: &str, c: &GitCommit) -> Value {
    gh::git_commit(repo, sha, &c.tree, &c.parents, &c.message)
}

/// The SHA the fake gives directory `dir` of the flattened tree `tree`.
#[must_use]
pub fn dir_sha(dir: &str, tree: &BTreeMap<String, String>) -> String {
    // What is under the directory only, as git's tree SHAs go: a directory's SHA changes
    // with its contents, and computing it costs its entries, not the whole tree's.
    let prefix = format!("{dir}/");
    let under: Vec<(&String, &String)> = tree
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .collect();
    sha_of("dir", &format!("{dir}{under:?}"))
}

/// Tree entries as GitHub lists them: directories as `tree` entries, files as `blob`s.
#[must_use]
pub fn tree_entries(
    repo: &GitRepo,
    tree: &BTreeMap<String, String>,
    recursive: bool,
) -> Vec<Value> {
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
#[must_use]
pub fn ref_name(segs: &[&str]) -> String {
    percent_encoding::percent_decode_str(&segs.join("/"))
        .decode_utf8_lossy()
        .into_owned()
}

/// One call to a repository's Git Data routes.
pub struct Call<'a> {
    pub method: &'a str,
    /// The path after `repos/{owner}/{repo}/`.
    pub rest: &'a [&'a str],
    pub query: &'a str,
    pub body: &'a Value,
    pub if_none_match: Option<&'a str>,
}

/// The Git Data routes (and `compare`) of `repo`; `None` when the path is not one of them.
/// `elsewhere`: commits the repository has outside `git` (pull requests' heads, which
/// `refs/pull/N/head` keeps), which a ref may point at.
pub fn route(
    git: &mut GitRepo,
    repo: &str,
    call: &Call<'_>,
    elsewhere: &dyn Fn(&str) -> bool,
) -> Option<Reply> {
    let Call {
        method,
        rest,
        query,
        body,
        if_none_match,
    } = *call;
    let answer = match (method, rest) {
        ("GET", ["git", "ref", name @ ..]) => match git.refs.get(&ref_name(name)) {
            Some(sha) if if_none_match == Some(ref_etag(sha).as_str()) => Reply::empty(304),
            Some(sha) => Reply::json(200, gh::git_ref(repo, &ref_name(name), sha))
                .with_header("etag", ref_etag(sha)),
            None => not_found(),
        },
        ("GET", ["git", "commits", sha]) => match git.commits.get(*sha) {
            Some(c) => Reply::json(200, commit_body(repo, sha, c)),
            None => not_found(),
        },
        ("GET", ["git", "trees", sha]) => match git.trees.get(*sha) {
            Some(tree) => {
                let recursive = query.split('&').any(|kv| kv.starts_with("recursive="));
                let entries = tree_entries(git, tree, recursive);
                Reply::json(200, gh::git_tree(repo, sha, entries))
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
                Reply::json(
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
            Reply::json(201, commit_body(repo, &sha, &git.commits[&sha]))
        }
        ("POST", ["git", "refs"]) => {
            let Some(name) = body["ref"].as_str().and_then(|r| r.strip_prefix("refs/")) else {
                return Some(unprocessable("Reference name must start with 'refs/'"));
            };
            let sha = body["sha"].as_str().unwrap_or_default();
            if git.refs.contains_key(name) {
                unprocessable("Reference already exists")
            } else if !git.commits.contains_key(sha) && !elsewhere(sha) {
                unprocessable("Object does not exist")
            } else {
                git.refs.insert(name.to_owned(), sha.to_owned());
                Reply::json(201, gh::git_ref(repo, name, sha))
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
                    Reply::json(200, gh::git_ref(repo, &name, sha))
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
            Reply::json(200, json!(refs))
        }
        ("DELETE", ["git", "refs", name @ ..]) => match git.refs.remove(&ref_name(name)) {
            Some(_) => Reply::empty(204),
            None => unprocessable("Reference does not exist"),
        },
        ("GET", ["compare", basehead]) => compare(git, repo, basehead),
        _ => return None,
    };
    Some(answer)
}

/// `base...head` of two commits of the records branch.
fn compare(git: &GitRepo, repo: &str, basehead: &str) -> Reply {
    let Some((base, head)) = basehead.split_once("...") else {
        return not_found();
    };
    if !git.commits.contains_key(base) || !git.commits.contains_key(head) {
        return not_found();
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
    Reply::json(
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

fn create_tree(repo: &str, git: &mut GitRepo, body: &Value) -> Reply {
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
    let listed = tree_entries(git, &git.trees[&sha], false);
    Reply::json(201, gh::git_tree(repo, &sha, listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(method: &'a str, rest: &'a [&'a str], body: &'a Value) -> Call<'a> {
        Call {
            method,
            rest,
            query: "",
            body,
            if_none_match: None,
        }
    }

    #[test]
    fn a_ref_moves_only_forward_unless_forced_and_its_etag_follows_it() {
        let mut git = GitRepo::default();
        let first = git.commit_files("records", &[("a".into(), "1".into())], "one");
        let second = git.commit_files("records", &[("a".into(), "2".into())], "two");
        assert_eq!(git.file("records", "a"), Some("2"));
        let none = |_: &str| false;
        let back = json!({"sha": first});
        let refused = route(
            &mut git,
            "o/r",
            &call("PATCH", &["git", "refs", "heads", "records"], &back),
            &none,
        );
        assert_eq!(refused.map(|r| r.status), Some(422));
        let forced = json!({"sha": first, "force": true});
        let moved = route(
            &mut git,
            "o/r",
            &call("PATCH", &["git", "refs", "heads", "records"], &forced),
            &none,
        );
        assert_eq!(moved.map(|r| r.status), Some(200));
        let tag = ref_etag(&first);
        let mut read = call("GET", &["git", "ref", "heads", "records"], &Value::Null);
        read.if_none_match = Some(&tag);
        assert_eq!(
            route(&mut git, "o/r", &read, &none).map(|r| r.status),
            Some(304)
        );
        assert!(git.is_ancestor(&first, &second) && !git.is_ancestor(&second, &first));
    }

    #[test]
    fn a_tree_lists_its_directories_and_refuses_a_path_that_climbs() {
        let mut git = GitRepo::default();
        let climbs = json!({"tree": [{"path": "../x", "content": "no"}]});
        let refused = route(
            &mut git,
            "o/r",
            &call("POST", &["git", "trees"], &climbs),
            &|_| false,
        );
        assert_eq!(refused.map(|r| r.status), Some(422));
        let nested = json!({"tree": [{"path": "records/AUD-1.json", "content": "{}"}]});
        let made = route(
            &mut git,
            "o/r",
            &call("POST", &["git", "trees"], &nested),
            &|_| false,
        )
        .and_then(|r| r.body)
        .unwrap_or_default();
        assert_eq!(made["tree"][0]["type"], "tree");
        assert_eq!(made["tree"][0]["path"], "records");
    }

    #[test]
    fn a_ref_may_point_at_a_commit_kept_elsewhere_only_when_the_caller_knows_it() {
        let mut git = GitRepo::default();
        let head = "a".repeat(40);
        let body = json!({"ref": "refs/auditloop/claims/d/reply-1", "sha": head});
        let unknown = route(
            &mut git,
            "o/r",
            &call("POST", &["git", "refs"], &body),
            &|_| false,
        );
        assert_eq!(unknown.map(|r| r.status), Some(422));
        let known = route(
            &mut git,
            "o/r",
            &call("POST", &["git", "refs"], &body),
            &|s| s == head,
        );
        assert_eq!(known.map(|r| r.status), Some(201));
    }
}
