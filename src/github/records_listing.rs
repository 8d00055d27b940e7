//! The records branch as the first reads' query brings it: where it is, and, when asked,
//! every blob of its tree (three levels of nested `Tree.entries`, the depth of the records
//! layout, flattened to paths) and the texts of the files a command reads first. A
//! listing that goes deeper, or a file GraphQL does not give as text, is left out, and
//! the records layer reads it through REST.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::ids::{CommitSha, ObjectSha};

/// The files of the records branch the query reads besides its listing.
#[derive(Debug, Clone, Copy)]
pub struct RecordFiles<'a> {
    /// The tree's every blob too (not for a branch so large that GraphQL might time out).
    pub listing: bool,
    pub index: &'a str,
    /// The PR's record, when the process knows which it is.
    pub record: Option<&'a str>,
    pub patterns: &'a str,
    /// More files read at the records commit (layout version 2's: `layout.json`,
    /// `next.json`, the shards and records a command reads), each an aliased field.
    pub more: &'a [String],
}

/// The most files [`RecordFiles::more`] asks in one query.
pub(crate) const MAX_MORE: usize = 24;

/// The aliased fields for `more`, indented to sit in the records commit's selection.
#[must_use]
pub(super) fn more_fields(more: &[String]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (i, path) in more.iter().take(MAX_MORE).enumerate() {
        // JSON's string escapes are GraphQL's.
        let path = serde_json::json!(path).to_string();
        let _ = writeln!(
            out,
            "          m{i}: file(path: {path}) {{\n            ...RecordFile\n          }}"
        );
    }
    out
}

/// The commit the records branch is at, with what reading it needs first: its tree and
/// parents (so a commit another replica made is not read for them), and when asked for,
/// the tree's every blob and the texts of the files asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordsHead {
    pub commit: CommitSha,
    pub tree: ObjectSha,
    pub parents: Vec<CommitSha>,
    /// Every blob of the tree by path; `None` when not asked or not whole.
    pub listing: Option<BTreeMap<String, ObjectSha>>,
    /// Texts of the files asked, by path, with their blobs.
    pub texts: BTreeMap<String, (ObjectSha, String)>,
    /// The paths asked that the commit does not hold.
    pub absent: Vec<String>,
}

#[derive(Deserialize)]
struct TreeNode {
    oid: String,
    #[serde(default)]
    entries: Option<Vec<EntryNode>>,
}

#[derive(Deserialize)]
struct EntryNode {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    oid: String,
    #[serde(default)]
    object: Option<EntryObject>,
}

#[derive(Deserialize)]
struct EntryObject {
    #[serde(default)]
    entries: Option<Vec<EntryNode>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileNode {
    oid: String,
    object: Option<FileObject>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileObject {
    #[serde(rename = "__typename")]
    typename: String,
    text: Option<String>,
    is_truncated: Option<bool>,
}

/// The records ref as the query answers it: `None` when the answer cannot be trusted (a
/// tag, a merge, a malformed id), `Some(None)` when the branch does not exist.
#[allow(clippy::option_option)]
pub(super) fn records_of(
    records: Option<RefNode>,
    files: Option<RecordFiles<'_>>,
) -> Option<Option<RecordsHead>> {
    let Some(r) = records else {
        return Some(None);
    };
    let t = r.target;
    if t.typename != "Commit" {
        return None;
    }
    let parents = t.parents?.nodes;
    // A merge (never one the app makes) is read through REST, which lists every parent.
    if parents.len() > 1 {
        return None;
    }
    let tree = t.tree?;
    let mut more = t.more;
    let mut absent = Vec::new();
    let texts = files.map(|f| {
        let mut nodes = vec![(Some(f.index), t.index), (f.record, t.record)];
        nodes.push((Some(f.patterns), t.patterns));
        for (i, path) in f.more.iter().take(MAX_MORE).enumerate() {
            let node = more
                .remove(&format!("m{i}"))
                .and_then(|v| serde_json::from_value::<Option<FileNode>>(v).ok())
                .flatten();
            nodes.push((Some(path.as_str()), node));
        }
        let mut texts = BTreeMap::new();
        for (path, node) in nodes {
            match (path, node) {
                (Some(path), None) if !path.is_empty() => absent.push(path.to_owned()),
                (path, node) => texts.extend(texts_of([(path, node), (None, None), (None, None)])),
            }
        }
        texts
    });
    Some(Some(RecordsHead {
        commit: CommitSha::new(t.oid).ok()?,
        tree: ObjectSha::new(tree.oid).ok()?,
        parents: parents
            .into_iter()
            .map(|p| CommitSha::new(p.oid).ok())
            .collect::<Option<_>>()?,
        listing: tree.entries.and_then(listing_of),
        texts: texts.unwrap_or_default(),
        absent,
    }))
}

#[derive(Deserialize)]
pub(super) struct RefNode {
    target: Target,
}

#[derive(Deserialize)]
struct Target {
    #[serde(rename = "__typename")]
    typename: String,
    oid: String,
    tree: Option<TreeNode>,
    parents: Option<Parents>,
    #[serde(default)]
    index: Option<FileNode>,
    #[serde(default)]
    record: Option<FileNode>,
    #[serde(default)]
    patterns: Option<FileNode>,
    /// The aliased `more` files, `m0`, `m1`, …
    #[serde(flatten)]
    more: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Parents {
    nodes: Vec<OidNode>,
}

#[derive(Deserialize)]
struct OidNode {
    oid: String,
}

/// The blobs of `entries` by path; `None` when a tree in it was not expanded (deeper than
/// the query reads) or an id is malformed.
fn listing_of(entries: Vec<EntryNode>) -> Option<BTreeMap<String, ObjectSha>> {
    let mut out = BTreeMap::new();
    walk("", entries, &mut out)?;
    Some(out)
}

fn walk(
    prefix: &str,
    entries: Vec<EntryNode>,
    out: &mut BTreeMap<String, ObjectSha>,
) -> Option<()> {
    for e in entries {
        let path = format!("{prefix}{}", e.name);
        match e.kind.as_str() {
            "blob" => {
                out.insert(path, ObjectSha::new(e.oid).ok()?);
            }
            "tree" => walk(&format!("{path}/"), e.object?.entries?, out)?,
            // A submodule is no file of the records.
            _ => {}
        }
    }
    Some(())
}

/// The texts of the files the query found as whole UTF-8 blobs, by path.
fn texts_of(files: [(Option<&str>, Option<FileNode>); 3]) -> BTreeMap<String, (ObjectSha, String)> {
    let mut out = BTreeMap::new();
    for (path, node) in files {
        let (Some(path), Some(node)) = (path, node) else {
            continue;
        };
        let Some(FileObject {
            typename,
            text: Some(text),
            is_truncated: Some(false),
        }) = node.object
        else {
            continue;
        };
        if let (true, Ok(oid)) = (typename == "Blob", ObjectSha::new(node.oid)) {
            out.insert(path.to_owned(), (oid, text));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, kind: &str, object: Option<Vec<EntryNode>>) -> EntryNode {
        EntryNode {
            name: name.into(),
            kind: kind.into(),
            oid: "a".repeat(40),
            object: Some(EntryObject { entries: object }),
        }
    }

    #[test]
    fn a_ref_that_is_no_commit_or_is_absent() {
        assert_eq!(records_of(None, None), Some(None));
        let tag = RefNode {
            target: Target {
                typename: "Tag".into(),
                oid: "1".repeat(40),
                tree: None,
                parents: None,
                index: None,
                record: None,
                patterns: None,
                more: BTreeMap::new(),
            },
        };
        assert_eq!(records_of(Some(tag), None), None);
    }

    #[test]
    fn a_listing_is_whole_or_none() {
        let run = entry("run-1.json", "blob", None);
        let reports = entry(
            "reports",
            "tree",
            Some(vec![entry("AUD-1", "tree", Some(vec![run]))]),
        );
        let listing = listing_of(vec![entry("index.json", "blob", None), reports]).unwrap();
        let paths: Vec<&str> = listing.keys().map(String::as_str).collect();
        assert_eq!(paths, ["index.json", "reports/AUD-1/run-1.json"]);
        // A tree the query did not expand (deeper than it reads) makes the listing unknown.
        let deep = entry("a", "tree", Some(vec![entry("b", "tree", None)]));
        assert_eq!(listing_of(vec![deep]), None);
        // A submodule is no file.
        let sub = listing_of(vec![entry("vendored", "commit", None)]).unwrap();
        assert!(sub.is_empty());
    }
}
