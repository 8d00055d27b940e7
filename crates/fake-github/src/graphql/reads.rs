//! The GraphQL fields of the app's `FirstReads` query beyond git data: a file of a branch
//! (`Repository.object`), a pull request, and the latest check runs on its head, each read
//! from the same state as the REST route that serves it (contents, pulls, check-runs), so
//! that GraphQL and REST always agree.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::obj::{page_size, FieldError, Obj, Resolved};
use super::world::{PullCommitInfo, World};
use crate::contents::blob_sha;

/// Type, field and the arguments a document may give it: what `FirstReads` asks of them.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Repository", "object", &["expression", "oid"]),
    ("Repository", "pullRequest", &["number"]),
    ("Blob", "oid", &[]),
    ("Blob", "text", &[]),
    ("Blob", "isTruncated", &[]),
    ("PullRequest", "id", &[]),
    ("PullRequest", "number", &[]),
    ("PullRequest", "state", &[]),
    ("PullRequest", "merged", &[]),
    ("PullRequest", "title", &[]),
    ("PullRequest", "body", &[]),
    ("PullRequest", "headRefOid", &[]),
    ("PullRequest", "baseRefName", &[]),
    ("PullRequest", "author", &[]),
    ("PullRequest", "commits", &["last", "first", "after"]),
    ("PullRequestCommitConnection", "pageInfo", &[]),
    ("PullRequestCommit", "commit", &[]),
    ("Commit", "author", &[]),
    ("Commit", "committer", &[]),
    ("GitActor", "user", &[]),
    ("User", "login", &[]),
    ("Bot", "login", &[]),
    ("PullRequestCommitConnection", "nodes", &[]),
    ("Commit", "checkSuites", &["first"]),
    ("Commit", "associatedPullRequests", &["first"]),
    ("PullRequestConnection", "nodes", &[]),
    ("PullRequest", "isCrossRepository", &[]),
    ("Commit", "parents", &["first"]),
    ("CommitConnection", "nodes", &[]),
    ("CheckSuiteConnection", "pageInfo", &[]),
    ("CheckSuiteConnection", "nodes", &[]),
    ("CheckSuite", "app", &[]),
    ("CheckSuite", "checkRuns", &["first", "filterBy"]),
    ("App", "slug", &[]),
    ("CheckRunConnection", "pageInfo", &[]),
    ("CheckRunConnection", "nodes", &[]),
    ("CheckRun", "databaseId", &[]),
    ("CheckRun", "name", &[]),
    ("CheckRun", "status", &[]),
    ("CheckRun", "conclusion", &[]),
    ("CheckRun", "externalId", &[]),
    ("CheckRun", "summary", &[]),
];

fn leaf(v: Value) -> Resolved {
    Resolved::Leaf(v)
}

fn list(items: impl IntoIterator<Item = Obj>) -> Resolved {
    Resolved::List(items.into_iter().map(Resolved::Object).collect())
}

/// A GraphQL enum value from a REST one: `in_progress` is `IN_PROGRESS`.
fn enum_of(v: &Value) -> Value {
    v.as_str()
        .map_or(Value::Null, |s| json!(s.to_ascii_uppercase()))
}

/// The value of the served field `field` of `obj`, for the objects of this module.
pub fn resolve(
    state: &dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    Ok(match (obj, field) {
        (Obj::Repository(repo), "object") => object(state, repo, args)?,
        (Obj::Repository(repo), "pullRequest") => {
            let number = args.get("number").and_then(Value::as_u64).unwrap_or(0);
            if !state.pulls(repo).iter().any(|p| p["number"] == number) {
                let message =
                    format!("Could not resolve to a PullRequest with the number of {number}.");
                return Err(FieldError::github("NOT_FOUND", message, true));
            }
            Resolved::Object(Obj::PullRequest {
                repo: repo.clone(),
                number,
            })
        }
        (Obj::Blob { oid, .. }, "oid") => leaf(json!(oid)),
        (Obj::Blob { text, .. }, "text") => leaf(json!(text)),
        (Obj::Blob { .. }, "isTruncated") => leaf(json!(false)),
        (Obj::PullRequest { repo, number }, _) => {
            let pulls = state.pulls(repo);
            let pr = pulls
                .iter()
                .find(|p| p["number"] == *number)
                .expect("resolved");
            let commits = state.pull_commits(repo, *number);
            pull_field(pr, (repo, &commits), field, args)?
        }
        (Obj::Actor { login, .. }, "login") => leaf(json!(login)),
        (Obj::PullCommits { next, .. }, "pageInfo") => Resolved::Object(Obj::PageInfo {
            has_next: next.is_some(),
            end_cursor: next.clone(),
            cursors: true,
        }),
        (Obj::PullCommits { repo, commits, .. }, "nodes") => {
            list(commits.iter().map(|c| Obj::PullCommit {
                repo: repo.clone(),
                commit: c.clone(),
            }))
        }
        (Obj::PullCommit { repo, commit }, "commit") => Resolved::Object(Obj::Commit {
            repo: repo.clone(),
            oid: commit.oid.clone(),
        }),
        (Obj::Commit { repo, oid }, "author" | "committer") => {
            let linked = state
                .pulls(repo)
                .iter()
                .filter_map(|p| p["number"].as_u64())
                .flat_map(|n| state.pull_commits(repo, n))
                .find(|c| c.oid == *oid)
                .and_then(|c| {
                    if field == "author" {
                        c.author
                    } else {
                        c.committer
                    }
                });
            Resolved::Object(Obj::GitActor(linked))
        }
        (Obj::GitActor(login), "user") => match login {
            // GitHub links no account when the commit's e-mail is nobody's.
            None => leaf(Value::Null),
            Some(login) => Resolved::Object(Obj::Actor {
                login: login.clone(),
                bot: false,
            }),
        },
        (Obj::Commit { repo, oid }, "associatedPullRequests") => {
            // As `GET …/commits/{sha}/pulls` lists them: this repository's PRs on the commit.
            let pulls = state.pulls(repo);
            let listed = crate::pulls::for_commit(pulls.into_iter(), oid);
            let first = page_size(args, "first", "associatedPullRequests")?;
            Resolved::Object(Obj::Pulls {
                repo: repo.clone(),
                numbers: listed
                    .iter()
                    .filter_map(|p| p["number"].as_u64())
                    .take(first)
                    .collect(),
            })
        }
        (Obj::Pulls { repo, numbers }, "nodes") => {
            list(numbers.iter().map(|&number| Obj::PullRequest {
                repo: repo.clone(),
                number,
            }))
        }
        (Obj::Commit { repo, oid }, "checkSuites") => check_suites(state, (repo, oid), args)?,
        (Obj::CheckSuites { has_next, .. } | Obj::CheckRuns { has_next, .. }, "pageInfo") => {
            Resolved::Object(Obj::PageInfo {
                has_next: *has_next,
                end_cursor: None,
                cursors: false,
            })
        }
        (Obj::CheckSuites { page, .. }, "nodes") => {
            list(page.iter().map(|(app, runs)| Obj::CheckSuite {
                app: app.clone(),
                runs: runs.clone(),
            }))
        }
        (Obj::CheckSuite { app, .. }, "app") => app
            .clone()
            .map_or(leaf(Value::Null), |slug| Resolved::Object(Obj::App(slug))),
        (Obj::App(slug), "slug") => leaf(json!(slug)),
        (Obj::CheckSuite { runs, .. }, "checkRuns") => check_runs(runs, args)?,
        (Obj::CheckRuns { page, .. }, "nodes") => list(page.iter().cloned().map(Obj::CheckRun)),
        (Obj::CheckRun(run), _) => run_field(run, field)?,
        _ => {
            let what = format!("{}.{field}", obj.type_name());
            return Err(FieldError::unserved(&what));
        }
    })
}

/// Whether `name` can only be read as a branch: not `HEAD`, an object ID or a revision
/// expression (`main~1`, `main^`, `@{u}`, …).
fn is_branch_name(name: &str) -> bool {
    let oid = name.len() >= 4 && name.bytes().all(|b| b.is_ascii_hexdigit());
    !name.is_empty()
        && name != "HEAD"
        && !name.contains("..")
        && !name.contains("@{")
        && !oid
        && !name
            .chars()
            .any(|c| c.is_ascii_control() || " ~^:?*[\\".contains(c))
}

/// Whether `rev` is a full commit SHA.
fn is_oid(rev: &str) -> bool {
    rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `object(expression: "<branch>:<path>")`: the file at `path` of `branch` as the contents
/// API serves it (the same blob SHA), a `Tree` for a directory, or null. A commit SHA for
/// `<branch>` reads that commit's tree when the git data holds it; a commit known only by
/// its SHA (a pull request's head) has the files the contents API serves at that ref.
fn object(
    state: &dyn World,
    repo: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    if let Some(oid) = args.get("oid").and_then(Value::as_str) {
        return Ok(super::packet::commit_by_oid(state, repo, oid));
    }
    let expression = args
        .get("expression")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((branch, path)) = expression
        .split_once(':')
        .filter(|(b, p)| (is_branch_name(b) || is_oid(b)) && !p.is_empty())
    else {
        return Err(FieldError::unserved(&format!(
            "Repository.object(expression: {expression:?}): only `<branch>:<path>` and `<commit SHA>:<path>` are served"
        )));
    };
    if is_oid(branch) {
        if let Some(found) = super::trees::object_at_commit(state, repo, branch, path) {
            return Ok(found);
        }
        if !super::packet::is_known_commit(state, repo, branch) {
            return Ok(leaf(Value::Null));
        }
    }
    let files = state.files_at(repo, branch);
    if let Some(text) = files.get(path) {
        return Ok(Resolved::Object(Obj::Blob {
            oid: blob_sha(text),
            text: text.clone(),
        }));
    }
    let prefix = format!("{path}/");
    let inside: Vec<&String> = files.keys().filter(|k| k.starts_with(&prefix)).collect();
    if inside.is_empty() {
        return Ok(leaf(Value::Null));
    }
    let listing = format!("tree\0{branch}:{path}\0{inside:?}");
    let oid = hex::encode(&Sha256::digest(listing.as_bytes())[..20]);
    Ok(Resolved::Object(Obj::Tree {
        oid,
        repo: repo.to_owned(),
        branch: branch.to_owned(),
        dir: path.to_owned(),
    }))
}

/// A field of the pull request `pr` (REST's object, as `GET .../pulls/{n}` answers it).
fn pull_field(
    pr: &Value,
    (repo, commits): (&str, &[PullCommitInfo]),
    field: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    let merged = pr["merged"] == true || !pr["merged_at"].is_null();
    Ok(match field {
        "id" => leaf(pr["node_id"].clone()),
        "number" => leaf(pr["number"].clone()),
        "state" => leaf(json!(match (merged, pr["state"].as_str()) {
            (true, _) => "MERGED",
            (false, Some("open")) => "OPEN",
            _ => "CLOSED",
        })),
        "merged" => leaf(json!(merged)),
        // A description left empty is REST's null and GraphQL's "".
        "title" => leaf(pr["title"].clone()),
        "body" => leaf(json!(pr["body"].as_str().unwrap_or_default())),
        "headRefOid" => leaf(pr["head"]["sha"].clone()),
        "isCrossRepository" => leaf(json!(
            pr["head"]["repo"]["full_name"] != pr["base"]["repo"]["full_name"]
        )),
        "baseRefName" => leaf(pr["base"]["ref"].clone()),
        // A deleted account is REST's `ghost` and GraphQL's null; a bot's GraphQL login is
        // its App's slug, without REST's `[bot]`.
        "author" => match pr["user"]["login"].as_str().unwrap_or("ghost") {
            "ghost" => leaf(Value::Null),
            login => Resolved::Object(match login.strip_suffix("[bot]") {
                Some(slug) => Obj::Actor {
                    login: slug.to_owned(),
                    bot: true,
                },
                None => Obj::Actor {
                    login: login.to_owned(),
                    bot: false,
                },
            }),
        },
        "commits" if args.contains_key("last") => {
            // `last: 1`: the head, as the latest runs on it are read.
            if page_size(args, "last", "commits")? != 1 {
                return Err(FieldError::unserved(
                    "PullRequest.commits(last:) other than 1",
                ));
            }
            let head = pr["head"]["sha"].as_str().unwrap_or_default().to_owned();
            let known = commits.iter().find(|c| c.oid == head).cloned();
            Resolved::Object(Obj::PullCommits {
                repo: repo.to_owned(),
                commits: vec![known.unwrap_or(PullCommitInfo {
                    oid: head,
                    author: None,
                    committer: None,
                })],
                next: None,
            })
        }
        "commits" => {
            let first = page_size(args, "first", "commits")?;
            // The fake's cursors are positions in the list.
            let start = match args.get("after") {
                None | Some(Value::Null) => 0,
                Some(v) => v
                    .as_str()
                    .and_then(|c| c.strip_prefix("pc:"))
                    .and_then(|n| n.parse::<usize>().ok())
                    .ok_or_else(|| {
                        FieldError::github(
                            "INVALID_CURSOR_ARGUMENTS",
                            format!("`{v}` does not appear to be a valid cursor."),
                            true,
                        )
                    })?,
            };
            let end = (start + first).min(commits.len());
            Resolved::Object(Obj::PullCommits {
                repo: repo.to_owned(),
                commits: commits.get(start..end).unwrap_or_default().to_vec(),
                next: (end < commits.len()).then(|| format!("pc:{end}")),
            })
        }
        _ => return Err(FieldError::unserved(&format!("PullRequest.{field}"))),
    })
}

/// The check suites of `sha`: the runs REST's `filter=latest` lists, one suite per App in
/// the order the listing first names it, each with its runs in the listing's order.
fn check_suites(
    state: &dyn World,
    (repo, sha): (&str, &str),
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    let first = page_size(args, "first", "checkSuites")?;
    let mut suites: Vec<(Option<String>, Vec<Value>)> = Vec::new();
    for run in state.check_runs().latest(repo, sha) {
        let app = run["app"]["slug"].as_str().map(str::to_owned);
        match suites.iter_mut().find(|(a, _)| *a == app) {
            Some((_, runs)) => runs.push(run),
            None => suites.push((app, vec![run])),
        }
    }
    Ok(Resolved::Object(Obj::CheckSuites {
        has_next: suites.len() > first,
        page: suites.into_iter().take(first).collect(),
    }))
}

/// A page of a suite's runs; only `filterBy: {checkType: LATEST}` is served, the runs REST's
/// `filter=latest` lists.
fn check_runs(runs: &[Value], args: &Map<String, Value>) -> Result<Resolved, FieldError> {
    let first = page_size(args, "first", "checkRuns")?;
    let filter = args.get("filterBy").and_then(Value::as_object);
    let latest_only = filter.is_some_and(|f| {
        f.iter()
            .all(|(k, v)| v.is_null() || (k == "checkType" && v == "LATEST"))
            && f.get("checkType").is_some_and(|v| v == "LATEST")
    });
    if !latest_only {
        return Err(FieldError::unserved(
            "CheckSuite.checkRuns without filterBy: {checkType: LATEST}",
        ));
    }
    Ok(Resolved::Object(Obj::CheckRuns {
        has_next: runs.len() > first,
        page: runs.iter().take(first).cloned().collect(),
    }))
}

/// A field of the check run `run` (REST's object, as the check-runs listing holds it).
fn run_field(run: &Value, field: &str) -> Result<Resolved, FieldError> {
    Ok(leaf(match field {
        "databaseId" => run["id"].clone(),
        "name" => run["name"].clone(),
        "status" => enum_of(&run["status"]),
        "conclusion" => enum_of(&run["conclusion"]),
        // REST's "" for a run created without one.
        "externalId" => match run["external_id"].as_str() {
            Some(id) if !id.is_empty() => json!(id),
            _ => Value::Null,
        },
        "summary" => run["output"]["summary"].clone(),
        _ => return Err(FieldError::unserved(&format!("CheckRun.{field}"))),
    }))
}
