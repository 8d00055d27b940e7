//! GitHub's GraphQL API over a fake's state: every document is validated against GitHub's
//! published schema (`github-graphql-schema.graphql` beside this crate) with its
//! variables, then executed as the specification says (`exec`) over the same state the
//! REST routes serve (`fields` and the modules it names), so both APIs always agree. A
//! document the schema rejects, or a field, argument or input this fake does not serve,
//! is reported to the [`World`] as a problem of the run.
//!
//! The fake holding the state implements [`World`]: the tests' wiremock fake and the load
//! tool's axum fake each keep their own containers and their own additions (schema checks
//! of written files, pending pushes, a branch-move log), and answer GraphQL through here.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use apollo_compiler::request::coerce_variable_values;
use apollo_compiler::response::JsonMap;
use apollo_compiler::validation::Valid;
use apollo_compiler::ExecutableDocument;
use serde_json::{json, Map, Value};

mod checks;
mod commit_on_branch;
mod commits;
mod exec;
mod fields;
mod obj;
mod packet;
mod reads;
mod review_obj;
mod review_writes;
mod reviews;
mod schema;
mod trees;
mod world;
mod writes;

pub use checks::repository_id;
pub use schema::SCHEMA;
pub use world::{PullCommitInfo, PullFile, World};

/// Documents already validated, by their text: an app sends the same few again and again.
static DOCUMENTS: LazyLock<Mutex<HashMap<String, Arc<Valid<ExecutableDocument>>>>> =
    LazyLock::new(Mutex::default);

/// The GraphQL endpoint for a REST prefix: `/graphql` beside `""`, `/api/graphql` beside
/// GitHub Enterprise Server's `/api/v3`.
pub fn endpoint(prefix: &str) -> String {
    format!("{}/graphql", prefix.strip_suffix("/v3").unwrap_or(prefix))
}

/// A GraphQL request's body, checked.
pub struct Call {
    /// The operation's root field names, in order, `["repository", "rateLimit"]`.
    pub roots: Vec<String>,
    /// `query` or `mutation`; `None` when the request does not validate.
    pub kind: Option<&'static str>,
    /// The operation's name, when it has one and the request validates.
    pub name: Option<String>,
    checked: Result<Checked, Vec<Value>>,
}

/// A request that validated: its document, the operation to run and its coerced variables.
struct Checked {
    document: Arc<Valid<ExecutableDocument>>,
    operation_name: Option<String>,
    variables: Map<String, Value>,
}

/// Checks a request's body (`query`, `operationName`, `variables`) against the schema. A
/// request that does not validate is reported to `world` as a problem; it is answered
/// with GraphQL's `errors`.
pub fn parse(world: &mut dyn World, body: &Value) -> Call {
    let query = body["query"].as_str().unwrap_or_default();
    match check(body) {
        Ok(checked) => {
            let operation = checked
                .document
                .operations
                .get(checked.operation_name.as_deref())
                .expect("checked");
            let mut roots: Vec<String> = Vec::new();
            for field in operation.root_fields(&checked.document) {
                if !roots.iter().any(|r| r == field.name.as_str()) {
                    roots.push(field.name.to_string());
                }
            }
            Call {
                roots,
                kind: Some(if operation.is_mutation() {
                    "mutation"
                } else {
                    "query"
                }),
                name: operation.name.as_ref().map(ToString::to_string),
                checked: Ok(checked),
            }
        }
        Err(errors) => {
            let messages: Vec<&str> = errors
                .iter()
                .filter_map(|e| e["message"].as_str())
                .collect();
            world.problem(format!(
                "invalid GraphQL request: {} (in `{}`)",
                messages.join("; "),
                query.lines().next().unwrap_or_default()
            ));
            Call {
                roots: Vec::new(),
                kind: None,
                name: None,
                checked: Err(errors),
            }
        }
    }
}

/// The document `query`, validated against the schema, from the cache when it was seen.
fn document(query: &str) -> Result<Arc<Valid<ExecutableDocument>>, Vec<Value>> {
    if let Some(done) = DOCUMENTS.lock().expect("not poisoned").get(query) {
        return Ok(done.clone());
    }
    let document = ExecutableDocument::parse_and_validate(&SCHEMA, query, "request.graphql")
        .map_err(|e| {
            e.errors
                .iter()
                .map(|d| serde_json::to_value(d.to_json()).expect("serializes"))
                .collect::<Vec<_>>()
        })?;
    let document = Arc::new(document);
    DOCUMENTS
        .lock()
        .expect("not poisoned")
        .insert(query.to_owned(), document.clone());
    Ok(document)
}

/// The request's document, operation and variables, or GraphQL's `errors` for them.
fn check(body: &Value) -> Result<Checked, Vec<Value>> {
    let message = |m: String| vec![json!({"message": m})];
    let Some(query) = body["query"].as_str() else {
        return Err(message(
            "A query attribute must be specified and must be a string.".into(),
        ));
    };
    let operation_name = body["operationName"].as_str().map(str::to_owned);
    let raw = match &body["variables"] {
        Value::Null => JsonMap::new(),
        v @ Value::Object(_) => serde_json::from_value(v.clone()).expect("JSON object"),
        other => return Err(message(format!("Variables must be an object, not {other}"))),
    };
    let document = document(query)?;
    let operation = document
        .operations
        .get(operation_name.as_deref())
        .map_err(|e| message(e.message().to_string()))?;
    let coerced = coerce_variable_values(&SCHEMA, operation, &raw).map_err(|e| {
        vec![serde_json::to_value(e.to_graphql_error(&document.sources)).expect("serializes")]
    })?;
    let Value::Object(variables) = serde_json::to_value(&*coerced).expect("serializes") else {
        unreachable!("variables are an object")
    };
    Ok(Checked {
        document,
        operation_name,
        variables,
    })
}

/// The answer's body to a GraphQL call, which GitHub sends with HTTP 200: `data`, and
/// `errors` when there are any.
pub fn answer(world: &mut dyn World, call: &Call) -> Value {
    match &call.checked {
        Err(errors) => json!({"errors": errors}),
        Ok(c) => {
            let operation = c
                .document
                .operations
                .get(c.operation_name.as_deref())
                .expect("checked");
            exec::execute(world, &c.document, operation, &c.variables)
        }
    }
}
