//! What a chaos run must leave behind, checked on the fake's state (docs/reference.md#writing-the-records-branch):
//! - the records branch is linear, every move one commit on the one before, and every
//!   record passes the app's own structural validation at every commit, its history only
//!   growing, with the index agreeing (layout version 2: `next.json` and its shards,
//!   assembled as the app assembles them; `index.json` on a version-1 branch);
//! - every command answered 2xx is carried out once or refused once, never both: its
//!   events land in at most one records commit, and a refusal comes with no records event
//!   and no `+1`;
//! - one reply per delivery marker;
//! - the views of each PR's current head show its record (reconcile converges them), and
//!   the record is bound to that head;
//! - every call to GitHub was one the fake serves (a route or GraphQL document it knows).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use auditloop::engine::ids::{AuditId, RepoName};
use auditloop::engine::layout::{record_at, record_path};
use auditloop::engine::record::load_record;
use auditloop::engine::views::{body_stamp, sections, splice, SpliceOutcome, ViewContext};

use crate::branch::Tree;
use crate::chaos_plan::Kind;
use crate::fake::Call;
use crate::fake_data::{Data, Git};
use crate::payloads::BRANCH;

/// One invariant: what was looked at, and what broke it.
pub struct Outcome {
    pub name: &'static str,
    pub checked: usize,
    pub violations: Vec<String>,
}

impl Outcome {
    fn new(name: &'static str) -> Outcome {
        Outcome {
            name,
            checked: 0,
            violations: Vec::new(),
        }
    }
}

/// A delivery as the sender knows it.
pub struct Delivered<'a> {
    pub id: &'a str,
    pub kind: Kind,
    pub pr: u64,
    pub comment: Option<u64>,
    pub answered_2xx: bool,
}

/// The records branch, walked.
pub struct Records {
    pub commits: usize,
    /// Delivery id → the commits (by position on the branch) that added its events.
    pub by_delivery: HashMap<String, BTreeSet<usize>>,
    /// The record file of each PR at the branch head, as stored.
    pub latest: BTreeMap<u64, Value>,
    pub linear: Outcome,
    pub chains: Outcome,
}

fn tree_of<'g>(git: &'g Git, commit: &str) -> Option<&'g BTreeMap<String, String>> {
    git.repo.tree_of(commit)
}

/// Walks the records branch from its root to its head.
pub fn records(data: &Data, repo: &str) -> Records {
    let mut linear = Outcome::new("records branch linear, one-commit fast-forwards");
    let mut chains = Outcome::new("history chains valid and only growing, index agrees");
    let mut out = Records {
        commits: 0,
        by_delivery: HashMap::new(),
        latest: BTreeMap::new(),
        linear: Outcome::new(""),
        chains: Outcome::new(""),
    };
    let Some(git) = data.git.get(repo) else {
        linear.violations.push("no git data".into());
        out.linear = linear;
        out.chains = chains;
        return out;
    };
    let mut chain = Vec::new();
    let mut at = git.refs.get(BRANCH).cloned();
    while let Some(sha) = at {
        let Some(parents) = git.commits.get(&sha).map(|c| &c.parents) else {
            linear.violations.push(format!("commit {sha} is unknown"));
            break;
        };
        if parents.len() > 1 {
            linear
                .violations
                .push(format!("merge commit {}", &sha[..7]));
        }
        chain.push(sha.clone());
        at = parents.first().cloned();
    }
    chain.reverse();
    let position: HashMap<&str, usize> = chain
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    for (name, old, new) in git.moves.iter().filter(|(n, _, _)| n == BRANCH) {
        linear.checked += 1;
        let parents = git
            .commits
            .get(new)
            .map(|c| c.parents.clone())
            .unwrap_or_default();
        let expected: Vec<String> = old.iter().cloned().collect();
        if parents != expected {
            linear.violations.push(format!(
                "{name} moved from {old:?} to {new}, whose parents are {parents:?}"
            ));
        }
        if !position.contains_key(new.as_str()) {
            linear.violations.push(format!(
                "{} was on the branch and is no longer in its history",
                &new[..7]
            ));
        }
    }
    let mut valid: HashMap<&str, Result<(), String>> = HashMap::new();
    let mut before: HashMap<String, Vec<Value>> = HashMap::new();
    for (i, commit) in chain.iter().enumerate() {
        let Some(tree) = tree_of(git, commit) else {
            chains.violations.push(format!("{commit}: no tree"));
            continue;
        };
        let mut now: HashMap<String, Vec<Value>> = HashMap::new();
        for (path, blob) in tree.iter().filter(|(p, _)| is_record(p)) {
            chains.checked += 1;
            let text = git
                .blobs
                .get(blob)
                .map(ToString::to_string)
                .unwrap_or_default();
            let verdict = valid
                .entry(blob.as_str())
                .or_insert_with(|| load_record(&text).map(|_| ()).map_err(|e| e.to_string()));
            if let Err(why) = verdict {
                chains
                    .violations
                    .push(format!("{path} at {}: {why}", &commit[..7]));
            }
            let raw: Value = serde_json::from_str(&text).unwrap_or_default();
            let history = raw["history"].as_array().cloned().unwrap_or_default();
            let earlier = before.get(path).map_or(&[][..], Vec::as_slice);
            if history.len() < earlier.len() || history[..earlier.len()] != *earlier {
                chains
                    .violations
                    .push(format!("{path} at {}: history rewritten", &commit[..7]));
            }
            for event in history.iter().skip(earlier.len()) {
                if let Some(d) = event["delivery"].as_str() {
                    out.by_delivery.entry(d.to_owned()).or_default().insert(i);
                }
            }
            now.insert(path.clone(), history);
        }
        for gone in before.keys().filter(|p| !now.contains_key(*p)) {
            chains
                .violations
                .push(format!("{gone} removed at {}", &commit[..7]));
        }
        before = now;
    }
    if let Some(head) = chain.last() {
        index_agrees(git, head, &mut chains, &mut out.latest);
    }
    out.commits = chain.len();
    out.linear = linear;
    out.chains = chains;
    out
}

/// A record's file: `records/<bucket>/AUD-n.json` (or a version-1 `records/AUD-n.json`).
fn is_record(path: &str) -> bool {
    record_at(path).is_some()
        || path
            .strip_prefix("records/")
            .and_then(|f| f.strip_suffix(".json"))
            .is_some_and(|id| AuditId::new(id).is_ok())
}

/// The index at `head` (`next.json` and every shard, assembled) maps each PR to the record
/// that names it, and each run's invocation to its record.
fn index_agrees(git: &Git, head: &str, o: &mut Outcome, latest: &mut BTreeMap<u64, Value>) {
    let Some(tree) = Tree::at(git, head) else {
        return;
    };
    let index = match tree.index() {
        Ok(index) => index,
        Err(why) => {
            o.violations.push(format!("index unreadable: {why}"));
            return;
        }
    };
    for (pr, id) in &index.pulls {
        let raw: Value = tree
            .record(id)
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        if raw["pull_request"]
            .as_u64()
            .map(|n| n.to_string())
            .as_deref()
            != Some(pr)
        {
            o.violations
                .push(format!("index maps #{pr} to {id}, which names another PR"));
        }
        for event in raw["history"].as_array().into_iter().flatten() {
            if let Some(inv) = event["invocation_ref"].as_str() {
                if index.invocations.get(inv).map(ToString::to_string) != Some(id.to_string()) {
                    o.violations
                        .push(format!("invocation {inv} of {id} not in the index"));
                }
            }
        }
        if let Ok(n) = pr.parse() {
            latest.insert(n, raw);
        }
    }
}

fn marker_of(body: &str) -> Option<&str> {
    let at = body.rfind("<!-- auditloop:delivery:")?;
    let rest = &body[at + "<!-- auditloop:delivery:".len()..];
    rest.split_once(" -->").map(|(id, _)| id)
}

/// The record of each PR at the branch head, as stored (no validation: cheap enough to
/// poll while the replicas work).
pub fn latest(data: &Data, repo: &str) -> BTreeMap<u64, Value> {
    let mut out = BTreeMap::new();
    let mut ignored = Outcome::new("");
    if let Some(git) = data.git.get(repo) {
        if let Some(head) = git.refs.get(BRANCH) {
            index_agrees(git, head, &mut ignored, &mut out);
        }
    }
    out
}

/// Exactly once, and one reply per delivery.
pub fn commands(
    data: &Data,
    repo: &str,
    sent: &[Delivered<'_>],
    by_delivery: &HashMap<String, BTreeSet<usize>>,
) -> (Outcome, Outcome, BTreeMap<&'static str, u64>) {
    let mut once = Outcome::new(
        "every command answered 2xx or 202 carried out once in the end (its +1) or refused once (its one reply)",
    );
    let mut replies = Outcome::new("one reply per delivery marker");
    let mut tally: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut by_marker: HashMap<&str, Vec<&str>> = HashMap::new();
    for c in data.comments.iter().filter(|c| c.repo == repo) {
        if let Some(id) = marker_of(&c.body) {
            by_marker.entry(id).or_default().push(&c.body);
        }
    }
    for d in sent {
        once.checked += 1;
        let posted = by_marker.get(d.id).map_or(&[][..], Vec::as_slice);
        let refusals = posted
            .iter()
            .filter(|b| b.starts_with("auditloop: refused"))
            .count();
        let plus = d.comment.is_some_and(|c| data.reactions.has(c, "+1"));
        let commits = by_delivery.get(d.id).map_or(0, BTreeSet::len);
        let what = format!("{} {} on #{}", d.kind.name(), d.id, d.pr);
        if d.kind.answered() {
            replies.checked += 1;
        }
        if posted.len() > 1 {
            replies
                .violations
                .push(format!("{what}: {} replies", posted.len()));
        }
        if commits > 1 {
            once.violations
                .push(format!("{what}: applied in {commits} records commits"));
        }
        if refusals > 0 && (commits > 0 || plus) {
            once.violations.push(format!(
                "{what}: refused and carried out ({commits} commit(s), +1: {plus}): {}",
                first_line(posted.iter().find(|b| b.starts_with("auditloop: refused")))
            ));
        }
        if !d.answered_2xx {
            once.violations.push(format!("{what}: never answered 2xx"));
            continue;
        }
        if d.kind.answered() && refusals == 0 && !plus {
            let attempts: Vec<String> = data
                .hooks
                .attempts_of(d.id)
                .iter()
                .map(|a| {
                    format!(
                        "{} at {}",
                        a.status_code,
                        a.delivered_at.format("%H:%M:%S%.3f")
                    )
                })
                .collect();
            once.violations.push(format!(
                "{what}: answered 2xx, neither carried out nor refused (attempts: {})",
                attempts.join(", ")
            ));
        }
        if d.kind.must_record() && plus && commits == 0 {
            once.violations
                .push(format!("{what}: +1 but nothing recorded"));
        }
        if d.kind.replies() && plus && posted.len() != 1 {
            once.violations
                .push(format!("{what}: carried out without its reply"));
        }
        let outcome = match (refusals > 0, commits > 0 || plus) {
            (true, _) => "refused",
            (false, true) if commits > 0 => "recorded",
            (false, true) => "carried out, nothing to record",
            (false, false) => "push that changed nothing",
        };
        *tally.entry(outcome).or_default() += 1;
    }
    (once, replies, tally)
}

fn first_line(body: Option<&&str>) -> String {
    body.and_then(|b| b.lines().next())
        .unwrap_or("")
        .chars()
        .take(140)
        .collect()
}

/// The PRs whose views on their current head do not show their record yet.
pub fn views_behind(data: &Data, repo: &str, latest: &BTreeMap<u64, Value>) -> Vec<String> {
    let mut behind = Vec::new();
    let Some(git) = data.git.get(repo) else {
        return vec!["no records branch".into()];
    };
    let Some(head_tree) = git.refs.get(BRANCH).and_then(|h| tree_of(git, h)) else {
        return vec!["no records branch".into()];
    };
    for (pr, record) in latest {
        let Some(pull) = data.pulls.get(&(repo.to_owned(), *pr)) else {
            continue;
        };
        let head = pull["head"]["sha"].as_str().unwrap_or("");
        let id = record["id"].as_str().unwrap_or("");
        let path = AuditId::new(id).map_or_else(|_| id.to_owned(), |id| record_path(&id));
        let run = data.runs.iter().rev().find(|c| {
            c.repo == *repo && c.body["head_sha"] == head && c.body["name"] == "audit-gate"
        });
        let named = run.and_then(|c| c.body["external_id"].as_str());
        let same = named
            .and_then(|c| tree_of(git, c))
            .and_then(|t| t.get(&path))
            .is_some_and(|blob| head_tree.get(&path) == Some(blob));
        if !same {
            behind.push(format!(
                "#{pr}: the check run on {} names {:?}, not the record's last change",
                &head[..7.min(head.len())],
                named.map(|c| &c[..7.min(c.len())])
            ));
        }
        // What the reconcile sweep compares: the sections the record gives, spliced in.
        let typed = serde_json::to_string(record)
            .ok()
            .and_then(|t| load_record(&t).ok());
        let view = ViewContext {
            html_base: "https://github.com".to_owned(),
            repository: RepoName::new(repo.to_owned()).expect("a repository name"),
            records_branch: BRANCH.trim_start_matches("heads/").to_owned(),
        };
        let body = pull["body"].as_str().unwrap_or("");
        let current = typed.as_ref().is_some_and(|r| {
            !matches!(
                splice(body, &sections(Some(r), &view), &view.record_url(&r.id)),
                SpliceOutcome::Updated { .. }
            )
        });
        if !current {
            let events = record["history"].as_array().map_or(0, Vec::len);
            behind.push(format!(
                "#{pr}: the PR body does not show {id} ({events} events; its stamp: {:?})",
                body_stamp(body).map(|s| (s.record.to_string(), s.events))
            ));
        }
    }
    behind
}

/// Each record's candidate is its PR's current head (`baseline_on_push` rebinds on every
/// push, docs/reference.md#baseline).
pub fn bound_to_head(data: &Data, repo: &str, latest: &BTreeMap<u64, Value>) -> Outcome {
    let mut o = Outcome::new("each record bound to its PR's current head");
    for (pr, record) in latest {
        o.checked += 1;
        let head = data.pulls[&(repo.to_owned(), *pr)]["head"]["sha"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let candidate = record["candidate_artifact"].as_str().unwrap_or("");
        if candidate != format!("commit:{head}") {
            let rebinds: Vec<String> = record["history"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|e| e["type"] == "baseline")
                .filter_map(|e| e["candidate_artifact"].as_str().map(str::to_owned))
                .collect();
            o.violations.push(format!(
                "#{pr}: record on {}, PR head {} (last rebinds: {:?})",
                candidate
                    .trim_start_matches("commit:")
                    .get(..7)
                    .unwrap_or(candidate),
                &head[..7.min(head.len())],
                rebinds
                    .iter()
                    .rev()
                    .take(3)
                    .map(|c| c.trim_start_matches("commit:").get(..7).unwrap_or(""))
                    .collect::<Vec<_>>()
            ));
        }
    }
    o
}

/// Lines of the replicas' logs that tell of a panic.
pub fn panics(logs: &[std::path::PathBuf]) -> Outcome {
    let mut o = Outcome::new("no panic in any replica log");
    for log in logs {
        o.checked += 1;
        let text = std::fs::read_to_string(log).unwrap_or_default();
        for line in text.lines().filter(|l| l.contains("panicked")) {
            o.violations.push(format!(
                "{}: {}",
                log.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default(),
                line.chars().take(200).collect::<String>()
            ));
        }
    }
    o
}

/// Every call the fake logged was one it knows.
pub fn served(log: &[Call]) -> Outcome {
    let mut o = Outcome::new("every GitHub call one the fake serves");
    o.checked = log.len();
    let mut by_route: BTreeMap<&str, usize> = BTreeMap::new();
    for c in log.iter().filter(|c| c.unserved) {
        *by_route.entry(c.route.as_str()).or_default() += 1;
    }
    for (route, n) in by_route {
        o.violations.push(format!("{route}: {n} call(s)"));
    }
    o
}
