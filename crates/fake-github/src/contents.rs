//! The contents API over the files a side keeps at a ref: a file with its `ETag` (a
//! conditional read that matches is a 304), or a directory's listing.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::git::sha_of;
use crate::objects;
use crate::Reply;

/// The blob SHA of a file's text, as the contents API and GraphQL's `Blob.oid` give it.
pub fn blob_sha(text: &str) -> String {
    sha_of("blob", text)
}

/// The `ETag` GitHub answers a file with.
fn etag(text: &str) -> String {
    format!("\"{}\"", &sha_of("etag", text)[..20])
}

/// `GET /repos/{repo}/contents/{path}` over `files`: the file, base64-encoded with its
/// `ETag` (or 304 when `if_none_match` is that tag); else the files directly under `path`
/// as a directory; else 404.
pub fn get(
    repo: &str,
    path: &str,
    files: &BTreeMap<String, String>,
    if_none_match: Option<&str>,
) -> Reply {
    if let Some(text) = files.get(path) {
        let tag = etag(text);
        if if_none_match == Some(tag.as_str()) {
            return Reply::empty(304);
        }
        let mut file = objects::content(repo, "file", path, &blob_sha(text), text.len());
        file["encoding"] = json!("base64");
        file["content"] = json!(base64::engine::general_purpose::STANDARD.encode(text));
        return Reply::json(200, file).with_header("etag", tag);
    }
    let prefix = format!("{path}/");
    let entries: Vec<Value> = files
        .iter()
        .filter(|(k, _)| {
            k.strip_prefix(&prefix)
                .is_some_and(|rest| !rest.contains('/'))
        })
        .map(|(k, text)| objects::content(repo, "file", k, &blob_sha(text), text.len()))
        .collect();
    if entries.is_empty() {
        Reply::json(404, json!({"message": "Not Found"}))
    } else {
        Reply::json(200, Value::Array(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_a_directory_and_a_conditional_read() {
        let files: BTreeMap<String, String> = [
            (".github/auditloop.yml", "enabled: true\n"),
            ("docs/decisions/D-1.md", "one"),
            ("docs/decisions/old/D-0.md", "zero"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let file = get("o/r", ".github/auditloop.yml", &files, None);
        assert_eq!(file.status, 200);
        let tag = etag("enabled: true\n");
        assert!(file.headers.contains(&("etag", tag.clone())));
        let body = file.body.unwrap();
        assert_eq!(body["sha"], blob_sha("enabled: true\n"));
        assert_eq!(
            get("o/r", ".github/auditloop.yml", &files, Some(&tag)).status,
            304
        );
        let listing = get("o/r", "docs/decisions", &files, None).body.unwrap();
        assert_eq!(listing.as_array().map(Vec::len), Some(1));
        assert_eq!(get("o/r", "nothing", &files, None).status, 404);
    }
}
