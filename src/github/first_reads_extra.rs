//! What the first reads ask beside the records and the pull request
//! (docs/reference.md#review-threads): the PR's review threads and the versions of the files
//! a report's findings cite, aliased into the same query.

use std::borrow::Cow;

use serde::Deserialize;

use crate::github::file_versions;
use crate::ids::Artifact;

/// What else the first reads ask: who wrote the PR's commits and the open PRs on its head
/// (a report), the PR's review threads (a command that may post or resolve one), and the
/// versions of cited files (a report whose findings may be late).
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra<'a> {
    pub with_commits: bool,
    pub with_threads: bool,
    pub with_sharing: bool,
    pub versions: &'a [(Artifact, String)],
}

/// The query, as sent (public so that the fakes are tested with the app's text).
/// The commits' identities are the fragment `PullCommits` pages on with (one text for both).
pub const FIRST_READS: &str = concat!(
    include_str!("first_reads.graphql"),
    "\n\n",
    include_str!("commit_identities.graphql")
);

/// The query for `versions`: [`FIRST_READS`] with one aliased field per pair.
#[must_use]
pub fn document(versions: &[(Artifact, String)]) -> Cow<'static, str> {
    if versions.is_empty() {
        return Cow::Borrowed(FIRST_READS);
    }
    let at = "  repository(owner: $owner, name: $name) {\n    id\n";
    Cow::Owned(FIRST_READS.replacen(at, &format!("{at}{}", file_versions::fields(versions)), 1))
}

/// `document` with the `more` files of `files` aliased into the records commit's selection,
/// after its `patterns` field.
#[must_use]
pub fn with_more<'a>(
    document: Cow<'a, str>,
    files: Option<crate::github::records_listing::RecordFiles<'_>>,
) -> Cow<'a, str> {
    let Some(more) = files.map(|f| f.more).filter(|m| !m.is_empty()) else {
        return document;
    };
    let at = "          patterns: file(path: $patterns) @include(if: $files) {\n            ...RecordFile\n          }\n";
    let fields = crate::github::records_listing::more_fields(more);
    Cow::Owned(document.replacen(at, &format!("{at}{fields}"), 1))
}

/// A review thread as the first reads list it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadNode {
    pub(crate) id: String,
    pub(crate) is_resolved: bool,
    pub(crate) path: String,
    pub(crate) line: Option<u32>,
    pub(crate) start_line: Option<u32>,
    pub(crate) comments: Nodes<ThreadComment>,
}

/// A thread's first comment: its body, where our marker is, and who wrote it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ThreadComment {
    pub(crate) body: String,
    pub(crate) author: Option<Author>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Author {
    pub(crate) login: String,
}

/// The newest review threads, and whether older ones were left out.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadPage {
    pub(crate) page_info: PageBefore,
    pub(crate) nodes: Vec<ThreadNode>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageBefore {
    pub(crate) has_previous_page: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Nodes<T> {
    pub(crate) nodes: Vec<T>,
}

impl<T> Default for Nodes<T> {
    fn default() -> Self {
        Nodes { nodes: Vec::new() }
    }
}
