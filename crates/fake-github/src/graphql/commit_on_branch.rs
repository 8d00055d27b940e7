//! `createCommitOnBranch` on the fake's git data, as the REST tree, commit and non-forced
//! ref update do it (the same content-derived SHAs): the fake sees the written files and
//! may land someone else's push first (`World::before_commit`), and the compare-and-swap on
//! `expectedHeadOid` answers `STALE_DATA` or `NOT_FOUND` as GitHub does.

use base64::Engine;
use serde_json::Value;

use super::obj::{FieldError, Obj, Resolved};
use super::world::World;

/// The input fields the app never sends; the fake does not model them.
const UNSERVED_INPUT: &[(&str, &str, &str)] = &[
    (
        "clientMutationId",
        "",
        "CreateCommitOnBranchInput.clientMutationId",
    ),
    ("branch", "id", "CommittableBranch.id"),
    ("fileChanges", "deletions", "FileChanges.deletions"),
];

/// The files of `fileChanges.additions`, base64-decoded.
fn additions(input: &Value) -> Result<Vec<(String, String)>, FieldError> {
    let mut files = Vec::new();
    for addition in input["fileChanges"]["additions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = addition["path"].as_str().unwrap_or_default();
        let contents = addition["contents"].as_str().unwrap_or_default();
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(contents) else {
            let message = format!("The contents of {path:?} are not valid Base64.");
            return Err(FieldError::plain(message));
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(FieldError::unserved(&format!(
                "non-UTF-8 contents of {path:?}"
            )));
        };
        files.push((path.to_owned(), text));
    }
    Ok(files)
}

pub fn create_commit_on_branch(
    state: &mut dyn World,
    input: &Value,
) -> Result<Resolved, FieldError> {
    for (field, inner, what) in UNSERVED_INPUT {
        let given = if inner.is_empty() {
            &input[field]
        } else {
            &input[field][inner]
        };
        // Coercion gives `deletions` its default, `[]`.
        if !given.is_null() && given != &Value::Array(Vec::new()) {
            return Err(FieldError::unserved(what));
        }
    }
    let repo = input["branch"]["repositoryNameWithOwner"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let name = input["branch"]["branchName"].as_str().unwrap_or_default();
    let branch = name.strip_prefix("refs/heads/").unwrap_or(name).to_owned();
    let expected = input["expectedHeadOid"].as_str().unwrap_or_default();
    let files = additions(input)?;
    state.before_commit(&repo, &branch, &files);
    let head = state
        .git(&repo)
        .and_then(|g| g.refs.get(&format!("heads/{branch}")))
        .cloned();
    let Some(head) = head else {
        let message = format!("Could not resolve to a Ref named \"refs/heads/{branch}\".");
        return Err(FieldError::github("NOT_FOUND", message, false));
    };
    if head != expected {
        let message = format!(
            "Expected branch to point to \"{expected}\" but it did not.  Pull and try again."
        );
        return Err(FieldError::github("STALE_DATA", message, true));
    }
    let headline = input["message"]["headline"].as_str().unwrap_or_default();
    let message = match input["message"]["body"].as_str() {
        Some(body) if !body.is_empty() => format!("{headline}\n\n{body}"),
        _ => headline.to_owned(),
    };
    let commit = state.commit(&repo, &branch, &files, &message);
    Ok(Resolved::Object(Obj::CommitPayload { repo, commit }))
}
