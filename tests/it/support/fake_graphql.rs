//! The fake's GraphQL endpoint: `POST /graphql` (`/api/graphql` on GitHub Enterprise
//! Server), answered by the shared fake's GraphQL (`auditloop_fake_github::graphql`) over
//! the tests' `State`, the same state as the REST routes. A document GitHub's schema
//! rejects, or a field, argument or input the fake does not serve, goes to
//! `State::graphql_problems` and fails the test.

use std::collections::BTreeMap;

use auditloop_fake_github::checks::CheckRuns;
use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::graphql::{self, PullCommitInfo, PullFile, World};
use auditloop_fake_github::reviews::Reviews;
use serde_json::{json, Value};

use super::deliveries::REPO;
use super::fake::{reply, Answer, State, APP_SLUG};

pub use auditloop_fake_github::graphql::endpoint;

/// A GraphQL request as the fake received it.
pub struct Call {
    /// The endpoint and the operation's root field names, `/graphql/repository,rateLimit`:
    /// what `Recorded::path` holds and the fake's matchers (`fail_next`, `on_next`,
    /// `lose_next_answer`) look at.
    pub path: String,
    /// `query` or `mutation`; `None` when the request does not validate.
    pub operation: Option<&'static str>,
    request: graphql::Call,
}

/// The request as a GraphQL call when it is one (`POST` to the endpoint). A request that
/// does not validate is recorded in `state.graphql_problems`.
pub fn parse(
    state: &mut State,
    prefix: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> Option<Call> {
    let endpoint = endpoint(prefix);
    if method != "POST" || path != endpoint {
        return None;
    }
    let call = graphql::parse(state, body);
    Some(Call {
        path: match call.kind {
            Some(_) => format!("{endpoint}/{}", call.roots.join(",")),
            None => endpoint,
        },
        operation: call.kind,
        request: call,
    })
}

/// The answer to a GraphQL call: HTTP 200 with `data` and `errors` as GitHub sends them.
pub fn answer(state: &mut State, call: &Call) -> Answer {
    let answer = reply(200, graphql::answer(state, &call.request));
    state.graphql_failing_next.clear();
    answer
}

/// The tests' fake holds one repository's pull requests and issues, the deliveries' own.
impl World for State {
    fn repository_exists(&self, repo: &str) -> bool {
        self.git.contains_key(repo) || repo == REPO
    }

    fn repositories(&self) -> Vec<String> {
        let mut all: Vec<String> = self.git.keys().cloned().collect();
        if !all.iter().any(|r| r == REPO) {
            all.push(REPO.to_owned());
        }
        all
    }

    fn git(&self, repo: &str) -> Option<&GitRepo> {
        self.git.get(repo)
    }

    fn pulls(&self, repo: &str) -> Vec<&Value> {
        if repo == REPO {
            self.pulls.values().collect()
        } else {
            Vec::new()
        }
    }

    fn pull_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value> {
        (repo == REPO)
            .then(|| self.pulls.get_mut(&number))
            .flatten()
    }

    fn issue(&self, repo: &str, number: u64) -> Option<&Value> {
        (repo == REPO)
            .then(|| self.issues.iter().find(|i| i["number"] == number))
            .flatten()
    }

    fn check_runs(&self) -> &CheckRuns {
        &self.check_runs
    }

    fn check_runs_mut(&mut self) -> &mut CheckRuns {
        &mut self.check_runs
    }

    fn reviews(&self) -> &Reviews {
        &self.reviews
    }

    fn reviews_mut(&mut self) -> &mut Reviews {
        &mut self.reviews
    }

    fn pull_files(&self, repo: &str, number: u64) -> Vec<PullFile> {
        let files = self.pull_files.get(&number).filter(|_| repo == REPO);
        files.cloned().unwrap_or_default()
    }

    fn react(&mut self, comment: u64, content: &str) {
        State::react(self, comment, content);
    }

    fn next_id(&mut self) -> u64 {
        self.id()
    }

    fn app_slug(&self) -> &str {
        APP_SLUG
    }

    fn files_at(&self, _repo: &str, branch: &str) -> BTreeMap<String, String> {
        super::fake_repo::files_at(self, branch)
    }

    fn problem(&mut self, message: String) {
        self.graphql_problems.push(message);
    }

    fn pull_commits(&self, repo: &str, number: u64) -> Vec<PullCommitInfo> {
        match self.pull_commits.get(&number) {
            Some(commits) if repo == REPO => commits.clone(),
            _ => {
                // GitHub's own default, as the shared fake has it.
                let pr = self.pulls.get(&number).filter(|_| repo == REPO);
                pr.map(|p| {
                    let login = p["user"]["login"].as_str().map(str::to_owned);
                    vec![PullCommitInfo {
                        oid: p["head"]["sha"].as_str().unwrap_or_default().to_owned(),
                        author: login.clone(),
                        committer: login,
                    }]
                })
                .unwrap_or_default()
            }
        }
    }

    fn fails(&self, type_name: &str, field: &str) -> bool {
        self.graphql_failing
            .iter()
            .chain(&self.graphql_failing_next)
            .any(|(t, f)| t == type_name && f == field)
    }

    /// As the REST tree route: the files are checked when written, whether or not the
    /// commit then lands; then a pending push by someone else lands first.
    fn before_commit(&mut self, repo: &str, branch: &str, files: &[(String, String)]) {
        if self.written_by_the_test.is_none() {
            for (path, content) in files {
                if let Err(e) = super::schemas::check_written(path, content) {
                    self.schema_violations.push(e);
                }
            }
        }
        super::fake_git::fire_ref_moves(self, repo, branch);
    }

    fn commit(
        &mut self,
        repo: &str,
        branch: &str,
        files: &[(String, String)],
        message: &str,
    ) -> String {
        let git = self.git.get_mut(repo).expect("the branch's repository");
        git.commit_files(branch, files, message)
    }
}

impl super::fake::FakeGitHub {
    /// The GraphQL endpoint the app derives from `api_url()`.
    pub fn graphql_url(&self) -> String {
        format!("{}{}", self.server.uri(), endpoint(&self.prefix))
    }

    /// The answer to `query` with `variables`, which GitHub sends with a 200 whatever it holds.
    pub async fn post_graphql(&self, query: &str, variables: Value) -> Value {
        let response = reqwest::Client::new()
            .post(self.graphql_url())
            .json(&json!({"query": query, "variables": variables}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "GitHub answers GraphQL with 200");
        response.json().await.unwrap()
    }
}
