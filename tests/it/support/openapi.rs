//! GitHub's REST description as the kit checks against it: the routes the app calls
//! (`tests/fixtures/github-routes.json`) and the 2xx JSON response schemas of those routes
//! (`tests/fixtures/github-responses.json`), both from `@octokit/openapi`. Each schema is
//! compiled once, the first time an answer of its route and status is checked.

use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};

use serde_json::Value;

pub struct Route {
    pub method: String,
    /// The path template, e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`.
    pub path: String,
    segments: Vec<String>,
    pub query: Vec<String>,
    /// The request-body fields the route declares (null where the schema goes no deeper).
    pub body: Value,
}

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    fixture("github-routes.json")["routes"]
        .as_array()
        .expect("a route list")
        .iter()
        .map(|r| {
            let path = r["path"].as_str().expect("a path").to_owned();
            Route {
                method: r["method"].as_str().expect("a method").to_owned(),
                segments: path
                    .trim_matches('/')
                    .split('/')
                    .map(str::to_owned)
                    .collect(),
                path,
                query: r["query"]
                    .as_array()
                    .expect("a query list")
                    .iter()
                    .map(|q| q.as_str().expect("a name").to_owned())
                    .collect(),
                body: r["body"].clone(),
            }
        })
        .collect()
});

pub fn routes() -> &'static [Route] {
    &ROUTES
}

/// Parameters GitHub lets span several segments (a branch `ref`, a file `path`, a
/// `base...head` of branch names); every other `{param}` is exactly one segment.
const MULTI_SEGMENT: [&str; 3] = ["{ref}", "{path}", "{basehead}"];

fn segments_match(template: &[String], segs: &[&str]) -> bool {
    match (template.split_first(), segs.split_first()) {
        (None, None) => true,
        (Some((t, t_rest)), Some(_)) if MULTI_SEGMENT.contains(&t.as_str()) => (1..=segs.len())
            .any(|n| segs[..n].iter().all(|s| !s.is_empty()) && segments_match(t_rest, &segs[n..])),
        (Some((t, t_rest)), Some((s, s_rest))) => {
            let ok = if t.starts_with('{') {
                !s.is_empty()
            } else {
                t == s
            };
            ok && segments_match(t_rest, s_rest)
        }
        _ => false,
    }
}

impl Route {
    /// Whether a request's method and concrete path (no query string, no API prefix) are
    /// this route's.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        let path = path.split('?').next().unwrap_or_default();
        let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
        self.method.eq_ignore_ascii_case(method) && segments_match(&self.segments, &segs)
    }

    fn literal_segments(&self) -> usize {
        self.segments.iter().filter(|s| !s.starts_with('{')).count()
    }
}

/// The route a request is, the most specific when several templates match.
pub fn route_of(method: &str, path: &str) -> Option<&'static Route> {
    routes()
        .iter()
        .filter(|r| r.matches(method, path))
        .max_by_key(|r| r.literal_segments())
}

struct Schemas {
    components: Value,
    /// `METHOD /template STATUS` -> the schema and, once used, its compiled validator.
    responses: HashMap<String, (Value, OnceLock<jsonschema::Validator>)>,
}

static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| {
    let mut doc = fixture("github-responses.json");
    let components = doc["components"].take();
    let responses = match doc["responses"].take() {
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, (v, OnceLock::new())))
            .collect(),
        other => panic!("github-responses.json: responses is {other}"),
    };
    Schemas {
        components,
        responses,
    }
});

/// How many response schemas the description holds for the app's routes.
pub fn response_schema_count() -> usize {
    SCHEMAS.responses.len()
}

fn validator(key: &str) -> Option<&'static jsonschema::Validator> {
    let (schema, compiled) = SCHEMAS.responses.get(key)?;
    Some(compiled.get_or_init(|| {
        // The schema's `#/components/schemas/...` references resolve against its root.
        let mut root = schema.clone();
        root.as_object_mut()
            .expect("an object schema")
            .insert("components".into(), SCHEMAS.components.clone());
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| panic!("the schema of {key} compiles: {e}"))
    }))
}

/// Checks a 2xx answer against the schema GitHub documents for its route and status:
/// `Err` says why it is not one GitHub could send (no such route, no JSON body documented
/// for that status, or the body's first mismatches).
pub fn check_answer(
    method: &str,
    path: &str,
    status: u16,
    body: Option<&Value>,
) -> Result<(), String> {
    let Some(route) = route_of(method, path) else {
        return Err(format!("{method} {path}: no documented route"));
    };
    let key = format!("{} {} {status}", route.method, route.path);
    let Some(validator) = validator(&key) else {
        return match body {
            None => Ok(()),
            Some(_) => Err(format!("{method} {path}: {key} documents no JSON body")),
        };
    };
    let Some(body) = body else {
        return Err(format!(
            "{method} {path}: {key} documents a JSON body, none sent"
        ));
    };
    let errors: Vec<String> = validator
        .iter_errors(body)
        .take(8)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{method} {path} ({key}): {}", errors.join("; ")))
    }
}
