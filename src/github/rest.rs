//! The REST calls auditloop makes besides the records branch, each under its documented
//! route, decoding only the fields we use.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::engine::policy::Permission;
use crate::github::api::status_error;
use crate::github::{Api, Call, GitHubError};
use crate::ids::RepoName;

fn path(repo: &RepoName, rest: &str) -> String {
    format!("/repos/{}/{}/{rest}", repo.owner(), repo.name())
}

#[derive(Debug, Clone, Deserialize)]
struct User {
    login: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Head {
    sha: String,
    #[serde(rename = "ref", default)]
    name: String,
}

#[derive(Debug, Clone, Deserialize)]
struct PullBody {
    number: u64,
    state: String,
    #[serde(default)]
    merged: Option<bool>,
    #[serde(default)]
    merged_at: Option<String>,
    #[serde(default)]
    body: Option<String>,
    user: User,
    head: Head,
    base: Head,
}

/// A pull request as auditloop reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pull {
    pub number: u64,
    pub open: bool,
    pub merged: bool,
    pub body: String,
    pub author: String,
    pub head_sha: String,
    pub base_ref: String,
}

impl From<PullBody> for Pull {
    fn from(p: PullBody) -> Self {
        Pull {
            number: p.number,
            open: p.state == "open",
            merged: p.merged.unwrap_or(false) || p.merged_at.is_some(),
            body: p.body.unwrap_or_default(),
            author: p.user.login,
            head_sha: p.head.sha,
            base_ref: p.base.name,
        }
    }
}

pub const GET_PULL: &str = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
pub const PATCH_PULL: &str = "PATCH /repos/{owner}/{repo}/pulls/{pull_number}";
pub const GET_CONTENT: &str = "GET /repos/{owner}/{repo}/contents/{path}";
pub const GET_PERMISSION: &str = "GET /repos/{owner}/{repo}/collaborators/{username}/permission";
pub const POST_COMMENT: &str = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub const LIST_COMMENTS: &str = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
pub const POST_REACTION: &str = "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions";
pub const POST_ISSUE: &str = "POST /repos/{owner}/{repo}/issues";
pub const LIST_ISSUES: &str = "GET /repos/{owner}/{repo}/issues";
pub const LIST_CHECKS: &str = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs";
pub const POST_CHECK: &str = "POST /repos/{owner}/{repo}/check-runs";
pub const PATCH_CHECK: &str = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}";
pub const PULLS_FOR_COMMIT: &str = "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls";

pub async fn get_pull(api: &Api, repo: &RepoName, number: u64) -> Result<Pull, GitHubError> {
    let body: PullBody = api
        .json(Call::get(GET_PULL, path(repo, &format!("pulls/{number}"))))
        .await?;
    Ok(body.into())
}

pub async fn set_pull_body(
    api: &Api,
    repo: &RepoName,
    number: u64,
    body: &str,
) -> Result<(), GitHubError> {
    api.send_ok(Call::patch(
        PATCH_PULL,
        path(repo, &format!("pulls/{number}")),
        &json!({ "body": body }),
    ))
    .await?;
    Ok(())
}

/// A file read through the contents API, conditionally on the ETag of the last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    NotModified,
    Missing,
    Found { text: String, etag: Option<String> },
}

fn encode_path(p: &str) -> String {
    p.split('/')
        .map(|seg| {
            seg.replace('%', "%25")
                .replace(' ', "%20")
                .replace('#', "%23")
                .replace('?', "%3F")
        })
        .collect::<Vec<_>>()
        .join("/")
}

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
    #[derive(Deserialize)]
    struct Content {
        #[serde(default)]
        content: Option<String>,
        #[serde(rename = "type", default)]
        kind: String,
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
pub async fn list_dir(
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
    #[derive(Deserialize)]
    struct Entry {
        name: String,
        #[serde(rename = "type", default)]
        kind: String,
    }
    let entries: Vec<Entry> = r.json::<Vec<Entry>>(GET_CONTENT).unwrap_or_default();
    Ok(entries
        .into_iter()
        .filter(|e| e.kind == "file")
        .map(|e| e.name)
        .collect())
}

/// The login's permission on the repository, ranked from `role_name` and
/// `user.permissions` (the `permission` field folds maintain and triage away). 404: none.
pub async fn permission(
    api: &Api,
    repo: &RepoName,
    login: &str,
) -> Result<Permission, GitHubError> {
    let r = api
        .send(Call::get(
            GET_PERMISSION,
            path(repo, &format!("collaborators/{login}/permission")),
        ))
        .await?;
    if r.status == 404 {
        return Ok(Permission::None);
    }
    if !r.is_success() {
        return Err(status_error(GET_PERMISSION, &r));
    }
    let v: Value = r.json(GET_PERMISSION)?;
    Ok(rank_permission(&v))
}

/// `role_name` when it is a built-in role; a custom role ranks as its highest flag.
pub fn rank_permission(answer: &Value) -> Permission {
    if let Some(p) = answer["role_name"].as_str().and_then(Permission::parse) {
        return p;
    }
    let flags = &answer["user"]["permissions"];
    let has = |k: &str| flags[k].as_bool().unwrap_or(false);
    if has("admin") {
        Permission::Admin
    } else if has("maintain") {
        Permission::Maintain
    } else if has("push") {
        Permission::Write
    } else if has("triage") {
        Permission::Triage
    } else if has("pull") {
        Permission::Read
    } else {
        answer["permission"]
            .as_str()
            .and_then(Permission::parse)
            .unwrap_or(Permission::None)
    }
}

pub async fn create_comment(
    api: &Api,
    repo: &RepoName,
    issue: u64,
    body: &str,
) -> Result<u64, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        id: u64,
    }
    let c: Created = api
        .json(Call::post(
            POST_COMMENT,
            path(repo, &format!("issues/{issue}/comments")),
            &json!({ "body": body }),
        ))
        .await?;
    Ok(c.id)
}

/// Comments of an issue updated since `since` (one page of 100), as (author login, body).
/// The issue-comments list has no sort order: `since` is how to ask for recent ones.
pub async fn comments_since(
    api: &Api,
    repo: &RepoName,
    issue: u64,
    since: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<(String, String)>, GitHubError> {
    #[derive(Deserialize)]
    struct C {
        #[serde(default)]
        body: Option<String>,
        user: User,
    }
    let since = since.format("%Y-%m-%dT%H:%M:%SZ");
    let list: Vec<C> = api
        .json(Call::get(
            LIST_COMMENTS,
            path(
                repo,
                &format!("issues/{issue}/comments?since={since}&per_page=100"),
            ),
        ))
        .await?;
    Ok(list
        .into_iter()
        .map(|c| (c.user.login, c.body.unwrap_or_default()))
        .collect())
}

/// GitHub answers 200 for a reaction that exists already, so repeating it is harmless.
pub async fn react(
    api: &Api,
    repo: &RepoName,
    comment: u64,
    content: &str,
) -> Result<(), GitHubError> {
    let call = Call::post(
        POST_REACTION,
        path(repo, &format!("issues/comments/{comment}/reactions")),
        &json!({ "content": content }),
    )
    .idempotent(true);
    api.send_ok(call).await?;
    Ok(())
}

pub async fn create_issue(
    api: &Api,
    repo: &RepoName,
    title: &str,
    body: &str,
    label: &str,
) -> Result<u64, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        number: u64,
    }
    let c: Created = api
        .json(Call::post(
            POST_ISSUE,
            path(repo, "issues"),
            &json!({ "title": title, "body": body, "labels": [label] }),
        ))
        .await?;
    Ok(c.number)
}

/// The newest issue labelled `label` (open or closed, among the latest 100) whose body holds
/// `marker`: an issue opened before a failure that GitHub then redelivered. The list
/// endpoint, unlike search, sees an issue as soon as it exists.
pub async fn find_issue(
    api: &Api,
    repo: &RepoName,
    label: &str,
    marker: &str,
) -> Result<Option<u64>, GitHubError> {
    #[derive(Deserialize)]
    struct Listed {
        number: u64,
        #[serde(default)]
        body: Option<String>,
        #[serde(default)]
        pull_request: Option<Value>,
    }
    let list: Vec<Listed> = api
        .json(Call::get(
            LIST_ISSUES,
            path(
                repo,
                &format!(
                    "issues?labels={}&state=all&sort=created&direction=desc&per_page=100",
                    query_value(label)
                ),
            ),
        ))
        .await?;
    Ok(list
        .into_iter()
        .find(|i| i.pull_request.is_none() && i.body.as_deref().is_some_and(|b| b.contains(marker)))
        .map(|i| i.number))
}

/// Percent-encodes a query value (everything but RFC 3986 unreserved characters).
fn query_value(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A check run on a commit, as listed.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunInfo {
    pub id: u64,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub app: Option<AppRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AppRef {
    #[serde(default)]
    pub slug: Option<String>,
}

/// The latest run of each check on `sha` (one page of 100).
pub async fn check_runs(
    api: &Api,
    repo: &RepoName,
    sha: &str,
) -> Result<Vec<CheckRunInfo>, GitHubError> {
    #[derive(Deserialize)]
    struct List {
        check_runs: Vec<CheckRunInfo>,
    }
    let l: List = api
        .json(Call::get(
            LIST_CHECKS,
            path(
                repo,
                &format!("commits/{sha}/check-runs?filter=latest&per_page=100"),
            ),
        ))
        .await?;
    Ok(l.check_runs)
}

pub async fn create_check_run(
    api: &Api,
    repo: &RepoName,
    body: &Value,
) -> Result<u64, GitHubError> {
    #[derive(Deserialize)]
    struct Created {
        id: u64,
    }
    let c: Created = api
        .json(Call::post(POST_CHECK, path(repo, "check-runs"), body))
        .await?;
    Ok(c.id)
}

pub async fn update_check_run(
    api: &Api,
    repo: &RepoName,
    id: u64,
    body: &Value,
) -> Result<(), GitHubError> {
    api.send_ok(Call::patch(
        PATCH_CHECK,
        path(repo, &format!("check-runs/{id}")),
        body,
    ))
    .await?;
    Ok(())
}

/// Open pull requests whose head is `sha` (for fork PRs too, which check payloads omit).
pub async fn open_pulls_for_commit(
    api: &Api,
    repo: &RepoName,
    sha: &str,
) -> Result<Vec<Pull>, GitHubError> {
    let list: Vec<PullBody> = api
        .json(Call::get(
            PULLS_FOR_COMMIT,
            path(repo, &format!("commits/{sha}/pulls")),
        ))
        .await?;
    Ok(list
        .into_iter()
        .map(Pull::from)
        .filter(|p| p.open && p.head_sha == sha)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::query_value;

    #[test]
    fn query_values_keep_only_unreserved_characters() {
        for (raw, encoded) in [
            ("tech-debt", "tech-debt"),
            ("tech debt", "tech%20debt"),
            ("a,b&c=d+e#f", "a%2Cb%26c%3Dd%2Be%23f"),
            ("dette-ã", "dette-%C3%A3"),
        ] {
            assert_eq!(query_value(raw), encoded, "{raw}");
        }
    }
}
