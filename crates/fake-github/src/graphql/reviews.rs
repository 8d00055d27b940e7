//! A pull request's review threads as GraphQL reads them (`PullRequest.reviewThreads`, each
//! thread's comments, their reviews), from the fake's [`crate::reviews::Reviews`]; the
//! mutations that make and resolve them are in `review_writes`. Connections page as Relay
//! slices them (`first`, `last`, `after`, `before`), their cursors positions in the list.

use std::ops::Range;

use serde_json::{json, Map, Value};

use super::obj::{page_size, FieldError, Obj, Resolved};
pub use super::review_obj::{Page, ReviewObj};
use super::world::World;
use crate::objects::node_id;
use crate::reviews::{comment_url, ReviewComment, Thread};

/// Type, field and the arguments a document may give it.
pub const SERVED: &[(&str, &str, &[&str])] = &[
    ("PullRequest", "reviewThreads", PAGING),
    ("PullRequestReviewThreadConnection", "nodes", &[]),
    ("PullRequestReviewThreadConnection", "pageInfo", &[]),
    ("PullRequestReviewThreadConnection", "totalCount", &[]),
    ("PullRequestReviewThread", "id", &[]),
    ("PullRequestReviewThread", "isResolved", &[]),
    ("PullRequestReviewThread", "isOutdated", &[]),
    ("PullRequestReviewThread", "path", &[]),
    ("PullRequestReviewThread", "line", &[]),
    ("PullRequestReviewThread", "startLine", &[]),
    ("PullRequestReviewThread", "diffSide", &[]),
    ("PullRequestReviewThread", "startDiffSide", &[]),
    ("PullRequestReviewThread", "resolvedBy", &[]),
    ("PullRequestReviewThread", "comments", PAGING),
    ("PullRequestReviewCommentConnection", "nodes", &[]),
    ("PullRequestReviewCommentConnection", "pageInfo", &[]),
    ("PullRequestReviewCommentConnection", "totalCount", &[]),
    ("PullRequestReviewComment", "id", &[]),
    ("PullRequestReviewComment", "databaseId", &[]),
    ("PullRequestReviewComment", "body", &[]),
    ("PullRequestReviewComment", "author", &[]),
    ("PullRequestReviewComment", "url", &[]),
    ("PullRequestReviewComment", "path", &[]),
    ("PullRequestReviewComment", "pullRequestReview", &[]),
    ("PullRequestReview", "id", &[]),
    ("PullRequestReview", "databaseId", &[]),
    ("PullRequestReview", "state", &[]),
    ("PullRequestReview", "body", &[]),
    ("PullRequestReview", "url", &[]),
    ("PullRequestReview", "author", &[]),
    ("PageInfo", "hasPreviousPage", &[]),
    ("PageInfo", "startCursor", &[]),
];

const PAGING: &[&str] = &["first", "last", "after", "before"];

pub(super) fn object(o: ReviewObj) -> Resolved {
    Resolved::Object(Obj::Review(o))
}

fn leaf(v: Value) -> Resolved {
    Resolved::Leaf(v)
}

/// An account as GraphQL shows REST's `login`: a deleted one (`ghost`) is null, and a
/// bot's login is its App's slug, without REST's `[bot]`.
pub(super) fn actor(login: &str) -> Resolved {
    match (login, login.strip_suffix("[bot]")) {
        ("ghost", _) => leaf(Value::Null),
        (_, Some(slug)) => Resolved::Object(Obj::Actor {
            login: slug.to_owned(),
            bot: true,
        }),
        (_, None) => Resolved::Object(Obj::Actor {
            login: login.to_owned(),
            bot: false,
        }),
    }
}

/// The position a cursor argument names, if given.
fn position(
    args: &Map<String, Value>,
    name: &str,
    prefix: &str,
) -> Result<Option<usize>, FieldError> {
    let Some(v) = args.get(name).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let at = v
        .as_str()
        .and_then(|c| c.strip_prefix(prefix)?.strip_prefix(':')?.parse().ok());
    at.map(Some).ok_or_else(|| {
        let message = format!("`{v}` does not appear to be a valid cursor.");
        FieldError::github("INVALID_CURSOR_ARGUMENTS", message, true)
    })
}

/// The part of a list of `len` items that the paging arguments ask of `connection`, as
/// Relay slices it: after the `after` cursor and before `before`, then `first` from the
/// front and `last` from the back. One of `first` and `last` is needed, as on GitHub.
fn window(
    len: usize,
    args: &Map<String, Value>,
    connection: &str,
    prefix: &str,
) -> Result<(Range<usize>, Page), FieldError> {
    let given = |name: &str| args.get(name).is_some_and(|v| !v.is_null());
    // Neither given: `page_size` answers GitHub's error for it.
    let first = (given("first") || !given("last"))
        .then(|| page_size(args, "first", connection))
        .transpose()?;
    let last = given("last")
        .then(|| page_size(args, "last", connection))
        .transpose()?;
    let mut start = position(args, "after", prefix)?
        .map_or(0, |a| a + 1)
        .min(len);
    let mut end = position(args, "before", prefix)?.map_or(len, |b| b.min(len));
    end = end.max(start);
    if let Some(n) = first {
        end = end.min(start + n);
    }
    if let Some(n) = last {
        start = start.max(end.saturating_sub(n));
    }
    let cursor = |i: usize| format!("{prefix}:{i}");
    let page = Page {
        has_next: end < len,
        has_previous: start > 0,
        start: (start < end).then(|| cursor(start)),
        end: (start < end).then(|| cursor(end - 1)),
    };
    Ok((start..end, page))
}

pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    match obj {
        Obj::PullRequest { repo, number } if field == "reviewThreads" => {
            let threads = state.reviews().threads_of(repo, *number);
            let ids: Vec<u64> = threads.iter().map(|t| t.id).collect();
            Some(connection(&ids, args, "reviewThreads", "rt", true))
        }
        Obj::Review(r) => review_field(state, r, field, args),
        _ => None,
    }
}

/// A page of a connection of the threads (`threads`) or comments with ids `ids`.
fn connection(
    ids: &[u64],
    args: &Map<String, Value>,
    name: &str,
    prefix: &str,
    threads: bool,
) -> Result<Resolved, FieldError> {
    let (range, page) = window(ids.len(), args, name, prefix)?;
    let (ids, total) = (ids[range].to_vec(), ids.len());
    Ok(object(if threads {
        ReviewObj::Threads { ids, page, total }
    } else {
        ReviewObj::Comments { ids, page, total }
    }))
}

fn review_field(
    state: &dyn World,
    obj: &ReviewObj,
    field: &str,
    args: &Map<String, Value>,
) -> Option<Result<Resolved, FieldError>> {
    let reviews = state.reviews();
    let missing = |what: &str, id: &u64| Err(FieldError::plain(format!("no {what} {id}")));
    Some(match obj {
        ReviewObj::Threads { ids, page, total } => Ok(page_field(ids, page, *total, field, true)?),
        ReviewObj::Comments { ids, page, total } => {
            Ok(page_field(ids, page, *total, field, false)?)
        }
        ReviewObj::Thread(id) => match reviews.thread(*id) {
            Some(t) => thread_field(t, field, args),
            None => missing("review thread", id),
        },
        ReviewObj::Comment(id) => match reviews.comment(*id) {
            Some((t, c)) => Ok(comment_field(t, c, field)?),
            None => missing("review comment", id),
        },
        ReviewObj::Review(id) => match reviews.review(*id) {
            Some(r) => Ok(leaf(match field {
                "id" => json!(r.node_id()),
                "databaseId" => json!(r.id),
                "state" => json!(r.state()),
                "body" => json!(r.body),
                "url" => json!(r.url()),
                "author" => return Some(Ok(actor(&r.author))),
                _ => return None,
            })),
            None => missing("review", id),
        },
        ReviewObj::PageInfo(p) => Ok(leaf(match field {
            "hasNextPage" => json!(p.has_next),
            "hasPreviousPage" => json!(p.has_previous),
            "startCursor" => json!(p.start),
            "endCursor" => json!(p.end),
            _ => return None,
        })),
        ReviewObj::Added(_) | ReviewObj::Resolved { .. } => return None,
    })
}

/// A field of a page of threads (`threads`) or comments.
fn page_field(
    ids: &[u64],
    page: &Page,
    total: usize,
    field: &str,
    threads: bool,
) -> Option<Resolved> {
    Some(match field {
        "totalCount" => leaf(json!(total)),
        "pageInfo" => object(ReviewObj::PageInfo(page.clone())),
        "nodes" if threads => list(ids, ReviewObj::Thread),
        "nodes" => list(ids, ReviewObj::Comment),
        _ => return None,
    })
}

fn comment_field(t: &Thread, c: &ReviewComment, field: &str) -> Option<Resolved> {
    Some(match field {
        "id" => leaf(json!(node_id("PRRC", c.id))),
        "databaseId" => leaf(json!(c.id)),
        "body" => leaf(json!(c.body)),
        "author" => actor(&c.author),
        "url" => leaf(json!(comment_url(&t.repo, t.number, c.id))),
        "path" => leaf(json!(t.path)),
        "pullRequestReview" => object(ReviewObj::Review(t.review)),
        _ => return None,
    })
}

fn list(ids: &[u64], make: fn(u64) -> ReviewObj) -> Resolved {
    Resolved::List(ids.iter().map(|id| object(make(*id))).collect())
}

fn thread_field(
    t: &Thread,
    field: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    Ok(match field {
        "id" => leaf(json!(t.node_id())),
        "isResolved" => leaf(json!(t.resolved_by.is_some())),
        // The fake's heads do not move under a thread.
        "isOutdated" => leaf(json!(false)),
        "path" => leaf(json!(t.path)),
        "line" => leaf(json!(t.line)),
        "startLine" => leaf(json!(t.start_line)),
        "diffSide" => leaf(json!(t.side)),
        "startDiffSide" => leaf(json!(t.start_line.and(t.start_side.as_ref()))),
        // `resolvedBy` is a `User`: a bot that resolved it shows as null.
        "resolvedBy" => match t.resolved_by.as_deref() {
            Some(login) if !login.ends_with("[bot]") => actor(login),
            _ => leaf(Value::Null),
        },
        "comments" => {
            let ids: Vec<u64> = t.comments.iter().map(|c| c.id).collect();
            return connection(&ids, args, "comments", "rc", false);
        }
        _ => {
            return Err(FieldError::unserved(&format!(
                "PullRequestReviewThread.{field}"
            )))
        }
    })
}
