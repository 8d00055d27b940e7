//! A fast, in-memory fake of GitHub on axum, for the load tool: the transport around the
//! shared fake (`auditloop_fake_github`), whose REST routes answer over this fake's `Data`
//! (`fake_site.rs`) and whose GraphQL does too (`fake_graphql.rs`), under the shared
//! faults layer while chaos is on. What it adds is a run's own: GitHub's secondary limit on
//! writes, a fixed latency on every answer (and more on a whole-tree listing), and a log
//! of every call: its delivery, route, bytes sent and received, and when it arrived and
//! was answered.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use auditloop_fake_github::faults::{Fault, Faults, Target};
use auditloop_fake_github::limits::WriteLimit;
use auditloop_fake_github::{objects, rest, Reply};

use crate::fake_data::{pull_node, Data};

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
    /// The fault injected into this call, if any (`auditloop_fake_github::faults::Fault::name`).
    pub fault: Option<&'static str>,
    /// No route of the fake knows the call (or its GraphQL document): a problem of the run.
    pub unserved: bool,
    /// The call lists a tree whole: a recursive REST tree listing
    /// (`GET git/trees/{sha}?recursive=1`), or a `FirstReads` asking for the records
    /// listing. Such a call waits the listing latency on top of the latency.
    pub listing: bool,
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

impl Fake {
    pub fn new(latency: Duration) -> Arc<Self> {
        Arc::new(Fake {
            data: Mutex::new(Data::new()),
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

/// One call as it arrived.
struct Arrived<'a> {
    method: &'a Method,
    uri: &'a Uri,
    headers: &'a HeaderMap,
    body: &'a [u8],
    /// Its GraphQL request, for a `POST /graphql`.
    graphql: Option<Value>,
}

pub async fn handle(
    State(fake): State<Arc<Fake>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let started = Instant::now();
    let graphql = (method == Method::POST && uri.path() == "/graphql")
        .then(|| serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null));
    let call = Arrived {
        method: &method,
        uri: &uri,
        headers: &headers,
        body: &body,
        graphql,
    };
    if let Some(refused) = fake.limited(&call) {
        return carried(refused);
    }
    let (answer, fault, unserved) = fake.answer(&call);
    let listing = match &call.graphql {
        Some(g) => g["variables"]["listing"] == true,
        None => method == Method::GET && is_tree_listing(uri.path(), uri.query().unwrap_or("")),
    };
    let mut latency = Duration::from_micros(fake.latency.load(Ordering::Relaxed));
    if listing {
        latency += Duration::from_micros(fake.listing_latency.load(Ordering::Relaxed));
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let logged = Call {
        delivery: delivery_of(&headers),
        route: call.graphql.as_ref().map_or_else(
            || fold(method.as_str(), uri.path()),
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
    fake.log.lock().unwrap().push(logged);
    answer
}

fn delivery_of(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("x-github-delivery")?;
    value.to_str().ok().map(str::to_owned)
}

impl Fake {
    /// GitHub's refusal of an installation's write past its secondary limit, when played.
    fn limited(&self, call: &Arrived<'_>) -> Option<Reply> {
        let path = call.uri.path();
        let write = match &call.graphql {
            Some(g) => {
                crate::fake_graphql::operation(g).is_some_and(|(kind, _)| kind == "mutation")
            }
            None => call.method != Method::GET && path.starts_with("/repos/"),
        };
        let mut limit = self.limit.lock().unwrap();
        let refused = limit.as_mut().filter(|_| write)?;
        refused.refuse(&format!("{} {path}", call.method), Instant::now())
    }

    /// The call carried out under the faults layer: the answer, the fault it met, and
    /// whether no route knew it.
    fn answer(&self, call: &Arrived<'_>) -> (Response, Option<Fault>, bool) {
        let operation = call
            .graphql
            .as_ref()
            .and_then(crate::fake_graphql::operation);
        let target = Target {
            method: call.method.as_str(),
            path: call.uri.path(),
            graphql: operation.and_then(|(_, name)| crate::fake_graphql::faulted(name)),
        };
        let mut unserved = false;
        let faulted = self.faults.serve(&target, |someone_first| {
            let mut data = self.data.lock().unwrap();
            let (reply, served) = match &call.graphql {
                Some(request) => {
                    let delivery = delivery_of(call.headers);
                    let asked = (request, delivery.as_deref());
                    crate::fake_graphql::serve(&mut data, asked, someone_first)
                }
                None => served(&mut data, call),
            };
            unserved = !served;
            reply
        });
        let answer = match faulted.fault {
            Some(Fault::Lost) => broken(),
            _ => carried(faulted.reply),
        };
        (answer, faulted.fault, unserved)
    }
}

/// A REST call answered by the shared fake's routes, and whether one knew it.
fn served(data: &mut Data, call: &Arrived<'_>) -> (Reply, bool) {
    let host = call.headers.get("host").and_then(|v| v.to_str().ok());
    let root = format!("http://{}", host.unwrap_or("localhost"));
    let (path, query) = (call.uri.path(), call.uri.query().unwrap_or(""));
    let mut request = rest::Request::new(call.method.as_str(), path, query, call.body, &root);
    for (name, value) in call.headers {
        request = request.with_header(name.as_str(), value.to_str().unwrap_or(""));
    }
    match rest::route(data, &request) {
        Some(reply) => (reply, true),
        None => (rest::not_found(), false),
    }
}

/// The status line goes out, then the connection breaks inside the body.
fn broken() -> Response {
    let broken =
        futures::stream::once(async { Err::<Bytes, _>(std::io::Error::other("connection reset")) });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        Body::from_stream(broken),
    )
        .into_response()
}

/// A shared fake's answer as axum carries it.
pub fn carried(answer: Reply) -> Response {
    let mut r = match &answer.body {
        Some(body) => (
            StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            [("content-type", "application/json")],
            body.to_string(),
        )
            .into_response(),
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
