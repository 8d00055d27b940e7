//! The issues a PR body closes with GitHub's closing keywords (docs/reference.md#commands; gate condition 3):
//! `close`, `closes`, `closed`, `fix`, `fixes`, `fixed`, `resolve`, `resolves`, `resolved`,
//! followed by `#N` or `OWNER/REPO#N` of the same repository. The sections auditloop manages
//! are skipped: report text quoted there must not change the covered tasks.

use std::sync::LazyLock;

use regex::Regex;

use crate::ids::{RepoName, TaskId};
use crate::md::markers::marked_spans;

static KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+))?#([1-9][0-9]{0,9})\b")
        .expect("valid closing-keyword regex")
});

/// Same-repository issues the body closes, deduplicated and sorted (canonical task order).
pub fn closing_issues(body: &str, repo: &RepoName) -> Vec<TaskId> {
    let mut human = String::with_capacity(body.len());
    let mut at = 0;
    let mut spans = marked_spans(body);
    spans.sort_by_key(|(_, r)| r.start);
    for (_, span) in spans {
        if span.start >= at {
            human.push_str(&body[at..span.start]);
            human.push('\n');
            at = span.end;
        }
    }
    human.push_str(&body[at..]);
    let mut found: Vec<TaskId> = KEYWORD
        .captures_iter(&human)
        .filter(|c| {
            c.get(1)
                .is_none_or(|r| r.as_str().eq_ignore_ascii_case(repo.as_str()))
        })
        .filter_map(|c| TaskId::new(format!("#{}", &c[2])).ok())
        .collect();
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> RepoName {
        RepoName::new("octo-org/hello").unwrap()
    }

    fn ids(body: &str) -> Vec<String> {
        closing_issues(body, &repo())
            .into_iter()
            .map(String::from)
            .collect()
    }

    #[test]
    fn every_keyword_closes() {
        for kw in [
            "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves",
            "resolved", "Fixes:",
        ] {
            assert_eq!(ids(&format!("{kw} #12")), ["#12"], "{kw}");
        }
    }

    #[test]
    fn other_words_other_repos_and_managed_sections_do_not() {
        assert!(ids("see #12, refs #3, prefix #4, fixing #5").is_empty());
        assert!(ids("fixes other/repo#9").is_empty());
        assert_eq!(
            ids("Fixes Octo-Org/Hello#9 and closes #2, closes #2"),
            ["#2", "#9"]
        );
        let body =
            "fixes #1\n<!-- auditloop:rounds:start -->\nfixes #77\n<!-- auditloop:rounds:end -->\n";
        assert_eq!(ids(body), ["#1"]);
    }
}
