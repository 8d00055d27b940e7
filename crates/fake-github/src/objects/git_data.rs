//! The Git Data API's objects (refs, commits, trees, blobs), contents entries and
//! comparisons.

use serde_json::{json, Value};

use super::{id_of, node_id, API, CREATED, WEB};

/// A ref (`git-ref`), `name` without `refs/`.
pub fn git_ref(repo: &str, name: &str, sha: &str) -> Value {
    json!({"ref": format!("refs/{name}"), "node_id": node_id("REF", id_of(name)),
           "url": format!("{API}/repos/{repo}/git/refs/{name}"),
           "object": {"sha": sha, "type": "commit",
                      "url": format!("{API}/repos/{repo}/git/commits/{sha}")}})
}

/// A commit (`git-commit`) by the App's bot.
pub fn git_commit(repo: &str, sha: &str, tree: &str, parents: &[String], message: &str) -> Value {
    let person = json!({"name": "auditloop", "email": "auditloop@users.noreply.github.com",
                        "date": CREATED});
    let parents: Vec<Value> = parents
        .iter()
        .map(|p| {
            json!({"sha": p, "url": format!("{API}/repos/{repo}/git/commits/{p}"),
                        "html_url": format!("{WEB}/{repo}/commit/{p}")})
        })
        .collect();
    json!({
        "sha": sha, "node_id": node_id("C", id_of(sha)),
        "url": format!("{API}/repos/{repo}/git/commits/{sha}"),
        "html_url": format!("{WEB}/{repo}/commit/{sha}"),
        "author": person, "committer": person, "message": message,
        "tree": {"sha": tree, "url": format!("{API}/repos/{repo}/git/trees/{tree}")},
        "parents": parents,
        "verification": {"verified": false, "reason": "unsigned", "signature": null,
                         "payload": null, "verified_at": null},
    })
}

/// A tree (`git-tree`) of entries listed by the fake.
pub fn git_tree(repo: &str, sha: &str, entries: Vec<Value>) -> Value {
    json!({"sha": sha, "url": format!("{API}/repos/{repo}/git/trees/{sha}"),
           "tree": entries, "truncated": false})
}

/// A blob (`blob`) with base64 `content` as GitHub wraps it.
pub fn blob(repo: &str, sha: &str, size: usize, content: String) -> Value {
    json!({"sha": sha, "node_id": node_id("B", id_of(sha)), "size": size,
           "url": format!("{API}/repos/{repo}/git/blobs/{sha}"),
           "encoding": "base64", "content": content})
}

/// A file or directory entry as the contents API lists it (`content-directory` items and,
/// with `content`, `content-file`).
pub fn content(repo: &str, kind: &str, path: &str, sha: &str, size: usize) -> Value {
    let name = path.rsplit('/').next().unwrap_or(path);
    let url = format!("{API}/repos/{repo}/contents/{path}?ref=main");
    let git = format!(
        "{API}/repos/{repo}/git/{}/{sha}",
        if kind == "dir" { "trees" } else { "blobs" }
    );
    let html = format!(
        "{WEB}/{repo}/{}/main/{path}",
        if kind == "dir" { "tree" } else { "blob" }
    );
    let download =
        (kind == "file").then(|| format!("https://raw.githubusercontent.com/{repo}/main/{path}"));
    json!({"type": kind, "name": name, "path": path, "sha": sha, "size": size,
           "url": url, "git_url": git, "html_url": html, "download_url": download,
           "_links": {"self": url, "git": git, "html": html}})
}

/// A comparison (`commit-comparison`) of two commits: the base with its tree, and the
/// commits on the head's side (`side`: SHA and tree, oldest first).
pub fn comparison(
    repo: &str,
    (base, base_tree): (&str, &str),
    head: &str,
    status: &str,
    (ahead, behind): (u64, u64),
    side: &[(String, String)],
) -> Value {
    let commit = |sha: &str, tree: &str| {
        json!({"sha": sha, "node_id": node_id("C", id_of(sha)),
               "url": format!("{API}/repos/{repo}/commits/{sha}"),
               "html_url": format!("{WEB}/{repo}/commit/{sha}"),
               "comments_url": format!("{API}/repos/{repo}/commits/{sha}/comments"),
               "author": null, "committer": null, "parents": [],
               "commit": {"message": "", "comment_count": 0,
                          "url": format!("{API}/repos/{repo}/git/commits/{sha}"),
                          "author": null, "committer": null,
                          "tree": {"sha": tree, "url": format!("{API}/repos/{repo}/git/trees/{tree}")}}})
    };
    let html = format!("{WEB}/{repo}/compare/{base}...{head}");
    let commits: Vec<Value> = side.iter().map(|(sha, tree)| commit(sha, tree)).collect();
    json!({
        "url": format!("{API}/repos/{repo}/compare/{base}...{head}"), "html_url": html,
        "permalink_url": html, "diff_url": format!("{html}.diff"),
        "patch_url": format!("{html}.patch"),
        "base_commit": commit(base, base_tree), "merge_base_commit": commit(base, base_tree),
        "status": status, "ahead_by": ahead, "behind_by": behind,
        "total_commits": ahead, "commits": commits, "files": [],
    })
}

/// A comparison of two commits of the code that changed `paths` (all `modified`): like
/// GitHub, at most 300 files are listed, and nothing says how many more there were.
pub fn code_comparison(repo: &str, basehead: &str, paths: &[String]) -> Value {
    let (base, head) = basehead.split_once("...").unwrap_or((basehead, basehead));
    let mut v = comparison(repo, (base, base), head, "ahead", (1, 0), &[]);
    let files: Vec<Value> = paths
        .iter()
        .take(300)
        .map(|p| {
            json!({"sha": "f".repeat(40), "filename": p, "status": "modified",
                   "additions": 1, "deletions": 1, "changes": 2,
                   "blob_url": format!("{WEB}/{repo}/blob/{head}/{p}"),
                   "raw_url": format!("{WEB}/{repo}/raw/{head}/{p}"),
                   "contents_url": format!("{API}/repos/{repo}/contents/{p}?ref={head}"),
                   "patch": "@@ -1 +1 @@\n-a\n+b"})
        })
        .collect();
    v["files"] = json!(files);
    v
}
