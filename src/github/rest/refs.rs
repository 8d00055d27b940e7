//! Refs outside the branches, used as claims: creating a ref is atomic on GitHub, and a
//! second create of the same name answers 422, so it is a compare-and-set that every
//! replica of the App shares without sharing anything else.

use serde::Serialize;

use super::{path, DELETE_REF, GET_REF, MATCHING_REFS, POST_REF};
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::{CommitSha, RepoName};

/// The body of a ref create.
#[derive(Debug, Serialize)]
struct NewRef<'a> {
    #[serde(rename = "ref")]
    name: &'a str,
    sha: &'a CommitSha,
}

/// `true` when this call created `name` (a full `refs/...` name) at `sha`; `false` when it
/// exists already. Not retried after an unknown outcome: the caller asks again by name.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn create_ref(
    api: &Api,
    repo: &RepoName,
    name: &str,
    sha: &CommitSha,
) -> Result<bool, GitHubError> {
    let call =
        Call::post(POST_REF, path(repo, "git/refs"), &NewRef { name, sha }).idempotent(false);
    let r = api.send(call).await?;
    match r.status {
        s if (200..300).contains(&s) => Ok(true),
        // GitHub answers 422 both for a name taken and for a bad SHA; only the first is a
        // lost claim.
        422 if status_error(POST_REF, &r)
            .to_string()
            .contains("already exists") =>
        {
            Ok(false)
        }
        _ => Err(status_error(POST_REF, &r)),
    }
}

/// Removes `name` (a full `refs/...` name); gone already is fine.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn delete_ref(api: &Api, repo: &RepoName, name: &str) -> Result<(), GitHubError> {
    let Some(short) = name.strip_prefix("refs/") else {
        return Ok(());
    };
    let call = Call::new(
        http::Method::DELETE,
        DELETE_REF,
        path(
            repo,
            &format!("git/refs/{}", crate::github::encode::path(short)),
        ),
    );
    let r = api.send(call).await?;
    match r.status {
        s if (200..300).contains(&s) => Ok(()),
        404 | 422 => Ok(()),
        _ => Err(status_error(DELETE_REF, &r)),
    }
}

#[derive(serde::Deserialize)]
struct RefItem {
    #[serde(rename = "ref")]
    name: String,
    object: RefTarget,
}

#[derive(serde::Deserialize)]
struct RefTarget {
    sha: String,
}

/// The object `name` (a full `refs/...` name) points at, or `None` when there is no such ref.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn ref_target(
    api: &Api,
    repo: &RepoName,
    name: &str,
) -> Result<Option<String>, GitHubError> {
    let Some(short) = name.strip_prefix("refs/") else {
        return Ok(None);
    };
    let route = format!("git/ref/{}", crate::github::encode::path(short));
    let r = api.send(Call::get(GET_REF, path(repo, &route))).await?;
    match r.status {
        s if (200..300).contains(&s) => {
            #[derive(serde::Deserialize)]
            struct One {
                object: RefTarget,
            }
            Ok(Some(r.json::<One>(GET_REF)?.object.sha))
        }
        404 => Ok(None),
        _ => Err(status_error(GET_REF, &r)),
    }
}

/// The full names of the refs whose name starts with `prefix` (`refs/` left out). GitHub
/// answers every match at once (the route takes no paging) and 404 when nothing matches
/// in some repositories, such as empty ones.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn matching_refs(
    api: &Api,
    repo: &RepoName,
    prefix: &str,
) -> Result<Vec<String>, GitHubError> {
    Ok(matching_refs_at(api, repo, prefix)
        .await?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// [`matching_refs`], each with the object it points at.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn matching_refs_at(
    api: &Api,
    repo: &RepoName,
    prefix: &str,
) -> Result<Vec<(String, String)>, GitHubError> {
    let route = format!("git/matching-refs/{}", crate::github::encode::path(prefix));
    let r = api
        .send(Call::get(MATCHING_REFS, path(repo, &route)))
        .await?;
    match r.status {
        s if (200..300).contains(&s) => {
            let items: Vec<RefItem> = r.json(MATCHING_REFS)?;
            Ok(items.into_iter().map(|i| (i.name, i.object.sha)).collect())
        }
        404 => Ok(Vec::new()),
        _ => Err(status_error(MATCHING_REFS, &r)),
    }
}
