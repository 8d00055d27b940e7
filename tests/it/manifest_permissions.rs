//! `app-manifest.yml` asks for exactly what auditloop uses (docs/reference.md#events-handled): the permissions
//! are derived from the routes the GitHub client names its calls by (every `"METHOD /path"`
//! template under `src/`, the labels `/metrics` counts calls by) and from the events the
//! code handles, and compared both ways with the manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use auditloop::events::WebhookEvent;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Read,
    Write,
}

/// The installation permission each route needs, from GitHub's REST reference ("Fine-grained
/// access tokens / GitHub App permissions" of each endpoint). `None`: the route is called with
/// the App's JWT or with no credential, so it needs no installation permission.
const NEEDS: &[(&str, Option<(&str, Level)>)] = &[
    ("GET /app", None),
    ("GET /app/installations", None),
    ("GET /app/hook/deliveries", None),
    ("POST /app/hook/deliveries/{delivery_id}/attempts", None),
    ("GET /app/hook/deliveries/{delivery_id}", None),
    (
        "POST /app/installations/{installation_id}/access_tokens",
        None,
    ),
    ("POST /app-manifests/{code}/conversions", None),
    (
        "GET /installation/repositories",
        Some(("metadata", Level::Read)),
    ),
    // `packet` and `post` call it with the workflow's own token; the App would need only
    // the metadata every App has.
    ("GET /repos/{owner}/{repo}", Some(("metadata", Level::Read))),
    (
        "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
        Some(("metadata", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
        Some(("checks", Level::Read)),
    ),
    (
        "POST /repos/{owner}/{repo}/check-runs",
        Some(("checks", Level::Write)),
    ),
    (
        "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
        Some(("checks", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/contents/{path}",
        Some(("contents", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/compare/{basehead}",
        Some(("contents", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/git/ref/{ref}",
        Some(("contents", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
        Some(("contents", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
        Some(("contents", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
        Some(("contents", Level::Read)),
    ),
    (
        "POST /repos/{owner}/{repo}/git/trees",
        Some(("contents", Level::Write)),
    ),
    (
        "POST /repos/{owner}/{repo}/git/commits",
        Some(("contents", Level::Write)),
    ),
    (
        "POST /repos/{owner}/{repo}/git/refs",
        Some(("contents", Level::Write)),
    ),
    // The conversion of a version-1 records branch: a non-forced ref update.
    (
        "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
        Some(("contents", Level::Write)),
    ),
    // GraphQL documents, named by their operation (GitHub's GraphQL reference: a commit
    // through `createCommitOnBranch` needs `contents: write`; reading history, `read`).
    (
        "POST /graphql RecordsCommit",
        Some(("contents", Level::Write)),
    ),
    (
        "POST /graphql RecordsLanded",
        Some(("contents", Level::Read)),
    ),
    // The first reads read a file, a ref, a pull request and check runs: `contents`,
    // `pull_requests` and `checks` read, the last two named already by their REST routes.
    ("POST /graphql FirstReads", Some(("contents", Level::Read))),
    // Files of the records branch read by path (layout version 2).
    (
        "POST /graphql RecordsByPath",
        Some(("contents", Level::Read)),
    ),
    // The packet's context (issues, check runs, the decisions folder) is read by `packet`
    // with the workflow's own token, never by the App.
    ("POST /graphql PacketReads", None),
    // The blobs of cited files at the candidates audited, for late findings.
    (
        "POST /graphql FileVersions",
        Some(("contents", Level::Read)),
    ),
    // The check runs on the open PRs' heads, for the repository's dashboard and status.
    ("POST /graphql HeadChecks", Some(("checks", Level::Read))),
    // The diff's lines a review thread may go on (and the packet's unchanged files).
    (
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
        Some(("pull_requests", Level::Read)),
    ),
    // A pull request's commits and the accounts linked to them.
    (
        "POST /graphql PullCommits",
        Some(("pull_requests", Level::Read)),
    ),
    // The body's update needs `pull_requests: write`; a reaction on a PR's comment is
    // covered by it too (as REST's reaction route, named by its own entry); the check run
    // needs `checks: write`, named by the REST check-run routes.
    ("POST /graphql Views", Some(("pull_requests", Level::Write))),
    (
        "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
        Some(("contents", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/git/matching-refs/{ref}",
        Some(("contents", Level::Read)),
    ),
    (
        "POST /repos/{owner}/{repo}/dispatches",
        Some(("contents", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/pulls",
        Some(("pull_requests", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        Some(("pull_requests", Level::Read)),
    ),
    (
        "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
        Some(("pull_requests", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls",
        Some(("pull_requests", Level::Read)),
    ),
    (
        "GET /repos/{owner}/{repo}/issues",
        Some(("issues", Level::Read)),
    ),
    (
        "POST /repos/{owner}/{repo}/issues",
        Some(("issues", Level::Write)),
    ),
    (
        "PATCH /repos/{owner}/{repo}/issues/{issue_number}",
        Some(("issues", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        Some(("issues", Level::Read)),
    ),
    (
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        Some(("issues", Level::Write)),
    ),
    (
        "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        Some(("issues", Level::Write)),
    ),
    (
        "GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        Some(("issues", Level::Read)),
    ),
];

/// The permission GitHub requires before it sends an event to an App.
const EVENT_NEEDS: &[(&str, &str)] = &[
    ("pull_request", "pull_requests"),
    ("issue_comment", "issues"),
    ("issues", "issues"),
    ("check_run", "checks"),
    ("check_suite", "checks"),
    ("merge_group", "merge_queues"),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every route template a call is made under: the string literals `"METHOD /path"` in src/,
/// and `"POST /graphql Operation"` for a GraphQL document.
fn called_routes() -> BTreeSet<String> {
    let pattern =
        regex::Regex::new(r#""((?:GET|POST|PATCH|PUT|DELETE) /[^"\s]*(?: [A-Z][A-Za-z]+)?)""#)
            .unwrap();
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut routes = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for cap in pattern.captures_iter(&text) {
            routes.insert(cap[1].to_owned());
        }
    }
    routes
}

/// The events the code handles: each example payload parses into a typed event that the
/// App acts on (not `installation*`, `ping` or an unhandled name, which every App receives or
/// auditloop ignores).
fn handled_events() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhooks");
    let mut events = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let name = file.split('.').next().unwrap().to_owned();
        let body = std::fs::read(&path).unwrap();
        let event = WebhookEvent::parse(&name, &body).unwrap_or_else(|e| panic!("{file}: {e}"));
        let acted_on = !matches!(
            event,
            WebhookEvent::Installation { .. } | WebhookEvent::Ping | WebhookEvent::Unhandled { .. }
        );
        if acted_on {
            events.insert(name);
        }
    }
    events
}

fn manifest() -> Value {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("app-manifest.yml"))
            .unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

fn level(text: &str) -> Level {
    match text {
        "read" => Level::Read,
        "write" => Level::Write,
        other => panic!("app-manifest.yml: permission level {other:?}"),
    }
}

/// What the code needs: the highest level per permission over every route and event, and
/// `metadata: read`, which GitHub gives every App.
fn needed() -> BTreeMap<String, Level> {
    let mut needed = BTreeMap::from([("metadata".to_owned(), Level::Read)]);
    let mut unknown = Vec::new();
    for route in called_routes() {
        match NEEDS.iter().find(|(r, _)| *r == route) {
            None => unknown.push(route),
            Some((_, None)) => {}
            Some((_, Some((perm, lvl)))) => {
                let at = needed.entry((*perm).to_owned()).or_insert(*lvl);
                *at = (*at).max(*lvl);
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "routes called with no permission named for them in NEEDS: {unknown:#?}"
    );
    for event in handled_events() {
        let perm = EVENT_NEEDS
            .iter()
            .find(|(e, _)| *e == event)
            .unwrap_or_else(|| panic!("handled event {event} has no permission in EVENT_NEEDS"))
            .1;
        needed.entry(perm.to_owned()).or_insert(Level::Read);
    }
    needed
}

#[test]
fn the_manifest_asks_for_exactly_the_permissions_the_code_uses() {
    let manifest = manifest();
    let asked: BTreeMap<String, Level> = manifest["default_permissions"]
        .as_object()
        .expect("default_permissions is a mapping")
        .iter()
        .map(|(k, v)| (k.clone(), level(v.as_str().unwrap())))
        .collect();
    let needed = needed();
    let more: Vec<_> = asked
        .iter()
        .filter(|(k, v)| needed.get(*k).is_none_or(|n| n < *v))
        .collect();
    let less: Vec<_> = needed
        .iter()
        .filter(|(k, v)| asked.get(*k).is_none_or(|a| a < *v))
        .collect();
    assert!(
        more.is_empty() && less.is_empty(),
        "app-manifest.yml asks for more than the code uses: {more:?}; for less: {less:?}"
    );
    // The reference's list, spelled out so that a change of either side is seen.
    assert_eq!(
        format!("{asked:?}"),
        r#"{"checks": Write, "contents": Write, "issues": Write, "merge_queues": Read, "metadata": Read, "pull_requests": Write}"#
    );
}

#[test]
fn the_manifest_subscribes_to_exactly_the_handled_events() {
    let manifest = manifest();
    let asked: BTreeSet<String> = manifest["default_events"]
        .as_array()
        .expect("default_events is a list")
        .iter()
        .map(|e| e.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(asked, handled_events());
    assert_eq!(asked.len(), 6);
}

#[test]
fn every_called_route_is_a_documented_one() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/github-routes.json"),
    )
    .unwrap();
    let table: Value = serde_json::from_str(&text).unwrap();
    let documented: BTreeSet<String> = table["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["method"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect();
    let called = called_routes();
    assert!(
        called.len() > 20,
        "the route scan found the calls: {called:?}"
    );
    // GraphQL documents are checked against GitHub's GraphQL schema by the fake instead.
    let undocumented: Vec<_> = called
        .difference(&documented)
        .filter(|r| !r.starts_with("POST /graphql "))
        .collect();
    assert!(undocumented.is_empty(), "{undocumented:#?}");
}
