//! What the audit packet adds to the records for an auditor to judge from, as one GraphQL
//! query: the covered issues, the latest check runs on the candidate, and the decision
//! records on the default branch. Only `auditloop packet` and the MCP `audit_packet` send
//! it, never a webhook delivery. A part GitHub does not give is left out, and the packet
//! says so.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::engine::packet_context::{FolderFile, SeenRun, TaskIssue};
use crate::github::{Api, GitHubError};
use crate::ids::{CommitSha, RepoName};

pub(crate) const ROUTE: &str = "POST /graphql PacketReads";

/// At most this many covered issues are read; further task ids are listed alone.
pub(crate) const MAX_ISSUES: usize = 50;

/// What the query asks.
pub(crate) struct Ask<'a> {
    pub(crate) repo: &'a RepoName,
    /// `<default branch>:<decisions_path>`.
    pub(crate) decisions: String,
    /// The candidate commit, when its check runs are wanted.
    pub(crate) candidate: Option<&'a CommitSha>,
    /// Issue numbers, at most [`MAX_ISSUES`].
    pub(crate) issues: &'a [u64],
}

/// What came back; `None` where GitHub gave no answer for the part.
#[derive(Debug, Default)]
pub(crate) struct PacketReads {
    /// Per asked number: the issue, or `None` when it is no issue (a pull request, or none).
    pub(crate) issues: Option<Vec<(u64, Option<TaskIssue>)>>,
    pub(crate) runs: Option<Vec<SeenRun>>,
    pub(crate) decisions: Option<Vec<FolderFile>>,
}

/// The document for `issues` numbers: one aliased `issueOrPullRequest` each, and the
/// fragment they spread only when there is one.
#[must_use]
pub(crate) fn document(issues: usize) -> String {
    let fragment = if issues == 0 { "" } else { TASK_FRAGMENT };
    let mut vars = String::from(
        "$owner: String!, $name: String!, $decisions: String!, $candidate: GitObjectID!, $withChecks: Boolean!",
    );
    let mut fields = String::new();
    for i in 0..issues {
        vars.push_str(&format!(", $n{i}: Int!"));
        fields.push_str(&format!(
            "\n    t{i}: issueOrPullRequest(number: $n{i}) {{\n      ...Task\n    }}"
        ));
    }
    format!(
        "query PacketReads({vars}) {{
  repository(owner: $owner, name: $name) {{
    decisions: object(expression: $decisions) {{
      __typename
      ... on Tree {{
        entries {{
          name
          type
          object {{
            ... on Blob {{
              text
              isTruncated
            }}
          }}
        }}
      }}
    }}
    candidate: object(oid: $candidate) @include(if: $withChecks) {{
      __typename
      ... on Commit {{
        checkSuites(first: 100) {{
          nodes {{
            checkRuns(first: 100, filterBy: {{checkType: LATEST}}) {{
              nodes {{
                name
                status
                conclusion
                permalink
              }}
            }}
          }}
        }}
      }}
    }}{fields}
  }}
}}{fragment}"
    )
}

/// Declared only when an issue spreads it: GitHub, like every GraphQL server, refuses a
/// document with a fragment it does not use.
const TASK_FRAGMENT: &str = "

fragment Task on IssueOrPullRequest {
  __typename
  ... on Issue {
    title
    state
    body
    labels(first: 20) {
      nodes {
        name
      }
    }
  }
}";

/// Sends the query.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers other than a GraphQL response;
/// an error inside the answer leaves its part out.
pub(crate) async fn packet_reads(api: &Api, ask: &Ask<'_>) -> Result<PacketReads, GitHubError> {
    let issues = &ask.issues[..ask.issues.len().min(MAX_ISSUES)];
    // An absent candidate still needs a well-formed id; the part is not included then.
    let placeholder = "0".repeat(40);
    let mut variables = Map::new();
    variables.insert("owner".into(), json!(ask.repo.owner()));
    variables.insert("name".into(), json!(ask.repo.name()));
    variables.insert("decisions".into(), json!(ask.decisions));
    variables.insert(
        "candidate".into(),
        json!(ask
            .candidate
            .map_or(placeholder.as_str(), CommitSha::as_str)),
    );
    variables.insert("withChecks".into(), json!(ask.candidate.is_some()));
    for (i, n) in issues.iter().enumerate() {
        variables.insert(format!("n{i}"), json!(n));
    }
    let answer = api
        .graphql(
            ROUTE,
            &document(issues.len()),
            Value::Object(variables),
            true,
        )
        .await?;
    let repository = &answer.data["repository"];
    if !repository.is_object() {
        return Ok(PacketReads::default());
    }
    // A part is trusted only when no error names it: GitHub nulls a field it failed on.
    let failed = |part: &str| {
        answer
            .errors
            .iter()
            .any(|e| e.path.is_empty() || e.path.get(1).and_then(Value::as_str) == Some(part))
    };
    let asked = |i: usize| format!("t{i}");
    let issue_answers = issues
        .iter()
        .enumerate()
        .map(|(i, n)| {
            // NOT_FOUND on a number is an answer: no such issue.
            let found = repository.get(asked(i)).and_then(issue_of);
            (*n, found)
        })
        .collect();
    let other_failures = answer.errors.iter().any(|e| {
        e.kind.as_deref() != Some("NOT_FOUND")
            && e.path
                .get(1)
                .and_then(Value::as_str)
                .is_some_and(|p| p.starts_with('t'))
    });
    Ok(PacketReads {
        issues: (!other_failures).then_some(issue_answers),
        runs: if failed("candidate") || ask.candidate.is_none() {
            None
        } else {
            runs_of(&repository["candidate"])
        },
        decisions: if failed("decisions") {
            None
        } else {
            Some(folder_of(&repository["decisions"]))
        },
    })
}

#[derive(Deserialize)]
struct IssueNode {
    #[serde(rename = "__typename")]
    typename: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Option<Nodes<Named>>,
}

#[derive(Deserialize)]
struct Nodes<T> {
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<T>>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

fn issue_of(v: &Value) -> Option<TaskIssue> {
    let node: IssueNode = serde_json::from_value(v.clone()).ok()?;
    if node.typename != "Issue" {
        return None;
    }
    Some(TaskIssue {
        title: node.title.unwrap_or_default(),
        open: node.state.as_deref() == Some("OPEN"),
        labels: node
            .labels
            .map(|l| l.nodes.into_iter().flatten().map(|n| n.name).collect())
            .unwrap_or_default(),
        body: node.body.unwrap_or_default(),
    })
}

#[derive(Deserialize)]
struct RunNode {
    name: String,
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default)]
    permalink: Option<String>,
}

#[derive(Deserialize)]
struct SuiteNode {
    #[serde(rename = "checkRuns", default)]
    check_runs: Option<Nodes<RunNode>>,
}

#[derive(Deserialize)]
struct CommitNode {
    #[serde(rename = "checkSuites", default)]
    check_suites: Option<Nodes<SuiteNode>>,
}

fn runs_of(v: &Value) -> Option<Vec<SeenRun>> {
    if v.is_null() {
        // No such commit on GitHub: no runs on it.
        return Some(Vec::new());
    }
    let commit: CommitNode = serde_json::from_value(v.clone()).ok()?;
    let suites = commit.check_suites?;
    Some(
        suites
            .nodes
            .into_iter()
            .flatten()
            .filter_map(|s| s.check_runs)
            .flat_map(|r| r.nodes.into_iter().flatten())
            .map(|r| SeenRun {
                name: r.name,
                status: r.status.to_ascii_lowercase(),
                conclusion: r.conclusion.map(|c| c.to_ascii_lowercase()),
                url: r.permalink,
            })
            .collect(),
    )
}

fn folder_of(v: &Value) -> Vec<FolderFile> {
    let Some(entries) = v.get("entries").and_then(Value::as_array) else {
        // No folder (or a file where it should be): no decision records.
        return Vec::new();
    };
    entries
        .iter()
        .filter(|e| e["type"] == "blob")
        .filter_map(|e| {
            let name = e["name"].as_str()?.to_owned();
            let object = &e["object"];
            let text = (object["isTruncated"] == false)
                .then(|| object["text"].as_str().map(str::to_owned))
                .flatten();
            Some(FolderFile { name, text })
        })
        .collect()
}
