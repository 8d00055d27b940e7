//! Pull-request reviews as GitHub keeps them: each review with the threads it opened, each
//! thread on lines of one file of the diff, with its comments, resolved or not. Also the
//! check GitHub makes of a thread a review drafts: its lines must be lines the file's patch
//! shows, in one hunk, else the whole review is refused in GitHub's words.

use crate::objects::{node_id, WEB};
use crate::pulls::PullFile;

/// A comment of a thread; `author` is REST's login (`slug[bot]` for an App).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewComment {
    pub id: u64,
    pub body: String,
    pub author: String,
}

/// A thread on lines `start_line..=line` of `path` (`line` alone without a start), on
/// the diff's `side` (`RIGHT`: the new file, `LEFT`: the old one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    pub id: u64,
    pub repo: String,
    pub number: u64,
    pub review: u64,
    pub path: String,
    pub line: u64,
    pub start_line: Option<u64>,
    pub side: String,
    pub start_side: Option<String>,
    /// Who resolved it (REST's login), while it is resolved.
    pub resolved_by: Option<String>,
    pub comments: Vec<ReviewComment>,
}

impl Thread {
    pub fn node_id(&self) -> String {
        node_id("PRRT", self.id)
    }
}

/// A review of pull request `number` of `repo` at `commit_oid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub id: u64,
    pub repo: String,
    pub number: u64,
    /// As asked: `COMMENT`, `APPROVE` or `REQUEST_CHANGES`; `None` leaves it pending.
    pub event: Option<String>,
    pub commit_oid: String,
    pub body: String,
    pub author: String,
    /// Its threads' ids, in order.
    pub threads: Vec<u64>,
}

impl Review {
    pub fn node_id(&self) -> String {
        node_id("PRR", self.id)
    }

    /// GraphQL's `PullRequestReviewState` of a review submitted with its event.
    pub fn state(&self) -> &'static str {
        match self.event.as_deref() {
            Some("APPROVE") => "APPROVED",
            Some("REQUEST_CHANGES") => "CHANGES_REQUESTED",
            Some("COMMENT") => "COMMENTED",
            _ => "PENDING",
        }
    }

    pub fn url(&self) -> String {
        format!(
            "{WEB}/{}/pull/{}#pullrequestreview-{}",
            self.repo, self.number, self.id
        )
    }
}

/// Every review and thread of a fake GitHub, oldest first.
#[derive(Debug, Default)]
pub struct Reviews {
    reviews: Vec<Review>,
    threads: Vec<Thread>,
}

impl Reviews {
    /// Keeps `review` with `threads`, which it opened.
    pub fn add(&mut self, mut review: Review, threads: Vec<Thread>) {
        review.threads = threads.iter().map(|t| t.id).collect();
        self.reviews.push(review);
        self.threads.extend(threads);
    }

    pub fn reviews_of(&self, repo: &str, number: u64) -> Vec<&Review> {
        let of = |r: &&Review| r.repo == repo && r.number == number;
        self.reviews.iter().filter(of).collect()
    }

    pub fn threads_of(&self, repo: &str, number: u64) -> Vec<&Thread> {
        let of = |t: &&Thread| t.repo == repo && t.number == number;
        self.threads.iter().filter(of).collect()
    }

    pub fn review(&self, id: u64) -> Option<&Review> {
        self.reviews.iter().find(|r| r.id == id)
    }

    pub fn thread(&self, id: u64) -> Option<&Thread> {
        self.threads.iter().find(|t| t.id == id)
    }

    /// The thread a GraphQL node id names.
    pub fn thread_by_node(&self, node: &str) -> Option<&Thread> {
        self.threads.iter().find(|t| t.node_id() == node)
    }

    /// A comment with the thread that holds it.
    pub fn comment(&self, id: u64) -> Option<(&Thread, &ReviewComment)> {
        self.threads
            .iter()
            .find_map(|t| Some((t, t.comments.iter().find(|c| c.id == id)?)))
    }

    /// Resolves the thread node id `node` names as `by` (REST's login), or unresolves it
    /// (`None`); the thread, or `None` when there is no such thread.
    pub fn set_resolved(&mut self, node: &str, by: Option<&str>) -> Option<&Thread> {
        let thread = self.threads.iter_mut().find(|t| t.node_id() == node)?;
        thread.resolved_by = by.map(str::to_owned);
        Some(thread)
    }
}

/// The URL GitHub gives review comment `id` on pull request `number`.
pub fn comment_url(repo: &str, number: u64, id: u64) -> String {
    format!("{WEB}/{repo}/pull/{number}#discussion_r{id}")
}

/// A thread as a review drafts it (`DraftPullRequestReviewThread`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftThread {
    pub path: String,
    pub line: u64,
    pub start_line: Option<u64>,
    pub side: String,
    pub start_side: String,
}

/// GitHub's validation messages for a thread off the diff.
const PATH_INVALID: &str = "Pull request review thread path is invalid";
const LINE_OFF: &str = "Pull request review thread line must be part of the diff";
const START_OFF: &str =
    "Pull request review thread start line must be part of the same hunk as the line.";
const HUNK_BLANK: &str = "Pull request review thread diff hunk can't be blank";
const START_AFTER: &str = "Start line must precede the end line.";

/// Messages joined as GitHub (Rails' `to_sentence`) joins them.
fn sentence(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

/// Why GitHub refuses `draft` on the pull request's `files`, in its words; `None` when the
/// lines are lines of one hunk of the file's patch.
pub fn refusal(files: &[PullFile], draft: &DraftThread) -> Option<String> {
    let Some(file) = files.iter().find(|f| f.filename == draft.path) else {
        return Some(sentence(&[PATH_INVALID, HUNK_BLANK]));
    };
    let patch = file.patch.as_deref().unwrap_or_default();
    let end = hunk_of(patch, &draft.side, draft.line);
    let start = draft
        .start_line
        .map(|line| hunk_of(patch, &draft.start_side, line));
    if end.is_none() {
        let mut parts = vec![LINE_OFF];
        parts.extend(start.map(|_| START_OFF));
        parts.push(HUNK_BLANK);
        return Some(sentence(&parts));
    }
    let same_side = draft.side == draft.start_side;
    if draft
        .start_line
        .is_some_and(|s| same_side && s > draft.line)
    {
        return Some(START_AFTER.to_owned());
    }
    start.filter(|s| *s != end).map(|_| START_OFF.to_owned())
}

/// `@@ -a,b +c,d @@`: the first old and new line of a hunk (a missing count is 1).
fn hunk_header(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let first = |range: &str| range.split(',').next()?.parse::<u64>().ok();
    Some((first(old)?, first(new)?))
}

/// The hunk (counted from 0) of `patch` that shows line `line` of `side`: a context line or
/// one it adds (`RIGHT`), or a context line or one it removes (`LEFT`).
pub fn hunk_of(patch: &str, side: &str, line: u64) -> Option<usize> {
    let right = side != "LEFT";
    let mut hunk: Option<usize> = None;
    let (mut old, mut new) = (0, 0);
    for text in patch.lines() {
        if let Some((a, c)) = hunk_header(text) {
            hunk = Some(hunk.map_or(0, |h| h + 1));
            (old, new) = (a, c);
            continue;
        }
        let Some(at) = hunk else { continue };
        let (on_old, on_new) = match text.chars().next() {
            Some('+') => (false, true),
            Some('-') => (true, false),
            Some('\\') => continue,
            // A context line (an empty one has lost its space).
            _ => (true, true),
        };
        if (right && on_new && new == line) || (!right && on_old && old == line) {
            return Some(at);
        }
        old += u64::from(on_old);
        new += u64::from(on_new);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+C\n c\n@@ -10,2 +11,3 @@ fn x() {\n x\n+y\n z\n\\ No newline at end of file";

    fn draft(path: &str, line: u64, start: Option<u64>) -> DraftThread {
        DraftThread {
            path: path.into(),
            line,
            start_line: start,
            side: "RIGHT".into(),
            start_side: "RIGHT".into(),
        }
    }

    fn files() -> Vec<PullFile> {
        vec![PullFile {
            filename: "src/a.rs".into(),
            status: "modified".into(),
            sha: "0".repeat(40),
            patch: Some(PATCH.into()),
            previous_filename: None,
        }]
    }

    #[test]
    fn a_hunk_shows_its_context_and_added_lines_on_the_right_and_removed_on_the_left() {
        let right: Vec<Option<usize>> = (1..=14).map(|l| hunk_of(PATCH, "RIGHT", l)).collect();
        let (one, two) = (Some(0), Some(1));
        let none = None;
        assert_eq!(
            right,
            [one, one, one, one, none, none, none, none, none, none, two, two, two, none]
        );
        assert_eq!(hunk_of(PATCH, "LEFT", 2), one);
        assert_eq!(hunk_of(PATCH, "LEFT", 4), none);
        assert_eq!(hunk_of(PATCH, "LEFT", 11), two);
    }

    #[test]
    fn a_thread_off_the_diff_is_refused_in_githubs_words() {
        let files = files();
        assert_eq!(refusal(&files, &draft("src/a.rs", 3, Some(1))), None);
        assert_eq!(
            refusal(&files, &draft("src/b.rs", 1, None)).unwrap(),
            "Pull request review thread path is invalid and Pull request review thread diff hunk can't be blank"
        );
        assert_eq!(
            refusal(&files, &draft("src/a.rs", 7, None)).unwrap(),
            "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"
        );
        assert_eq!(
            refusal(&files, &draft("src/a.rs", 7, Some(1))).unwrap(),
            "Pull request review thread line must be part of the diff, Pull request review thread start line must be part of the same hunk as the line., and Pull request review thread diff hunk can't be blank"
        );
        assert_eq!(
            refusal(&files, &draft("src/a.rs", 12, Some(2))).unwrap(),
            START_OFF
        );
        assert_eq!(
            refusal(&files, &draft("src/a.rs", 2, Some(3))).unwrap(),
            START_AFTER
        );
    }
}
