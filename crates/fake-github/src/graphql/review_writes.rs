//! The review mutations: `addPullRequestReview` with its threads, which GitHub refuses
//! whole when a thread's lines are not lines of the diff (`crate::reviews::refusal`), and
//! `resolveReviewThread` / `unresolveReviewThread`. Each is made as the App's bot.

use serde_json::{Map, Value};

use super::obj::{only, FieldError, Obj, Resolved};
use super::reviews::{object, ReviewObj};
use super::world::World;
use super::writes::{pull_by_node, unresolved};
use crate::reviews::{refusal, DraftThread, Review, ReviewComment, Thread};

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("Mutation", "addPullRequestReview", &["input"]),
    ("Mutation", "resolveReviewThread", &["input"]),
    ("Mutation", "unresolveReviewThread", &["input"]),
    ("AddPullRequestReviewPayload", "pullRequestReview", &[]),
    ("ResolveReviewThreadPayload", "thread", &[]),
    ("UnresolveReviewThreadPayload", "thread", &[]),
];

/// The input fields modelled; `comments` (positions in the diff) and the rest are not.
const INPUT: &[&str] = &["pullRequestId", "commitOID", "event", "body", "threads"];
const THREAD: &[&str] = &["path", "line", "startLine", "side", "startSide", "body"];

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    let input = args.get("input").cloned().unwrap_or(Value::Null);
    Some(match (obj, field) {
        (Obj::Mutation, "addPullRequestReview") => add_review(state, &input),
        (Obj::Mutation, "resolveReviewThread") => set_resolved(state, &input, true),
        (Obj::Mutation, "unresolveReviewThread") => set_resolved(state, &input, false),
        (Obj::Review(ReviewObj::Added(id)), "pullRequestReview") => {
            Ok(object(ReviewObj::Review(*id)))
        }
        (Obj::Review(ReviewObj::Resolved { thread, .. }), "thread") => {
            Ok(object(ReviewObj::Thread(*thread)))
        }
        _ => return None,
    })
}

/// The threads `input` drafts, each with its first comment's body. A side not given is
/// the schema's default, `RIGHT`.
fn drafts(input: &Value) -> Result<Vec<(DraftThread, String)>, FieldError> {
    let mut out = Vec::new();
    for t in input["threads"].as_array().into_iter().flatten() {
        only(t, THREAD, "DraftPullRequestReviewThread")?;
        let side = |name: &str| t[name].as_str().unwrap_or("RIGHT").to_owned();
        let draft = DraftThread {
            path: t["path"].as_str().unwrap_or_default().to_owned(),
            line: t["line"].as_u64().unwrap_or_default(),
            start_line: t["startLine"].as_u64(),
            side: side("side"),
            start_side: side("startSide"),
        };
        out.push((draft, t["body"].as_str().unwrap_or_default().to_owned()));
    }
    Ok(out)
}

fn add_review(state: &mut dyn World, input: &Value) -> Result<Resolved, FieldError> {
    only(input, INPUT, "AddPullRequestReviewInput")?;
    let id = input["pullRequestId"].as_str().unwrap_or_default();
    let (repo, number) = pull_by_node(state, id).ok_or_else(|| unresolved(id))?;
    let event = input["event"].as_str().map(str::to_owned);
    if event.as_deref() == Some("DISMISS") {
        return Err(FieldError::unserved("addPullRequestReview's event DISMISS"));
    }
    let drafts = drafts(input)?;
    let files = state.pull_files(&repo, number);
    // One thread off the diff refuses the review, and nothing is kept.
    if let Some(message) = drafts.iter().find_map(|(d, _)| refusal(&files, d)) {
        return Err(FieldError::github("UNPROCESSABLE", message, true));
    }
    // GitHub reviews the head when no commit is named.
    let head = || head_of(state, &repo, number);
    let commit_oid = input["commitOID"].as_str().map_or_else(head, str::to_owned);
    let review = Review {
        id: state.next_id(),
        number,
        event,
        commit_oid,
        body: input["body"].as_str().unwrap_or_default().to_owned(),
        author: format!("{}[bot]", state.app_slug()),
        threads: Vec::new(),
        repo,
    };
    let added = review.id;
    keep(state, review, drafts);
    Ok(object(ReviewObj::Added(added)))
}

fn head_of(state: &dyn World, repo: &str, number: u64) -> String {
    let pulls = state.pulls(repo);
    let pr = pulls.into_iter().find(|p| p["number"] == number);
    let head = pr.and_then(|p| p["head"]["sha"].as_str());
    head.unwrap_or_default().to_owned()
}

/// Keeps `review` with a thread for each draft, opened by the review's author.
fn keep(state: &mut dyn World, review: Review, drafts: Vec<(DraftThread, String)>) {
    let mut threads = Vec::new();
    for (draft, body) in drafts {
        let (id, comment) = (state.next_id(), state.next_id());
        threads.push(Thread {
            id,
            repo: review.repo.clone(),
            number: review.number,
            review: review.id,
            start_side: draft.start_line.map(|_| draft.start_side),
            path: draft.path,
            line: draft.line,
            start_line: draft.start_line,
            side: draft.side,
            resolved_by: None,
            comments: vec![ReviewComment {
                id: comment,
                body,
                author: review.author.clone(),
            }],
        });
    }
    state.reviews_mut().add(review, threads);
}

/// Resolves (as the App's bot) or unresolves the thread `input.threadId` names.
fn set_resolved(
    state: &mut dyn World,
    input: &Value,
    resolve: bool,
) -> Result<Resolved, FieldError> {
    let ty = if resolve {
        "ResolveReviewThreadInput"
    } else {
        "UnresolveReviewThreadInput"
    };
    only(input, &["threadId"], ty)?;
    let node = input["threadId"].as_str().unwrap_or_default();
    let by = resolve.then(|| format!("{}[bot]", state.app_slug()));
    let thread = state
        .reviews_mut()
        .set_resolved(node, by.as_deref())
        .ok_or_else(|| unresolved(node))?
        .id;
    Ok(object(ReviewObj::Resolved {
        thread,
        resolved: resolve,
    }))
}
