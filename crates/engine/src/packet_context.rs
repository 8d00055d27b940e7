//! The packet's context fields (docs/reference.md#the-audit-packet): `tasks`, `checks` and
//! `decisions`, what an auditor judges outcome and completeness against, shaped from what
//! GitHub answered (read by `auditloop packet` only).

use serde_json::{json, Value};

use crate::ids::TaskId;
use crate::md::escape::truncate;

/// An issue's body is cut at this many characters in the packet.
pub(crate) const TASK_BODY_CHARS: usize = 4_000;

/// A covered issue as GitHub gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskIssue {
    pub title: String,
    pub open: bool,
    pub labels: Vec<String>,
    pub body: String,
}

/// A check run on the candidate as GitHub lists it (status and conclusion in lower case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRun {
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub url: Option<String>,
}

/// A file of the decisions folder, with its text when GitHub gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderFile {
    pub name: String,
    pub text: Option<String>,
}

/// The issue number of a task id `#N`; other ids name tasks outside GitHub.
#[must_use]
pub fn issue_number(task: &TaskId) -> Option<u64> {
    task.as_str().strip_prefix('#')?.parse().ok()
}

/// `tasks`: each covered task, with its issue's title, state, labels and body (cut at
/// [`TASK_BODY_CHARS`]) when it is an issue GitHub gave; the id alone otherwise.
#[must_use]
pub fn tasks(covered: &[TaskId], issue: &dyn Fn(u64) -> Option<TaskIssue>) -> Value {
    covered
        .iter()
        .map(|task| match issue_number(task).and_then(issue) {
            Some(i) => {
                let cut = i.body.chars().count() > TASK_BODY_CHARS;
                json!({
                    "id": task.as_str(),
                    "title": i.title,
                    "state": if i.open { "open" } else { "closed" },
                    "labels": i.labels,
                    "body": truncate(&i.body, TASK_BODY_CHARS),
                    "body_truncated": cut,
                })
            }
            None => json!({ "id": task.as_str() }),
        })
        .collect()
}

/// `checks`: the latest run of each required check on the candidate; `missing` when it
/// has none, `unknown` when GitHub did not list the runs (`runs` is `None`).
#[must_use]
pub fn checks(required: &[String], runs: Option<&[SeenRun]>) -> Value {
    required
        .iter()
        .map(|name| {
            let Some(runs) = runs else {
                return json!({"name": name, "status": "unknown", "conclusion": null, "url": null});
            };
            match runs.iter().find(|r| &r.name == name) {
                Some(r) => json!({
                    "name": name, "status": r.status, "conclusion": r.conclusion, "url": r.url,
                }),
                None => json!({"name": name, "status": "missing", "conclusion": null, "url": null}),
            }
        })
        .collect()
}

/// `D-12-title.md` and `D-12.md` are decision 12.
#[must_use]
pub fn decision_number(file: &str) -> Option<u32> {
    let rest = file.strip_prefix("D-")?.strip_suffix(".md")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with(['-', '_', ' ', '.'])) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// The text of a Markdown file's first ATX heading (`# Title`), at most 200 characters.
#[must_use]
pub(crate) fn first_heading(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim_start)
        .find_map(|l| {
            let level = l.chars().take_while(|c| *c == '#').count();
            let rest = l.get(level..)?;
            ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
                .then(|| rest.trim().trim_end_matches('#').trim().to_owned())
        })
        .filter(|t| !t.is_empty())
        .map(|t| truncate(&t, 200))
}

/// `decisions`: the `D-<n>` files of the folder `dir`, by number, each with its first
/// heading as its title (`null` without one).
#[must_use]
pub fn decisions(dir: &str, files: &[FolderFile]) -> Value {
    let mut found: Vec<(u32, &FolderFile)> = files
        .iter()
        .filter_map(|f| decision_number(&f.name).map(|n| (n, f)))
        .collect();
    found.sort_by_key(|(n, f)| (*n, f.name.clone()));
    found
        .into_iter()
        .map(|(n, f)| {
            json!({
                "id": format!("D-{n}"),
                "file": format!("{}/{}", dir.trim_end_matches('/'), f.name),
                "title": f.text.as_deref().and_then(first_heading),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_the_first_atx_heading() {
        assert_eq!(
            first_heading("intro\n## Use SQLite ##\n# Later"),
            Some("Use SQLite".into())
        );
        assert_eq!(first_heading("#hashtag\nno heading"), None);
        assert_eq!(first_heading("####### seven"), None);
    }

    #[test]
    fn decision_files_are_numbered_and_sorted() {
        let f = |name: &str| FolderFile {
            name: name.into(),
            text: Some(format!("# {name}")),
        };
        let v = decisions(
            "docs/decisions/",
            &[f("D-10-b.md"), f("README.md"), f("D-2.md"), f("D-x.md")],
        );
        assert_eq!(v[0]["id"], "D-2");
        assert_eq!(v[0]["file"], "docs/decisions/D-2.md");
        assert_eq!(v[1]["id"], "D-10");
        assert_eq!(v.as_array().map(Vec::len), Some(2));
    }
}
