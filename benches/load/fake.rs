//! A fast, in-memory fake of the GitHub REST routes auditloop calls (and its GraphQL,
//! through the shared fake: `fake_graphql.rs`), on axum, with a fixed latency added to every answer. It
//! keeps git objects, refs (with `ETags`), pull requests, check runs, comments and
//! reactions, and logs every call: its delivery, route, bytes received, and when it arrived
//! and was answered.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use auditloop_fake_github::git::{self, GitRepo};
use auditloop_fake_github::limits::WriteLimit;
use auditloop_fake_github::{objects, Reply};

use crate::faults::{Fault, Faults};

pub const SLUG: &str = "auditloop-load";
pub const CONFIG: &str = "audit_budget: 1000\n";
/// Where every repository of a run keeps `CONFIG`.
pub const CONFIG_PATH: &str = ".github/auditloop.yml";

#[derive(Debug, Clone)]
pub struct Call {
    pub delivery: Option<String>,
    pub route: String,
    /// Request line and body, as sent to GitHub.
    pub bytes: usize,
    /// The answer's body, as GitHub sent it back (0 when it was cut off).
    pub received: usize,
    pub started: Instant,
    pub answered: Instant,
    pub status: u16,
    /// The fault injected into this call, if any (`faults::Fault::name`).
    pub fault: Option<&'static str>,
    /// No route of the fake knows the call (or its GraphQL document): a problem of the run.
    pub unserved: bool,
    /// The call lists a tree whole: a recursive REST tree listing
    /// (`GET git/trees/{sha}?recursive=1`), or a `FirstReads` asking for the records
    /// listing. Such a call waits the listing latency on top of the latency.
    pub listing: bool,
}

/// Marks an answer given because no route knew the call.
#[derive(Debug, Clone, Copy)]
pub struct Unserved;

/// A repository's git data, as the shared fake keeps it (`auditloop_fake_github::git`),
/// with every move of a branch the invariants follow.
#[derive(Default)]
pub struct Git {
    pub repo: GitRepo,
    /// Every move of a branch (`heads/...`): its name, where it was and where it went.
    pub moves: Vec<(String, Option<String>, String)>,
}

impl std::ops::Deref for Git {
    type Target = GitRepo;
    fn deref(&self) -> &GitRepo {
        &self.repo
    }
}

impl std::ops::DerefMut for Git {
    fn deref_mut(&mut self) -> &mut GitRepo {
        &mut self.repo
    }
}

#[derive(Default)]
pub struct Data {
    /// By repository `owner/name`.
    pub git: HashMap<String, Git>,
    pub pulls: HashMap<(String, u64), Value>,
    /// Heads the pull requests had before a push moved them on, by repository: their
    /// commits remain.
    pub left_heads: HashSet<(String, String)>,
    pub runs: auditloop_fake_github::checks::CheckRuns,
    pub comments: auditloop_fake_github::comments::Comments,
    pub reactions: auditloop_fake_github::comments::Reactions,
    /// Pull-request reviews and their threads, made through GraphQL.
    pub reviews: auditloop_fake_github::reviews::Reviews,
    /// The files each pull request changes (`GET …/pulls/{n}/files`): the diff its review
    /// threads must sit in. None for the load's pull requests; the loop simulator's have some.
    pub pull_files: HashMap<(String, u64), Vec<auditloop_fake_github::pulls::PullFile>>,
    /// The review mutations the app sent (`fake_reviews.rs`), oldest first.
    pub review_calls: Vec<crate::fake_reviews::ReviewCall>,
    /// Issues opened (by `file` dispositions), by repository, oldest first.
    pub issues: HashMap<String, Vec<Value>>,
    pub tokens: u32,
    /// GraphQL calls served, each costing one point of the rate limit.
    pub graphql_points: u64,
    /// GraphQL documents GitHub's schema rejects, and fields, arguments or inputs of
    /// valid ones the fake does not serve: each marks its call unserved.
    pub graphql_problems: Vec<String>,
    /// Someone else's commit lands before the GraphQL commit being carried out.
    pub someone_first: bool,
    /// The App's webhook delivery log: every attempt the sender made, and redeliveries.
    pub hooks: auditloop_fake_github::hooks::Hooks,
    next_id: u64,
}

pub struct Fake {
    pub data: Mutex<Data>,
    pub log: Mutex<Vec<Call>>,
    /// Added to every answer, in microseconds.
    latency: AtomicU64,
    /// Added to every call that lists a tree whole ([`Call::listing`]), in microseconds:
    /// GitHub takes its time over a large listing.
    listing_latency: AtomicU64,
    pub faults: Faults,
    /// GitHub's secondary limit on the installation's writes, when played (`--limits`).
    pub limit: Mutex<Option<WriteLimit>>,
}

/// A check run made by the App in `repo` from a create's REST `fields`, kept as GitHub
/// keeps it.
pub fn new_run(data: &mut Data, repo: &str, fields: &Value) -> Value {
    let n = next_id(data);
    data.runs.create(repo, n, SLUG, fields)
}

/// The GraphQL id of repository `repo`.
pub fn repo_node(repo: &str) -> String {
    auditloop_fake_github::graphql::repository_id(repo)
}

/// The next id the fake hands out.
pub fn next_id(data: &mut Data) -> u64 {
    data.next_id += 1;
    data.next_id
}

impl Git {
    /// Commits `files` on the ref `name` (`heads/...`) as someone else would (seeding records).
    pub fn commit_files(&mut self, name: &str, files: &[(String, String)]) -> String {
        let branch = name.strip_prefix("heads/").unwrap_or(name);
        self.repo.commit_files(branch, files, "seed [skip ci]")
    }

    /// The text of `path` at the ref `name` (`heads/...`).
    pub fn file(&self, name: &str, path: &str) -> Option<String> {
        let branch = name.strip_prefix("heads/").unwrap_or(name);
        self.repo.file(branch, path).map(str::to_owned)
    }
}

impl Fake {
    pub fn new(latency: Duration) -> Arc<Self> {
        Arc::new(Fake {
            data: Mutex::new(Data {
                next_id: 1000,
                ..Data::default()
            }),
            log: Mutex::new(Vec::new()),
            latency: AtomicU64::new(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX)),
            listing_latency: AtomicU64::new(0),
            faults: Faults::default(),
            limit: Mutex::new(None),
        })
    }

    pub fn set_latency(&self, latency: Duration) {
        self.latency.store(
            u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    pub fn set_listing_latency(&self, latency: Duration) {
        self.listing_latency.store(
            u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// Opens pull request `number` of `repo` on `head`, as GitHub shows it (the shared
    /// fake's object), with a node id unique across the repositories of a run.
    pub fn add_pull(&self, repo: &str, number: u64, head: &str) {
        let body = format!("Change {number}.\n\nCloses #{}\n", 100_000 + number);
        let mut pull = objects::pull_request(repo, number, head, &body, "alice");
        pull["node_id"] = json!(pull_node(repo, number));
        pull["head"]["ref"] = json!(format!("feature-{number}"));
        self.data
            .lock()
            .unwrap()
            .pulls
            .insert((repo.to_owned(), number), pull);
    }
}

/// The GraphQL id of pull request `number` of `repo` (opaque to the app, as GitHub's are).
pub fn pull_node(repo: &str, number: u64) -> String {
    format!("PR_{}_{number}", repo.replace('/', "_"))
}

/// The GraphQL id of comment `id`, as GitHub's comment objects carry it.
pub fn comment_node(id: u64) -> String {
    objects::node_id("IC", id)
}

/// The files every repository holds on its default branch, by path, as the contents route
/// and `FirstReads` serve them: the configuration file alone.
pub fn repo_file(path: &str) -> Option<&'static str> {
    (path == CONFIG_PATH).then_some(CONFIG)
}

/// `/repos/o/r/git/blobs/<sha>` -> `GET git/blobs/{sha}`: numbers and SHAs folded.
pub fn fold(method: &str, path: &str) -> String {
    let rest = match path.strip_prefix("/repos/") {
        Some(r) => r.splitn(3, '/').nth(2).unwrap_or(""),
        None => path,
    };
    let mut out: Vec<String> = Vec::new();
    for seg in rest.split('/') {
        let folded = if out.last().map(String::as_str) == Some("collaborators") {
            "{username}".to_owned()
        } else if seg.len() == 40 && seg.bytes().all(|b| b.is_ascii_hexdigit()) {
            "{sha}".to_owned()
        } else if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            "{n}".to_owned()
        } else {
            seg.to_owned()
        };
        out.push(folded);
        if matches!(seg, "contents" | "heads" | "compare") {
            out.push("{path}".to_owned());
            break;
        }
    }
    format!("{method} {}", out.join("/"))
}

pub fn reply(status: u16, body: &Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap(),
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub fn not_found() -> Response {
    reply(404, &json!({"message": "Not Found"}))
}

/// `answer`, marked as given to a call no route knew.
pub fn unserved(mut answer: Response) -> Response {
    answer.extensions_mut().insert(Unserved);
    answer
}

/// Whether `GET path?query` lists a tree recursively (`/repos/o/r/git/trees/{sha}?recursive=1`).
fn is_tree_listing(path: &str, query: &str) -> bool {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    matches!(segs.as_slice(), ["repos", _, _, "git", "trees", _])
        && query.split('&').any(|kv| kv.starts_with("recursive="))
}

/// Whether a logged route only reads (a GraphQL query is a `POST`).
pub fn reads(route: &str) -> bool {
    route.starts_with("GET")
        || route
            .strip_prefix("POST /graphql ")
            .is_some_and(|op| crate::fake_graphql::QUERIES.contains(&op))
}

pub async fn handle(
    State(fake): State<Arc<Fake>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let started = Instant::now();
    let path = uri.path().to_owned();
    let delivery = headers
        .get("x-github-delivery")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let graphql = (method == Method::POST && path == "/graphql")
        .then(|| serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null));
    let operation = graphql
        .as_ref()
        .and_then(crate::fake_graphql::operation)
        .map(|(_, name)| name);
    let write = match &graphql {
        Some(g) => crate::fake_graphql::operation(g).is_some_and(|(kind, _)| kind == "mutation"),
        None => method != Method::GET && path.starts_with("/repos/"),
    };
    if write {
        if let Some(refused) = fake
            .limit
            .lock()
            .unwrap()
            .as_mut()
            .and_then(|limit| limit.refuse(&format!("{method} {path}"), Instant::now()))
        {
            return carried(refused);
        }
    }
    let fault = fake.faults.pick(method.as_str(), &path, operation);
    // A GraphQL commit's conflict is someone else's commit landing first, not a canned answer.
    let someone_first = graphql.is_some() && fault == Some(Fault::Conflict);
    let answer = if let Some(instead) = fault.filter(|_| !someone_first).and_then(Fault::instead) {
        instead
    } else {
        let mut data = fake.data.lock().unwrap();
        match &graphql {
            Some(request) => {
                let asked = (request, delivery.as_deref());
                crate::fake_graphql::serve(&mut data, asked, someone_first)
            }
            None => route(
                &mut data,
                &method,
                &path,
                uri.query().unwrap_or(""),
                &headers,
                &body,
            ),
        }
    };
    let unserved = answer.extensions().get::<Unserved>().is_some();
    let answer = match fault {
        Some(f) => f.after(answer),
        None => answer,
    };
    let mut latency = Duration::from_micros(fake.latency.load(Ordering::Relaxed));
    let listing = match &graphql {
        Some(g) => g["variables"]["listing"] == true,
        None => method == Method::GET && is_tree_listing(&path, uri.query().unwrap_or("")),
    };
    if listing {
        latency += Duration::from_micros(fake.listing_latency.load(Ordering::Relaxed));
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let call = Call {
        delivery,
        route: graphql.as_ref().map_or_else(
            || fold(method.as_str(), &path),
            crate::fake_graphql::route_of,
        ),
        bytes: method.as_str().len() + uri.to_string().len() + body.len(),
        received: usize::try_from(answer.body().size_hint().exact().unwrap_or(0))
            .unwrap_or(usize::MAX),
        started,
        answered: Instant::now(),
        // A lost answer never reached the client.
        status: if fault == Some(Fault::Lost) {
            0
        } else {
            answer.status().as_u16()
        },
        fault: fault.map(Fault::name),
        unserved,
        listing,
    };
    fake.log.lock().unwrap().push(call);
    answer
}

fn route(
    data: &mut Data,
    method: &Method,
    path: &str,
    query: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let m = method.as_str();
    match (m, segs.as_slice()) {
        ("GET", ["app"]) => reply(200, &objects::app(SLUG)),
        ("POST", ["app", "installations", _, "access_tokens"]) => {
            data.tokens += 1;
            let expires = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
            reply(
                201,
                &json!({"token": format!("ghs_load{}", data.tokens), "expires_at": expires,
                    "permissions": {"checks": "write", "contents": "write", "pull_requests": "write", "issues": "write"},
                    "repository_selection": "all"}),
            )
        }
        (_, ["repos", owner, name, rest @ ..]) => {
            let repo = format!("{owner}/{name}");
            repo_route(data, &repo, m, rest, query, headers, &body)
        }
        (_, ["app", "hook", "deliveries", ..]) => {
            let host = headers
                .get("host")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("localhost")
                .to_owned();
            let next = |q: &str| format!("http://{host}{path}?{q}");
            match data.hooks.route(m, &segs, query, next) {
                Some(answer) => carried(answer),
                None => unserved(not_found()),
            }
        }
        _ => crate::fake_sweep::route(data, m, &segs).unwrap_or_else(|| unserved(not_found())),
    }
}

fn repo_route(
    data: &mut Data,
    repo: &str,
    m: &str,
    rest: &[&str],
    query: &str,
    headers: &HeaderMap,
    body: &Value,
) -> Response {
    let id = next_id;
    match (m, rest) {
        ("GET", ["contents", path @ ..]) => {
            let path = path.join("/");
            let Some(text) = repo_file(&path) else {
                return unserved(not_found());
            };
            let files = BTreeMap::from([(path.clone(), text.to_owned())]);
            let tag = headers.get("if-none-match").and_then(|v| v.to_str().ok());
            carried(auditloop_fake_github::contents::get(
                repo, &path, &files, tag,
            ))
        }
        ("GET", ["pulls", n]) => match data.pulls.get(&(repo.to_owned(), n.parse().unwrap_or(0))) {
            Some(p) => reply(200, p),
            None => not_found(),
        },
        ("PATCH", ["pulls", n]) => match data
            .pulls
            .get_mut(&(repo.to_owned(), n.parse().unwrap_or(0)))
        {
            Some(p) => {
                auditloop_fake_github::pulls::update(p, body);
                reply(200, p)
            }
            None => not_found(),
        },
        // `maint` maintains the repositories; everyone else may write.
        ("GET", ["collaborators", login, "permission"]) => {
            let role = if *login == "maint" {
                "maintain"
            } else {
                "write"
            };
            reply(200, &objects::permission(login, role))
        }
        ("GET", ["commits", sha, "pulls"]) => {
            let in_repo = data.pulls.iter().filter(|((r, _), _)| r == repo);
            let list = auditloop_fake_github::pulls::for_commit(in_repo.map(|(_, p)| p), sha);
            reply(200, &Value::Array(list))
        }
        ("GET", ["commits", sha, "check-runs"]) => {
            let latest = data.runs.latest(repo, sha);
            reply(
                200,
                &json!({"total_count": latest.len(), "check_runs": latest}),
            )
        }
        ("POST", ["check-runs"]) => reply(201, &new_run(data, repo, body)),
        ("PATCH", ["check-runs", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            match data.runs.update(repo, n, body) {
                Some(run) => reply(200, &run),
                None => not_found(),
            }
        }
        ("GET", ["issues", n, "comments"]) => {
            let list = data.comments.listed(repo, n.parse().unwrap_or(0));
            reply(200, &Value::Array(list))
        }
        ("POST", ["issues", n, "comments"]) => {
            let (issue, n) = (n.parse().unwrap_or(0), id(data));
            let text = body["body"].as_str().unwrap_or_default();
            let c = data
                .comments
                .post(repo, n, issue, text, &format!("{SLUG}[bot]"));
            reply(201, &c)
        }
        ("GET", ["issues", "comments", n, "reactions"]) => {
            let content = query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .find(|(k, _)| *k == "content")
                .map(|(_, v)| v.replace("%2B", "+"));
            let listed = data
                .reactions
                .listed(n.parse().unwrap_or(0), content.as_deref(), SLUG);
            reply(200, &Value::Array(listed))
        }
        ("POST", ["issues", "comments", n, "reactions"]) => {
            let content = body["content"].as_str().unwrap_or("");
            let new = data.reactions.react(n.parse().unwrap_or(0), content);
            // Reactions take no id of the run's sequence: the ids of runs and comments
            // (and the bytes of the calls naming them) stay what they were.
            let reaction = objects::reaction(data.next_id, content, SLUG);
            reply(if new { 201 } else { 200 }, &reaction)
        }
        (_, ["git", ..] | ["compare", _]) => git_route(data, repo, m, rest, query, headers, body),
        _ => crate::fake_sweep::repo_route(data, repo, m, (rest, query), body)
            .unwrap_or_else(|| unserved(not_found())),
    }
}

/// The Git Data routes (and `compare`), as the shared fake serves them, with each move of
/// a branch noted for the invariants.
fn git_route(
    data: &mut Data,
    repo: &str,
    m: &str,
    rest: &[&str],
    query: &str,
    headers: &HeaderMap,
    body: &Value,
) -> Response {
    let moving = match (m, rest) {
        ("POST", ["git", "refs"]) => body["ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("refs/"))
            .map(str::to_owned),
        ("PATCH", ["git", "refs", name @ ..]) => Some(git::ref_name(name)),
        _ => None,
    }
    .filter(|name| name.starts_with("heads/"));
    let (pulls, left) = (&data.pulls, &data.left_heads);
    // A pull request's head is in the base repository too (`refs/pull/N/head`), and stays
    // there after a push moves the head on: a claim may point at it.
    let elsewhere = |sha: &str| {
        left.contains(&(repo.to_owned(), sha.to_owned()))
            || pulls
                .iter()
                .any(|((r, _), p)| r == repo && p["head"]["sha"] == sha)
    };
    let git = data.git.entry(repo.to_owned()).or_default();
    let was = moving.as_ref().and_then(|name| git.refs.get(name).cloned());
    let call = git::Call {
        method: m,
        rest,
        query,
        body,
        if_none_match: headers.get("if-none-match").and_then(|v| v.to_str().ok()),
    };
    let Some(answer) = git::route(&mut git.repo, repo, &call, &elsewhere) else {
        return unserved(not_found());
    };
    if let (Some(name), 200 | 201) = (moving, answer.status) {
        let now = git.refs.get(&name).cloned().unwrap_or_default();
        git.moves.push((name, was, now));
    }
    carried(answer)
}

/// A shared fake's answer as axum carries it.
fn carried(answer: Reply) -> Response {
    let mut r = match &answer.body {
        Some(body) => reply(answer.status, body),
        None => StatusCode::from_u16(answer.status)
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            .into_response(),
    };
    for (name, value) in answer.headers {
        if let Ok(value) = value.parse() {
            r.headers_mut().insert(name, value);
        }
    }
    r
}
