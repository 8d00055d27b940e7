//! A stateful fake of GitHub on wiremock. It keeps pull requests, comments, reactions,
//! check runs, permissions, installation tokens and git data as data, records every
//! request, and can be told to fail the next matching calls. Its REST routes are the
//! shared fake's (`auditloop_fake_github::rest`, over this state: `fake_site`), its GraphQL
//! the shared fake's too (`fake_graphql`); this file is the transport around them.

use auditloop_fake_github::checks::CheckRuns;
use auditloop_fake_github::comments::{Comments, Reactions};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::fake_git::RefMove;
use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::limits::WriteLimit;
use auditloop_fake_github::objects as gh;
use auditloop_fake_github::permissions::Permissions;
use auditloop_fake_github::rest;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The query string, without `?` (empty when none).
    pub query: String,
    pub headers: BTreeMap<String, String>,
    pub body: Value,
    /// For a GraphQL request, its operation type (`query`, `mutation`), or `invalid` when
    /// it does not validate; `None` for REST.
    pub graphql: Option<&'static str>,
    /// When the fake received it, and when its answer was sent (after `State::delay`):
    /// a call that started after another's answer depends on it (see `loop_economy`).
    pub started: Instant,
    pub answered: Instant,
}

impl Recorded {
    /// Whether the call may change GitHub: every method but `GET`, except a GraphQL query.
    pub fn is_write(&self) -> bool {
        match self.graphql {
            Some(operation) => operation != "query",
            None => self.method != "GET",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Injected {
    pub method: &'static str,
    pub path_contains: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// A call carried out whose answer is lost; `then` is a push by someone else right after.
#[derive(Debug, Clone)]
pub struct LostAnswer {
    pub method: &'static str,
    pub path_contains: String,
    pub then: Option<RefMove>,
}

/// What a trigger does when its request arrives: change the state, and answer in the
/// route's place (`Some`) or let the route answer (`None`).
pub type Action = Box<dyn FnOnce(&mut State) -> Option<Answer> + Send>;

/// Runs `action` once, when the next request whose method and path match arrives, before
/// it is routed. `method` `"*"` matches any request.
/// Which request bodies a [`Trigger`] fires for.
pub type BodyTest = Box<dyn Fn(&Value) -> bool + Send>;

pub struct Trigger {
    pub method: &'static str,
    pub path_contains: String,
    /// Fires only for a request whose JSON body this accepts (any, when `None`).
    pub when: Option<BodyTest>,
    pub action: Action,
}

impl std::fmt::Debug for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Trigger({} {})", self.method, self.path_contains)
    }
}

#[derive(Debug, Default)]
pub struct State {
    /// Fired once each, in order of matching.
    pub triggers: Vec<Trigger>,
    pub requests: Vec<Recorded>,
    pub tokens_minted: u32,
    pub check_runs: CheckRuns,
    pub comments: Comments,
    /// The comments a test has looked at: a reply none looked at fails the test.
    pub seen_comments: std::collections::BTreeSet<u64>,
    pub reactions: Reactions,
    pub pulls: BTreeMap<u64, Value>,
    /// Heads the pull requests had before a push moved them on: their commits remain.
    pub left_heads: std::collections::BTreeSet<String>,
    /// Collaborators' roles; other logins are unknown to GitHub (404).
    pub permissions: Permissions,
    pub injected: VecDeque<Injected>,
    /// Calls carried out whose answer is then lost (answered 502), once each.
    pub lost_answers: Vec<LostAnswer>,
    /// Git data by repository `owner/name`.
    pub git: BTreeMap<String, GitRepo>,
    pub ref_moves: Vec<RefMove>,
    /// Files of the default branch, served by the contents API.
    pub files: BTreeMap<String, String>,
    /// Files a pull request's head branch changes, served for any other `ref`.
    pub head_files: BTreeMap<String, String>,
    /// Issues opened through the API.
    pub issues: Vec<Value>,
    pub hooks: auditloop_fake_github::hooks::Hooks,
    /// The commits of a pull request with the accounts GitHub links to them, when a test
    /// sets them (by default: its head, by its author).
    pub pull_commits: BTreeMap<u64, Vec<auditloop_fake_github::graphql::PullCommitInfo>>,
    /// The files each pull request changes, when a test sets them (`fake_reviews`).
    pub pull_files: BTreeMap<u64, Vec<auditloop_fake_github::graphql::PullFile>>,
    /// Reviews and their threads, made through GraphQL.
    pub reviews: auditloop_fake_github::reviews::Reviews,
    /// GraphQL fields (`Type`, `field`) GitHub fails in its answers, a part at a time.
    pub graphql_failing: Vec<(String, String)>,
    /// The same, for the next GraphQL request only.
    pub graphql_failing_next: Vec<(String, String)>,
    /// Requests no route of the fake models: each fails the test when the fake is dropped,
    /// since a 404 would otherwise read as "absent" to the app.
    pub unmodelled: Vec<String>,
    /// GraphQL requests GitHub's schema rejects, and fields, arguments or inputs of valid
    /// ones the fake does not serve (`fake_graphql`): each fails the test when the fake is
    /// dropped.
    pub graphql_problems: Vec<String>,
    /// 2xx answers that are not ones GitHub's REST description allows for their route:
    /// each fails the test when the fake is dropped.
    pub invalid_answers: Vec<String>,
    /// Files written through the Git Data API that break their published schema
    /// (`support::schemas`): each fails the test when the fake is dropped.
    pub schema_violations: Vec<String>,
    /// Why the files written to this fake are the test's own content, not the app's, so
    /// that they are not checked against the schemas (see `written_by_the_test`).
    pub written_by_the_test: Option<&'static str>,
    /// Files changed between two commits of the code (not the records branch), by
    /// `base...head`, as the compare route lists them.
    pub comparisons: BTreeMap<String, Vec<String>>,
    /// `repository_dispatch` bodies accepted (see `fake_dispatch`).
    pub dispatches: Vec<Value>,
    /// Added to every answer, so that calls made together overlap measurably.
    pub delay: Duration,
    /// GitHub's secondary limit on writes, when a test plays it (see `limit_writes`).
    pub write_limit: Option<WriteLimit>,
    next_id: u64,
}

impl State {
    pub fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The id handed out last.
    pub fn last_id(&self) -> u64 {
        self.next_id
    }

    /// The App's reaction `content` on comment `comment`, REST's or GraphQL's: one per
    /// user and content, so a repeat changes nothing. Whether it is new.
    pub fn react(&mut self, comment: u64, content: &str) -> bool {
        self.reactions.react(comment, content)
    }
}

pub struct FakeGitHub {
    pub server: MockServer,
    pub state: Arc<Mutex<State>>,
    /// `""` for api.github.com, `/api/v3` for GitHub Enterprise Server.
    pub prefix: String,
}

pub const APP_SLUG: &str = "auditloop-test";

impl FakeGitHub {
    pub async fn start() -> Self {
        Self::start_with_prefix("").await
    }

    pub async fn start_with_prefix(prefix: &str) -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            next_id: 1000,
            ..State::default()
        }));
        Mock::given(wiremock::matchers::any())
            .respond_with(Router {
                state: state.clone(),
                prefix: prefix.to_owned(),
            })
            .mount(&server)
            .await;
        Self {
            server,
            state,
            prefix: prefix.to_owned(),
        }
    }

    /// The base URL auditloop is configured with.
    pub fn api_url(&self) -> String {
        format!("{}{}", self.server.uri(), self.prefix)
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Makes the next call whose method and path match answer `status` instead.
    pub fn fail_next(
        &self,
        method: &'static str,
        path_contains: &str,
        status: u16,
        headers: &[(&str, &str)],
    ) {
        self.state().injected.push_back(Injected {
            method,
            path_contains: path_contains.to_owned(),
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: json!({"message": format!("injected {status}")}),
        });
    }

    /// Carries out the next call whose method and path match, then answers 502 as if
    /// the answer was lost on the way.
    pub fn lose_next_answer(&self, method: &'static str, path_contains: &str) {
        self.state().lost_answers.push(LostAnswer {
            method,
            path_contains: path_contains.to_owned(),
            then: None,
        });
    }

    /// When the next `method` request whose path contains `path_contains` arrives, runs
    /// `action` on the state first.
    pub fn on_next(
        &self,
        method: &'static str,
        path_contains: &str,
        action: impl FnOnce(&mut State) -> Option<Answer> + Send + 'static,
    ) {
        self.state().triggers.push(Trigger {
            method,
            path_contains: path_contains.to_owned(),
            when: None,
            action: Box::new(action),
        });
    }

    /// [`FakeGitHub::on_next`], for the next such request whose JSON body `when` accepts.
    pub fn on_next_when(
        &self,
        method: &'static str,
        path_contains: &str,
        when: impl Fn(&Value) -> bool + Send + 'static,
        action: impl FnOnce(&mut State) -> Option<Answer> + Send + 'static,
    ) {
        self.state().triggers.push(Trigger {
            method,
            path_contains: path_contains.to_owned(),
            when: Some(Box::new(when)),
            action: Box::new(action),
        });
    }

    /// Plays GitHub's secondary limit on writes from now on (see [`WriteLimit`]).
    pub fn limit_writes(&self, per: usize, window: Duration, retry_after: Duration) {
        // The app sends at most three writes together (its governor's burst): two may be
        // on the way when GitHub refuses one.
        self.state().write_limit =
            Some(WriteLimit::new(per, window, Some(retry_after)).with_in_flight(2));
    }

    /// Every answer from now on is sent `delay` after the request arrived.
    pub fn set_delay(&self, delay: Duration) {
        self.state().delay = delay;
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state().requests.clone()
    }

    /// Stops checking written files against the records schemas: for a test that writes
    /// its own content through the records layer. `reason` says why.
    pub fn written_by_the_test(&self, reason: &'static str) {
        assert!(!reason.is_empty(), "say why the content is the test's");
        self.state().written_by_the_test = Some(reason);
    }

    pub fn add_pull(&self, number: u64, head_sha: &str, body: &str, author: &str) {
        let pr = gh::pull_request(super::deliveries::REPO, number, head_sha, body, author);
        self.state().pulls.insert(number, pr);
    }
}

struct Router {
    state: Arc<Mutex<State>>,
    prefix: String,
}

/// One answer of the fake: the response, with the status and JSON body it carries, so
/// that every 2xx answer is checked against GitHub's REST description (`openapi`).
pub struct Answer {
    template: ResponseTemplate,
    status: u16,
    json: Option<Value>,
    /// Why this answer is deliberately not one GitHub would send (see `malformed`).
    malformed: Option<&'static str>,
}

impl Answer {
    fn new(status: u16, json: Option<Value>) -> Self {
        let mut template = ResponseTemplate::new(status);
        if let Some(body) = &json {
            template = template.set_body_json(body);
        }
        Self {
            template,
            status,
            json,
            malformed: None,
        }
    }

    /// The shared fake's answer (`auditloop_fake_github::Reply`), as wiremock carries it.
    pub fn carry(reply: auditloop_fake_github::Reply) -> Self {
        let mut answer = Self::new(reply.status, reply.body);
        for (name, value) in &reply.headers {
            answer = answer.insert_header(name, value);
        }
        answer
    }

    /// Its JSON body, if any.
    pub fn body(&self) -> Option<&Value> {
        self.json.as_ref()
    }

    /// An answer without a body (`204`, `304`).
    pub fn empty(status: u16) -> Self {
        Self::new(status, None)
    }

    pub fn insert_header(mut self, name: &str, value: &str) -> Self {
        self.template = self.template.insert_header(name, value);
        self
    }

    pub fn set_delay(mut self, delay: Duration) -> Self {
        self.template = self.template.set_delay(delay);
        self
    }

    /// Exempts this answer from the description check: for a test that hands the app an
    /// answer GitHub would not send, to see the app survive it. `reason` says why.
    pub fn malformed(mut self, reason: &'static str) -> Self {
        assert!(!reason.is_empty(), "say why the answer is malformed");
        self.malformed = Some(reason);
        self
    }

    /// Why GitHub could not have sent this answer to `method path`, if it could not.
    fn problem(&self, method: &str, path: &str) -> Option<String> {
        if !(200..300).contains(&self.status) || self.malformed.is_some() {
            return None;
        }
        super::openapi::check_answer(method, path, self.status, self.json.as_ref()).err()
    }
}

/// A JSON answer with GitHub's rate-limit headers.
pub fn reply(status: u16, body: Value) -> Answer {
    Answer::new(status, Some(body))
        .insert_header("x-ratelimit-remaining", "4999")
        .insert_header("x-ratelimit-limit", "5000")
}

impl Respond for Router {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let answer = self.answer(req);
        let mut state = self.state.lock().unwrap();
        // GraphQL answers are checked against GitHub's GraphQL schema instead, as executed.
        let graphql = req.url.path() == super::fake_graphql::endpoint(&self.prefix);
        if let Some(path) = req.url.path().strip_prefix(self.prefix.as_str()) {
            if let Some(problem) = answer
                .problem(req.method.as_str(), path)
                .filter(|_| !graphql)
            {
                state.invalid_answers.push(problem);
            }
        }
        if state.delay.is_zero() {
            answer.template
        } else {
            answer.template.set_delay(state.delay)
        }
    }
}

impl Router {
    fn answer(&self, req: &Request) -> Answer {
        let mut state = self.state.lock().unwrap();
        let started = Instant::now();
        let answered = started + state.delay;
        let method = req.method.to_string();
        let full_path = req.url.path().to_owned();
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let graphql =
            super::fake_graphql::parse(&mut state, &self.prefix, &method, &full_path, &body);
        state.requests.push(Recorded {
            method: method.clone(),
            path: graphql
                .as_ref()
                .map_or(full_path.clone(), |g| g.path.clone()),
            query: req.url.query().unwrap_or_default().to_owned(),
            headers: req
                .headers
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: body.clone(),
            graphql: graphql.as_ref().map(|g| g.operation.unwrap_or("invalid")),
            started,
            answered,
        });
        // The installation's writes: the App's own (tokens, redeliveries) are not limited.
        let write = state.requests.last().is_some_and(Recorded::is_write)
            && (graphql.is_some() || full_path.contains("/repos/"));
        let limited = match &mut state.write_limit {
            Some(limit) if write => limit.refuse(&format!("{method} {full_path}"), Instant::now()),
            _ => None,
        };
        if let Some(refused) = limited {
            return Answer::carry(refused);
        }
        // A GraphQL call is matched by its endpoint and root fields (`Recorded::path`).
        let path = match (&graphql, full_path.strip_prefix(self.prefix.as_str())) {
            (Some(g), _) => g.path.as_str(),
            (None, Some(path)) => path,
            (None, None) => {
                return reply(
                    404,
                    json!({"message": "Not Found (outside the API prefix)"}),
                )
            }
        };
        if let Some(pos) = state.triggers.iter().position(|t| {
            (t.method == "*" || t.method == method)
                && path.contains(t.path_contains.as_str())
                && t.when.as_ref().is_none_or(|when| when(&body))
        }) {
            let trigger = state.triggers.remove(pos);
            if let Some(answer) = (trigger.action)(&mut state) {
                return answer;
            }
        }
        if let Some(pos) = state
            .injected
            .iter()
            .position(|i| i.method == method && path.contains(i.path_contains.as_str()))
        {
            let inj = state.injected.remove(pos).unwrap();
            let mut t = Answer::new(inj.status, Some(inj.body));
            for (k, v) in inj.headers {
                t = t.insert_header(&k, &v);
            }
            return t;
        }
        let answer = match &graphql {
            Some(g) => super::fake_graphql::answer(&mut state, g),
            None => rest(&mut state, &method, path, req, &self.prefix),
        };
        if let Some(pos) = state
            .lost_answers
            .iter()
            .position(|l| l.method == method && path.contains(l.path_contains.as_str()))
        {
            let lost = state.lost_answers.remove(pos);
            if let Some(m) = lost.then {
                let git = state.git.entry(m.repo).or_default();
                git.commit_files(&m.branch, &m.files, &m.message);
            }
            return reply(502, json!({"message": "Server Error"}));
        }
        answer
    }
}

/// A REST call, answered by the shared fake's routes over the tests' state.
fn rest(state: &mut State, method: &str, path: &str, req: &Request, prefix: &str) -> Answer {
    let root = format!("{}{prefix}", req.url.origin().ascii_serialization());
    let query = req.url.query().unwrap_or_default();
    let mut call = rest::Request::new(method, path, query, &req.body, &root);
    for (name, value) in &req.headers {
        call = call.with_header(name.as_str(), value.to_str().unwrap_or(""));
    }
    if let Some(answered) = rest::route(state, &call) {
        return Answer::carry(answered);
    }
    state.unmodelled.push(format!("{method} {path}"));
    reply(
        404,
        json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}),
    )
}

impl Drop for FakeGitHub {
    /// Fails the test on a request no route models and on a reply no test looked at, as
    /// bors' tester does: a stray 404 or an extra reply must not pass unnoticed.
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert!(
            state.unmodelled.is_empty(),
            "requests no route of the fake GitHub models: {:?}",
            state.unmodelled
        );
        assert!(
            state.graphql_problems.is_empty(),
            "GraphQL requests GitHub's schema rejects or the fake GitHub does not serve: {:#?}",
            state.graphql_problems
        );
        assert!(
            state.invalid_answers.is_empty(),
            "answers of the fake GitHub that GitHub's REST description does not allow: {:#?}",
            state.invalid_answers
        );
        assert!(
            state.schema_violations.is_empty(),
            "files the app wrote to the records branch that break their schema: {:#?}",
            state.schema_violations
        );
        let unseen: Vec<&str> = state
            .comments
            .iter()
            .filter(|c| !state.seen_comments.contains(&c.id))
            .map(|c| c.body.as_str())
            .collect();
        assert!(
            unseen.is_empty(),
            "replies the test did not expect: {unseen:#?}"
        );
    }
}
