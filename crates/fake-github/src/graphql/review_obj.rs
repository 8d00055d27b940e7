//! The review objects GraphQL completes (threads, comments, reviews, their pages), named by
//! their ids in the fake's reviews; `reviews.rs` resolves their fields.

/// Where a page sits in its connection, with the cursors of its first and last items.
#[derive(Clone)]
pub struct Page {
    pub(super) has_next: bool,
    pub(super) has_previous: bool,
    pub(super) start: Option<String>,
    pub(super) end: Option<String>,
}

/// The review objects GraphQL completes, by their ids in [`crate::reviews::Reviews`].
pub enum ReviewObj {
    Threads {
        ids: Vec<u64>,
        page: Page,
        total: usize,
    },
    Thread(u64),
    Comments {
        ids: Vec<u64>,
        page: Page,
        total: usize,
    },
    Comment(u64),
    Review(u64),
    /// `addPullRequestReview`'s answer.
    Added(u64),
    /// `resolveReviewThread`'s answer (`resolved`), or `unresolveReviewThread`'s.
    Resolved {
        thread: u64,
        resolved: bool,
    },
    /// A page of one of these connections, which serves both directions.
    PageInfo(Page),
}

impl ReviewObj {
    pub fn type_name(&self) -> &'static str {
        match self {
            ReviewObj::Threads { .. } => "PullRequestReviewThreadConnection",
            ReviewObj::Thread(_) => "PullRequestReviewThread",
            ReviewObj::Comments { .. } => "PullRequestReviewCommentConnection",
            ReviewObj::Comment(_) => "PullRequestReviewComment",
            ReviewObj::Review(_) => "PullRequestReview",
            ReviewObj::Added(_) => "AddPullRequestReviewPayload",
            ReviewObj::Resolved { resolved: true, .. } => "ResolveReviewThreadPayload",
            ReviewObj::Resolved {
                resolved: false, ..
            } => "UnresolveReviewThreadPayload",
            ReviewObj::PageInfo(_) => "PageInfo",
        }
    }
}
