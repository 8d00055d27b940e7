//! GitHub's objects as the fake answers them: one builder per kind, with every field
//! GitHub's REST description says it always sends (checked in `openapi`), and the values
//! a test cares about as arguments. URLs point at api.github.com and github.com.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

mod git_data;
pub use git_data::{blob, code_comparison, comparison, content, git_commit, git_ref, git_tree};

pub const API: &str = "https://api.github.com";
pub const WEB: &str = "https://github.com";
/// The time every object was made and last changed, unless a test says otherwise.
pub const CREATED: &str = "2026-01-05T09:00:00Z";

/// A stable id for a name (a login, a repository), so the same name has the same id.
pub(crate) fn id_of(name: &str) -> u64 {
    let d = Sha256::digest(name.as_bytes());
    u64::from(u32::from_be_bytes([d[0], d[1], d[2], d[3]])) + 1
}

pub fn node_id(kind: &str, id: u64) -> String {
    format!("{kind}_kwDO{id:010}")
}

/// `fields` as `{base}/{suffix}` URLs (`""` for `base` itself), merged into `obj`.
fn with_urls(mut obj: Value, base: &str, fields: &[(&str, &str)]) -> Value {
    let map = obj.as_object_mut().expect("an object");
    for (field, suffix) in fields {
        let url = if suffix.is_empty() {
            base.to_owned()
        } else {
            format!("{base}/{suffix}")
        };
        map.insert((*field).to_owned(), Value::String(url));
    }
    obj
}

fn merge(mut obj: Value, extra: Value) -> Value {
    if let (Some(dst), Value::Object(src)) = (obj.as_object_mut(), extra) {
        dst.extend(src);
    }
    obj
}

/// A user (`simple-user`); a login ending in `[bot]` is a Bot.
pub fn user(login: &str) -> Value {
    let id = id_of(login);
    // GitHub escapes a bot's brackets in its URLs and links its page to the App's.
    let (kind, html) = match login.strip_suffix("[bot]") {
        Some(slug) => ("Bot", format!("{WEB}/apps/{slug}")),
        None => ("User", format!("{WEB}/{login}")),
    };
    let base = format!(
        "{API}/users/{}",
        login.replace('[', "%5B").replace(']', "%5D")
    );
    with_urls(
        json!({"login": login, "id": id, "node_id": node_id("U", id), "gravatar_id": "",
               "type": kind, "site_admin": false,
               "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
               "html_url": html}),
        &base,
        &[
            ("url", ""),
            ("followers_url", "followers"),
            ("following_url", "following"),
            ("gists_url", "gists"),
            ("starred_url", "starred"),
            ("subscriptions_url", "subscriptions"),
            ("organizations_url", "orgs"),
            ("repos_url", "repos"),
            ("events_url", "events"),
            ("received_events_url", "received_events"),
        ],
    )
}

/// The bot user an App acts as.
pub fn bot(slug: &str) -> Value {
    user(&format!("{slug}[bot]"))
}

/// A repository (`repository`), `owner/name`, default branch `main`.
pub fn repository(full_name: &str) -> Value {
    let (owner, name) = full_name.split_once('/').expect("owner/name");
    let id = id_of(full_name);
    let base = format!("{API}/repos/{full_name}");
    let obj = json!({
        "id": id, "node_id": node_id("R", id), "name": name, "full_name": full_name,
        "owner": user(owner), "private": false, "description": null, "fork": false,
        "html_url": format!("{WEB}/{full_name}"),
        "clone_url": format!("{WEB}/{full_name}.git"),
        "git_url": format!("git://github.com/{full_name}.git"),
        "ssh_url": format!("git@github.com:{full_name}.git"),
        "svn_url": format!("{WEB}/{full_name}"),
        "mirror_url": null, "homepage": null, "language": "Rust",
        "forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0,
        "open_issues": 0, "open_issues_count": 0, "size": 120, "default_branch": "main",
        "has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false,
        "has_downloads": true, "has_discussions": false, "archived": false, "disabled": false,
        "license": null, "visibility": "public",
        "pushed_at": CREATED, "created_at": CREATED, "updated_at": CREATED,
    });
    with_urls(
        obj,
        &base,
        &[
            ("url", ""),
            ("archive_url", "{archive_format}{/ref}"),
            ("assignees_url", "assignees{/user}"),
            ("blobs_url", "git/blobs{/sha}"),
            ("branches_url", "branches{/branch}"),
            ("collaborators_url", "collaborators{/collaborator}"),
            ("comments_url", "comments{/number}"),
            ("commits_url", "commits{/sha}"),
            ("compare_url", "compare/{base}...{head}"),
            ("contents_url", "contents/{+path}"),
            ("contributors_url", "contributors"),
            ("deployments_url", "deployments"),
            ("downloads_url", "downloads"),
            ("events_url", "events"),
            ("forks_url", "forks"),
            ("git_commits_url", "git/commits{/sha}"),
            ("git_refs_url", "git/refs{/sha}"),
            ("git_tags_url", "git/tags{/sha}"),
            ("hooks_url", "hooks"),
            ("issue_comment_url", "issues/comments{/number}"),
            ("issue_events_url", "issues/events{/number}"),
            ("issues_url", "issues{/number}"),
            ("keys_url", "keys{/key_id}"),
            ("labels_url", "labels{/name}"),
            ("languages_url", "languages"),
            ("merges_url", "merges"),
            ("milestones_url", "milestones{/number}"),
            (
                "notifications_url",
                "notifications{?since,all,participating}",
            ),
            ("pulls_url", "pulls{/number}"),
            ("releases_url", "releases{/id}"),
            ("stargazers_url", "stargazers"),
            ("statuses_url", "statuses/{sha}"),
            ("subscribers_url", "subscribers"),
            ("subscription_url", "subscription"),
            ("tags_url", "tags"),
            ("teams_url", "teams"),
            ("trees_url", "git/trees{/sha}"),
        ],
    )
}

/// A repository as `GET /repos/{owner}/{repo}` answers it (`full-repository`).
pub fn full_repository(full_name: &str) -> Value {
    merge(
        repository(full_name),
        json!({"network_count": 0, "subscribers_count": 1}),
    )
}

/// An App (`integration`) owned by the organization `octo-org`.
pub fn app(slug: &str) -> Value {
    let id = id_of(slug);
    json!({
        "id": id, "slug": slug, "node_id": node_id("A", id), "client_id": format!("Iv1.{id:016x}"),
        "owner": user("octo-org"), "name": slug, "description": null,
        "external_url": format!("https://{slug}.example.com"),
        "html_url": format!("{WEB}/apps/{slug}"),
        "created_at": CREATED, "updated_at": CREATED,
        "permissions": {"checks": "write", "contents": "write", "issues": "write",
                        "metadata": "read", "pull_requests": "write"},
        "events": ["check_run", "issue_comment", "pull_request"],
    })
}

/// A check run of the App `app_slug` in `repo`, from the fields the request set
/// (`name`, `head_sha`, `status`, `conclusion`, `output`, ...).
pub fn check_run(repo: &str, id: u64, app_slug: &str, fields: &Value) -> Value {
    let mut run = json!({
        "id": id, "node_id": node_id("CR", id), "external_id": "",
        "url": format!("{API}/repos/{repo}/check-runs/{id}"),
        "html_url": format!("{WEB}/{repo}/runs/{id}"),
        "details_url": format!("{WEB}/{repo}/runs/{id}"),
        "status": "queued", "conclusion": null, "started_at": CREATED, "completed_at": null,
        "check_suite": {"id": 5000 + id % 1000},
        "app": app(app_slug), "pull_requests": [],
    });
    update_check_run(&mut run, fields);
    run
}

/// Applies the fields of a create or an update to a run, as GitHub does: a conclusion
/// completes the run, a status short of completed clears it; `output` is replaced.
pub fn update_check_run(run: &mut Value, fields: &Value) {
    let annotations = format!("{}/annotations", run["url"].as_str().unwrap_or_default());
    let output = fields.get("output").cloned();
    *run = merge(run.take(), fields.clone());
    if !run["conclusion"].is_null() && fields.get("conclusion").is_some() {
        run["status"] = json!("completed");
    } else if fields.get("status").is_some_and(|s| s != "completed") {
        run["conclusion"] = Value::Null;
        run["completed_at"] = Value::Null;
    }
    if run["status"] == "completed" && run["completed_at"].is_null() {
        run["completed_at"] = json!(CREATED);
    }
    if output.is_some() || run["output"].is_null() {
        run["output"] = merge(
            json!({"title": null, "summary": null, "text": null, "annotations_count": 0,
                   "annotations_url": annotations}),
            output.unwrap_or(Value::Null),
        );
    }
}

/// A pull request (`pull-request`) from `head` (branch `feature`) into `main`.
pub fn pull_request(repo: &str, number: u64, head_sha: &str, body: &str, author: &str) -> Value {
    let id = 10_000 + number;
    let base = format!("{API}/repos/{repo}/pulls/{number}");
    let issue = format!("{API}/repos/{repo}/issues/{number}");
    let html = format!("{WEB}/{repo}/pull/{number}");
    let side = |name: &str, sha: &str| {
        json!({"label": format!("{}:{name}", repo.split('/').next().unwrap_or(repo)),
               "ref": name, "sha": sha, "user": user(repo.split('/').next().unwrap_or(repo)),
               "repo": repository(repo)})
    };
    let link = |href: String| json!({"href": href});
    let fields = json!({
        "id": id, "node_id": node_id("PR", id), "number": number, "state": "open",
        "locked": false, "title": format!("Change {number}"), "user": user(author),
        "body": body, "labels": [], "milestone": null, "assignee": null, "assignees": [],
        "requested_reviewers": [], "requested_teams": [], "active_lock_reason": null,
        "created_at": CREATED, "updated_at": CREATED, "closed_at": null, "merged_at": null,
        "merge_commit_sha": null, "draft": false,
        "head": side("feature", head_sha), "base": side("main", &"0".repeat(40)),
        "author_association": "CONTRIBUTOR", "auto_merge": null,
        "merged": false, "mergeable": true, "rebaseable": true, "mergeable_state": "clean",
        "merged_by": null, "comments": 0, "review_comments": 0, "maintainer_can_modify": false,
        "commits": 1, "additions": 1, "deletions": 0, "changed_files": 1,
    });
    let urls = json!({
        "html_url": html, "diff_url": format!("{html}.diff"), "patch_url": format!("{html}.patch"),
        "issue_url": issue, "url": base, "commits_url": format!("{base}/commits"),
        "review_comments_url": format!("{base}/comments"), "comments_url": format!("{issue}/comments"),
        "review_comment_url": format!("{API}/repos/{repo}/pulls/comments{{/number}}"),
        "statuses_url": format!("{API}/repos/{repo}/statuses/{head_sha}"),
        "_links": {
            "self": link(base.clone()), "html": link(html.clone()), "issue": link(issue.clone()),
            "comments": link(format!("{issue}/comments")),
            "review_comments": link(format!("{base}/comments")),
            "review_comment": link(format!("{API}/repos/{repo}/pulls/comments{{/number}}")),
            "commits": link(format!("{base}/commits")),
            "statuses": link(format!("{API}/repos/{repo}/statuses/{head_sha}")),
        },
    });
    merge(fields, urls)
}

/// A pull request as GitHub lists it (`pull-request-simple`): without the fields only
/// `GET .../pulls/{n}` computes, `merged` among them (a listing shows `merged_at` only).
pub fn pull_request_listed(pr: &Value) -> Value {
    let mut listed = pr.clone();
    if let Some(map) = listed.as_object_mut() {
        for field in [
            "merged",
            "mergeable",
            "rebaseable",
            "mergeable_state",
            "merged_by",
            "comments",
            "review_comments",
            "maintainer_can_modify",
            "commits",
            "additions",
            "deletions",
            "changed_files",
        ] {
            map.remove(field);
        }
    }
    listed
}

/// Sets the head commit of a pull request built by `pull_request`.
pub fn set_pull_head(pr: &mut Value, sha: &str) {
    pr["head"]["sha"] = json!(sha);
}

/// Closes a pull request built by `pull_request`, merged or not.
pub fn close_pull(pr: &mut Value, merged: bool) {
    pr["state"] = json!("closed");
    pr["closed_at"] = json!(CREATED);
    pr["merged"] = json!(merged);
    pr["mergeable"] = Value::Null;
    if merged {
        pr["merged_at"] = json!(CREATED);
        pr["merge_commit_sha"] = json!("f".repeat(40));
        pr["merged_by"] = user("octo-org");
    }
}

/// An issue (`issue`) opened by the App `app_slug` from the request's `title`, `body` and
/// `labels`.
pub fn issue(repo: &str, number: u64, app_slug: &str, fields: &Value) -> Value {
    let id = 20_000 + number;
    let base = format!("{API}/repos/{repo}/issues/{number}");
    let labels: Vec<Value> = fields["labels"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| {
            let lid = id_of(name);
            json!({"id": lid, "node_id": node_id("LA", lid), "name": name, "color": "ededed",
                   "default": false, "description": null,
                   "url": format!("{API}/repos/{repo}/labels/{name}")})
        })
        .collect();
    let state = fields["state"].as_str().unwrap_or("open");
    let closed_at = (state == "closed").then_some(CREATED);
    let obj = json!({
        "id": id, "node_id": node_id("I", id), "number": number, "state": state,
        "state_reason": null, "locked": false, "active_lock_reason": null,
        "title": fields["title"].as_str().unwrap_or_default(),
        "body": fields["body"].clone(), "user": bot(app_slug), "labels": labels,
        "assignee": null, "assignees": [], "milestone": null, "comments": 0,
        "author_association": "NONE", "closed_at": closed_at,
        "created_at": CREATED, "updated_at": CREATED,
        "repository_url": format!("{API}/repos/{repo}"),
        "html_url": format!("{WEB}/{repo}/issues/{number}"),
    });
    with_urls(
        obj,
        &base,
        &[
            ("url", ""),
            ("labels_url", "labels{/name}"),
            ("comments_url", "comments"),
            ("events_url", "events"),
        ],
    )
}

/// A comment (`issue-comment`) by `author` on issue or pull request `issue`.
pub fn issue_comment(repo: &str, id: u64, issue: u64, body: &str, author: &str) -> Value {
    json!({
        "id": id, "node_id": node_id("IC", id), "body": body, "user": user(author),
        "url": format!("{API}/repos/{repo}/issues/comments/{id}"),
        "html_url": format!("{WEB}/{repo}/pull/{issue}#issuecomment-{id}"),
        "issue_url": format!("{API}/repos/{repo}/issues/{issue}"),
        "author_association": "NONE", "created_at": CREATED, "updated_at": CREATED,
    })
}

/// A reaction (`reaction`) by the App's bot.
pub fn reaction(id: u64, content: &str, app_slug: &str) -> Value {
    json!({"id": id, "node_id": node_id("REA", id), "user": bot(app_slug),
           "content": content, "created_at": CREATED})
}

/// GitHub's permission answer (`repository-collaborator-permission`): `permission` folds
/// maintain into write and triage into read.
pub fn permission(login: &str, role: &str) -> Value {
    let folded = match role {
        "maintain" => "write",
        "triage" => "read",
        other => other,
    };
    let rank = ["read", "triage", "write", "maintain", "admin"]
        .iter()
        .position(|r| *r == role)
        .unwrap_or(0);
    let mut collaborator = user(login);
    collaborator["role_name"] = json!(role);
    collaborator["permissions"] = json!({
        "pull": true, "triage": rank >= 1, "push": rank >= 2, "maintain": rank >= 3, "admin": rank >= 4
    });
    json!({"permission": folded, "role_name": role, "user": collaborator})
}

/// An installation of the App `app_slug` on the account `login`.
pub fn installation(id: u64, login: &str, app_slug: &str) -> Value {
    json!({
        "id": id, "app_id": id_of(app_slug), "app_slug": app_slug, "account": user(login),
        "target_id": id_of(login), "target_type": "Organization",
        "repository_selection": "all", "single_file_name": null,
        "access_tokens_url": format!("{API}/app/installations/{id}/access_tokens"),
        "repositories_url": format!("{API}/installation/repositories"),
        "html_url": format!("{WEB}/organizations/{login}/settings/installations/{id}"),
        "events": ["check_run", "issue_comment", "pull_request"],
        "permissions": {"checks": "write", "contents": "write", "issues": "write",
                        "metadata": "read", "pull_requests": "write"},
        "created_at": CREATED, "updated_at": CREATED, "suspended_by": null, "suspended_at": null,
    })
}
