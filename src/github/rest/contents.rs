//! Files and directories of a branch through the contents API.

use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde::Deserialize;

use super::{path, GET_CONTENT};
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

/// A file read through the contents API, conditionally on the `ETag` of the last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    NotModified,
    Missing,
    Found { text: String, etag: Option<String> },
}

/// A repository path for the contents route: `/` stays a separator, and what would end the
/// path or change its meaning (`%`, space, `#`, `?`, controls, non-ASCII) is encoded.
fn encode_path(p: &str) -> String {
    const PATH: &AsciiSet = &CONTROLS.add(b'%').add(b' ').add(b'#').add(b'?');
    utf8_percent_encode(p, PATH).to_string()
}

/// A file as the contents API answers it.
#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    content: Option<String>,
    #[serde(rename = "type", default)]
    kind: String,
}

/// One entry of a directory listing.
#[derive(Deserialize)]
struct Entry {
    name: String,
    #[serde(rename = "type", default)]
    kind: String,
}

/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub async fn read_file(
    api: &Api,
    repo: &RepoName,
    file: &str,
    git_ref: &str,
    etag: Option<&str>,
) -> Result<FileRead, GitHubError> {
    let mut call = Call::get(
        GET_CONTENT,
        path(
            repo,
            &format!(
                "contents/{}?ref={}",
                encode_path(file),
                encode_path(git_ref)
            ),
        ),
    );
    if let Some(tag) = etag {
        call = call.header("if-none-match", tag);
    }
    let r = api.send(call).await?;
    match r.status {
        304 => return Ok(FileRead::NotModified),
        404 => return Ok(FileRead::Missing),
        s if !(200..300).contains(&s) => return Err(status_error(GET_CONTENT, &r)),
        _ => {}
    }
    let c: Content = r.json(GET_CONTENT)?;
    if c.kind != "file" {
        return Ok(FileRead::Missing);
    }
    let packed: String = c
        .content
        .unwrap_or_default()
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(packed)
        .map_err(|e| GitHubError::Decode {
            route: GET_CONTENT,
            message: e.to_string(),
        })?;
    let text = String::from_utf8(bytes).map_err(|_| GitHubError::Decode {
        route: GET_CONTENT,
        message: format!("{file} is not UTF-8"),
    })?;
    let etag = r
        .headers
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Ok(FileRead::Found { text, etag })
}

/// File names in a directory of `git_ref`; a missing directory is empty.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn list_dir(
    api: &Api,
    repo: &RepoName,
    dir: &str,
    git_ref: &str,
) -> Result<Vec<String>, GitHubError> {
    let call = Call::get(
        GET_CONTENT,
        path(
            repo,
            &format!("contents/{}?ref={}", encode_path(dir), encode_path(git_ref)),
        ),
    );
    let r = api.send(call).await?;
    if r.status == 404 {
        return Ok(Vec::new());
    }
    if !r.is_success() {
        return Err(status_error(GET_CONTENT, &r));
    }
    let entries: Vec<Entry> = r.json::<Vec<Entry>>(GET_CONTENT).unwrap_or_default();
    Ok(entries
        .into_iter()
        .filter(|e| e.kind == "file")
        .map(|e| e.name)
        .collect())
}
