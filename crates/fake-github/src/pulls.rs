//! What GitHub does with pull requests built by [`crate::objects::pull_request`]: the
//! listings and the update, and the files one changes (`GET …/pulls/{n}/files`). Each side keeps its pull requests as it indexes them (the
//! tests one repository's, the load tool many); these work on any of them.

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde_json::{json, Value};

use crate::git::sha_of;
use crate::objects::{pull_request_listed, API, WEB};

/// `GET /repos/{repo}/pulls?state=`: the pull requests in that state (`open` when not
/// given, `closed` or `all`), newest first, in the listing's shape.
pub fn listed<'a>(pulls: impl Iterator<Item = &'a Value>, state: Option<&str>) -> Vec<Value> {
    let wanted = state.unwrap_or("open");
    let mut list: Vec<&Value> = pulls
        .filter(|p| wanted == "all" || p["state"] == wanted)
        .collect();
    list.sort_by_key(|p| std::cmp::Reverse(p["number"].as_u64()));
    list.into_iter().map(pull_request_listed).collect()
}

/// `GET /repos/{repo}/commits/{sha}/pulls`: the pull requests whose head is `sha`. As on
/// GitHub, one from a fork is not listed for the commit.
pub fn for_commit<'a>(pulls: impl Iterator<Item = &'a Value>, sha: &str) -> Vec<Value> {
    pulls
        .filter(|p| p["head"]["sha"] == sha)
        .filter(|p| p["head"]["repo"]["full_name"] == p["base"]["repo"]["full_name"])
        .map(pull_request_listed)
        .collect()
}

/// `PATCH /repos/{repo}/pulls/{number}`: the fields the request gives replace the pull
/// request's; the others stay.
pub fn update(pull: &mut Value, fields: &Value) {
    for field in ["title", "body", "state"] {
        if let Some(value) = fields.get(field) {
            pull[field] = value.clone();
        }
    }
}

/// A file a pull request changes, as `GET …/pulls/{n}/files` lists it: `sha` is its blob
/// at the head; `patch` is `None` where GitHub shows none (a binary or too large a diff).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullFile {
    pub filename: String,
    /// `added`, `modified`, `removed`, `renamed`, …
    pub status: String,
    pub sha: String,
    pub patch: Option<String>,
    /// The path before a rename.
    pub previous_filename: Option<String>,
}

/// A file a pull request changes with its patch (`""`: none shown), its blob SHA at the
/// head derived from its path and patch.
pub fn file(path: &str, status: &str, patch: &str) -> PullFile {
    PullFile {
        filename: path.to_owned(),
        status: status.to_owned(),
        sha: sha_of("blob", &format!("{path}\n{patch}")),
        patch: (!patch.is_empty()).then(|| patch.to_owned()),
        previous_filename: None,
    }
}

/// The lines `patch` adds and removes.
pub fn counts(patch: Option<&str>) -> (usize, usize) {
    let lines = || patch.into_iter().flat_map(str::lines);
    let added = lines().filter(|l| l.starts_with('+')).count();
    (added, lines().filter(|l| l.starts_with('-')).count())
}

/// What a path may hold that a URL may not.
const IN_URL: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// `GET /repos/{repo}/pulls/{n}/files` of a pull request at `head` (`diff-entry` each).
pub fn files_listed(repo: &str, head: &str, files: &[PullFile]) -> Vec<Value> {
    files
        .iter()
        .map(|f| {
            let path = utf8_percent_encode(&f.filename, IN_URL).to_string();
            let (additions, deletions) = counts(f.patch.as_deref());
            let mut entry = json!({
                "sha": f.sha, "filename": f.filename, "status": f.status,
                "additions": additions, "deletions": deletions,
                "changes": additions + deletions,
                "blob_url": format!("{WEB}/{repo}/blob/{head}/{path}"),
                "raw_url": format!("{WEB}/{repo}/raw/{head}/{path}"),
                "contents_url": format!("{API}/repos/{repo}/contents/{path}?ref={head}"),
            });
            if let Some(patch) = &f.patch {
                entry["patch"] = json!(patch);
            }
            if let Some(before) = &f.previous_filename {
                entry["previous_filename"] = json!(before);
            }
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::{close_pull, pull_request};
    use serde_json::json;

    fn three() -> Vec<Value> {
        let mut closed = pull_request("o/r", 1, "a", "old", "alice");
        close_pull(&mut closed, false);
        let mut fork = pull_request("o/r", 3, "a", "from a fork", "bob");
        fork["head"]["repo"]["full_name"] = json!("bob/r");
        vec![closed, pull_request("o/r", 2, "a", "new", "alice"), fork]
    }

    #[test]
    fn the_listing_keeps_the_state_asked_for_newest_first() {
        let pulls = three();
        let numbers = |state| {
            listed(pulls.iter(), state)
                .iter()
                .filter_map(|p| p["number"].as_u64())
                .collect::<Vec<_>>()
        };
        assert_eq!(numbers(None), [3, 2]);
        assert_eq!(numbers(Some("closed")), [1]);
        assert_eq!(numbers(Some("all")), [3, 2, 1]);
        assert!(listed(pulls.iter(), None)[0].get("mergeable").is_none());
    }

    #[test]
    fn a_commit_lists_the_pulls_on_it_but_not_a_forks() {
        let pulls = three();
        let numbers: Vec<u64> = for_commit(pulls.iter(), "a")
            .iter()
            .filter_map(|p| p["number"].as_u64())
            .collect();
        assert_eq!(numbers, [1, 2]);
        assert!(for_commit(pulls.iter(), "b").is_empty());
    }

    #[test]
    fn a_file_counts_its_patchs_lines_and_escapes_its_path_in_urls() {
        let mut renamed = file("docs/a b.md", "renamed", "@@ -1,2 +1,2 @@\n-x\n+y\n z");
        renamed.previous_filename = Some("docs/old.md".into());
        let bare = file("logo.png", "added", "");
        let listed = files_listed("o/r", "h", &[renamed, bare]);
        assert_eq!(
            (&listed[0]["additions"], &listed[0]["changes"]),
            (&json!(1), &json!(2))
        );
        assert_eq!(
            listed[0]["raw_url"],
            "https://github.com/o/r/raw/h/docs/a%20b.md"
        );
        assert_eq!(listed[0]["previous_filename"], "docs/old.md");
        assert!(listed[1].get("patch").is_none());
        assert_eq!(listed[1]["sha"].as_str().map(str::len), Some(40));
    }

    #[test]
    fn an_update_replaces_only_the_fields_it_gives() {
        let mut pull = pull_request("o/r", 2, "a", "before", "alice");
        update(&mut pull, &json!({"body": "after"}));
        assert_eq!(
            (pull["body"].clone(), pull["state"].clone()),
            (json!("after"), json!("open"))
        );
    }
}
