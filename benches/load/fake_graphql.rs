//! `POST /graphql` of the fake, answered by the shared fake's GraphQL
//! (`auditloop_fake_github::graphql`): each document validated against GitHub's schema
//! with its variables and executed over this fake's `Data`, the state the REST routes
//! serve, so the two always agree. A commit made here stores its objects and logs its
//! branch move as the REST routes do, so the invariants see GraphQL and REST commits alike.
//! A document the schema rejects, or a field the fake does not serve, is answered with
//! GraphQL's error and marks the call unserved, which the runs report. `RecordsCommit`
//! moves a ref, so chaos faults it as a ref update; the queries (`RecordsLanded`,
//! `FirstReads`, `RecordsByPath`) and `Views` as any call, which the app may retry.

use std::collections::BTreeMap;

use auditloop_fake_github::checks::CheckRuns;
use auditloop_fake_github::faults::Graphql;
use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::graphql::{self, PullFile, World};
use auditloop_fake_github::reviews::Reviews;
use auditloop_fake_github::Reply;
use serde_json::Value;

use crate::fake_data::{Data, Git, CONFIG, CONFIG_PATH, SLUG};

/// The operations the app sends, by name (the logs, the faults and the invariants name
/// calls by them).
pub const COMMIT: &str = "RecordsCommit";
pub const LANDED: &str = "RecordsLanded";
pub const READS: &str = "FirstReads";
/// Files of a layout-2 records branch read by path at a commit (aliased
/// `object(expression: "<commit>:<path>")` fields).
pub const BY_PATH: &str = "RecordsByPath";
pub const BODY: &str = "Views";
/// The app's GraphQL queries, by name: calls that only read (a write is a mutation).
pub const QUERIES: &[&str] = &[
    LANDED,
    READS,
    BY_PATH,
    "FileVersions",
    "HeadChecks",
    "PacketReads",
    "PullCommits",
];
/// GitHub's GraphQL points per hour for an installation.
const POINTS: u64 = 5000;

/// How chaos faults operation `name`: a commit as a ref update, the others it faults as
/// any call; `None` for an operation left alone.
pub fn faulted(name: &str) -> Option<Graphql> {
    match name {
        COMMIT => Some(Graphql::Commit),
        LANDED | READS | BY_PATH | BODY => Some(Graphql::Read),
        _ => None,
    }
}

/// The kind (`query`, `mutation`) and name of a GraphQL body's operation, read from its
/// text before the call is carried out (to log it, and to pick its fault).
pub fn operation(body: &Value) -> Option<(&str, &str)> {
    let text = body["query"].as_str()?.trim_start();
    let (kind, rest) = ["mutation", "query"]
        .into_iter()
        .find_map(|k| Some((k, text.strip_prefix(k)?)))?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| (kind, &rest[..end]))
}

/// The route a GraphQL call is logged under, naming its operation.
pub fn route_of(body: &Value) -> String {
    format!(
        "POST /graphql {}",
        operation(body).map_or("(anonymous)", |(_, n)| n)
    )
}

/// Carries out one call, sent for `delivery`: the answer, and whether the fake served all
/// of it. `someone_first`: another writer's commit lands on the branch just before a
/// `createCommitOnBranch` reads it (the conflict fault), so its compare-and-swap loses.
pub fn serve(
    data: &mut Data,
    (body, delivery): (&Value, Option<&str>),
    someone_first: bool,
) -> (Reply, bool) {
    let problems = data.graphql_problems.len();
    data.someone_first = someone_first;
    let call = graphql::parse(data, body);
    if call.kind.is_some() {
        data.graphql_points += 1;
    }
    let answer = graphql::answer(data, &call);
    data.someone_first = false;
    data.review_calls
        .extend(crate::fake_reviews::note((body, delivery), &answer));
    let served = data.graphql_problems.len() == problems;
    (Reply::json(200, answer), served)
}

/// Someone else's commit on top of the branch `name`, changing no file (the records stay
/// valid).
fn land_other(git: &mut Git, name: &str) {
    let head = git.refs[name].clone();
    let tree = git.commits[&head].tree.clone();
    let message = format!("Someone else's commit on {} [skip ci]", &head[..7]);
    let oid = git.put_commit(&tree, vec![head.clone()], &message);
    git.refs.insert(name.to_owned(), oid.clone());
    git.moves.push((name.to_owned(), Some(head), oid));
}

/// The load fake holds many repositories: pull requests and issues by repository.
impl World for Data {
    fn repository_exists(&self, repo: &str) -> bool {
        self.git.contains_key(repo) || self.pulls.keys().any(|(r, _)| r == repo)
    }

    fn repositories(&self) -> Vec<String> {
        let mut all: Vec<String> = self.git.keys().cloned().collect();
        all.extend(self.pulls.keys().map(|(r, _)| r.clone()));
        all.sort();
        all.dedup();
        all
    }

    fn git(&self, repo: &str) -> Option<&GitRepo> {
        self.git.get(repo).map(|g| &g.repo)
    }

    fn pulls(&self, repo: &str) -> Vec<&Value> {
        self.pulls
            .iter()
            .filter(|((r, _), _)| r == repo)
            .map(|(_, p)| p)
            .collect()
    }

    fn pull_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value> {
        self.pulls.get_mut(&(repo.to_owned(), number))
    }

    fn issue(&self, repo: &str, number: u64) -> Option<&Value> {
        self.issues
            .get(repo)
            .and_then(|all| all.iter().find(|i| i["number"] == number))
    }

    fn check_runs(&self) -> &CheckRuns {
        &self.runs
    }

    fn check_runs_mut(&mut self) -> &mut CheckRuns {
        &mut self.runs
    }

    fn reviews(&self) -> &Reviews {
        &self.reviews
    }

    fn reviews_mut(&mut self) -> &mut Reviews {
        &mut self.reviews
    }

    fn pull_files(&self, repo: &str, number: u64) -> Vec<PullFile> {
        let key = (repo.to_owned(), number);
        self.pull_files.get(&key).cloned().unwrap_or_default()
    }

    fn react(&mut self, comment: u64, content: &str) {
        self.reactions.react(comment, content);
    }

    fn next_id(&mut self) -> u64 {
        crate::fake_data::next_id(self)
    }

    fn app_slug(&self) -> &str {
        SLUG
    }

    /// Every repository holds the configuration file alone, on every branch.
    fn files_at(&self, _repo: &str, _branch: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(CONFIG_PATH.to_owned(), CONFIG.to_owned())])
    }

    fn points_remaining(&self) -> u64 {
        POINTS.saturating_sub(self.graphql_points)
    }

    fn problem(&mut self, message: String) {
        self.graphql_problems.push(message);
    }

    fn before_commit(&mut self, repo: &str, branch: &str, _files: &[(String, String)]) {
        let name = format!("heads/{branch}");
        if let Some(git) = self
            .git
            .get_mut(repo)
            .filter(|g| g.refs.contains_key(&name))
        {
            if std::mem::take(&mut self.someone_first) {
                land_other(git, &name);
            }
        }
    }

    fn commit(
        &mut self,
        repo: &str,
        branch: &str,
        files: &[(String, String)],
        message: &str,
    ) -> String {
        let git = self.git.get_mut(repo).expect("the branch's repository");
        let name = format!("heads/{branch}");
        let old = git.refs.get(&name).cloned();
        let oid = git.repo.commit_files(branch, files, message);
        git.moves.push((name, old, oid.clone()));
        oid
    }
}
