//! The fake's GraphQL endpoint: `POST /graphql` (`/api/graphql` on GitHub Enterprise
//! Server). Every document is validated against GitHub's published schema
//! (`tests/fixtures/github-graphql-schema.graphql`) with its variables, then executed over
//! the same state as the REST routes (`fake_graphql_exec`, `fake_graphql_fields`), so that
//! both APIs always agree. A document the schema rejects, or a field, argument or input
//! the fake does not serve, goes to `State::graphql_problems` and fails the test.

use std::sync::LazyLock;

use apollo_compiler::request::coerce_variable_values;
use apollo_compiler::response::JsonMap;
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};
use serde_json::{json, Map, Value};

use super::fake::{reply, Answer, State};

/// The defects of the published schema itself: `EnterpriseOwnerInfo` defines two fields
/// twice (the second copy with another field's description). The first definitions are
/// kept; any other error fails.
const SCHEMA_DEFECTS: &[&str] = &[
    "duplicate definitions for the `repositoryDeployKeySetting` field of object type `EnterpriseOwnerInfo`",
    "duplicate definitions for the `repositoryDeployKeySettingOrganizations` field of object type `EnterpriseOwnerInfo`",
];

/// GitHub's schema, parsed and validated once for the whole test binary.
pub static SCHEMA: LazyLock<Valid<Schema>> = LazyLock::new(|| {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/github-graphql-schema.graphql"
    );
    let text = std::fs::read_to_string(path).expect("the GraphQL schema fixture");
    let schema = Schema::parse(text, "github-graphql-schema.graphql").unwrap_or_else(|e| {
        let found: Vec<String> = e.errors.iter().map(|d| d.to_json().message).collect();
        assert!(
            found.iter().all(|m| SCHEMA_DEFECTS.contains(&m.as_str())),
            "GitHub's GraphQL schema does not parse: {}",
            e.errors
        );
        e.partial
    });
    schema
        .validate()
        .unwrap_or_else(|e| panic!("GitHub's GraphQL schema does not validate: {}", e.errors))
});

/// The GraphQL endpoint for a REST prefix: `/graphql` beside `""`, `/api/graphql` beside
/// GitHub Enterprise Server's `/api/v3`.
pub fn endpoint(prefix: &str) -> String {
    format!("{}/graphql", prefix.strip_suffix("/v3").unwrap_or(prefix))
}

/// A GraphQL request as the fake received it.
pub struct Call {
    /// The endpoint and the operation's root field names, `/graphql/repository,rateLimit`:
    /// what `Recorded::path` holds and the fake's matchers (`fail_next`, `on_next`,
    /// `lose_next_answer`) look at.
    pub path: String,
    /// `query` or `mutation`; `None` when the request does not validate.
    pub operation: Option<&'static str>,
    checked: Result<Checked, Vec<Value>>,
}

/// A request that validated: its document, the operation to run and its coerced variables.
struct Checked {
    document: Valid<ExecutableDocument>,
    operation_name: Option<String>,
    variables: Map<String, Value>,
}

/// The request as a GraphQL call when it is one (`POST` to the endpoint). A request that
/// does not validate is recorded in `state.graphql_problems`.
pub fn parse(
    state: &mut State,
    prefix: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> Option<Call> {
    let endpoint = endpoint(prefix);
    if method != "POST" || path != endpoint {
        return None;
    }
    let query = body["query"].as_str().unwrap_or_default();
    match check(body) {
        Ok(checked) => {
            let operation = checked
                .document
                .operations
                .get(checked.operation_name.as_deref())
                .expect("checked");
            let mut roots: Vec<&str> = Vec::new();
            for field in operation.root_fields(&checked.document) {
                if !roots.contains(&field.name.as_str()) {
                    roots.push(field.name.as_str());
                }
            }
            Some(Call {
                path: format!("{endpoint}/{}", roots.join(",")),
                operation: Some(if operation.is_mutation() {
                    "mutation"
                } else {
                    "query"
                }),
                checked: Ok(checked),
            })
        }
        Err(errors) => {
            let messages: Vec<&str> = errors
                .iter()
                .filter_map(|e| e["message"].as_str())
                .collect();
            state.graphql_problems.push(format!(
                "invalid GraphQL request: {} (in `{}`)",
                messages.join("; "),
                query.lines().next().unwrap_or_default()
            ));
            Some(Call {
                path: endpoint,
                operation: None,
                checked: Err(errors),
            })
        }
    }
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
    let document = ExecutableDocument::parse_and_validate(&SCHEMA, query, "request.graphql")
        .map_err(|e| {
            e.errors
                .iter()
                .map(|d| serde_json::to_value(d.to_json()).expect("serializes"))
                .collect::<Vec<_>>()
        })?;
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

/// The answer to a GraphQL call: HTTP 200 with `data` and `errors` as GitHub sends them.
pub fn answer(state: &mut State, call: &Call) -> Answer {
    let body = match &call.checked {
        Err(errors) => json!({"errors": errors}),
        Ok(c) => {
            let operation = c
                .document
                .operations
                .get(c.operation_name.as_deref())
                .expect("checked");
            super::fake_graphql_exec::execute(state, &c.document, operation, &c.variables)
        }
    };
    reply(200, body)
}

impl super::fake::FakeGitHub {
    /// The GraphQL endpoint the app derives from `api_url()`.
    pub fn graphql_url(&self) -> String {
        format!("{}{}", self.server.uri(), endpoint(&self.prefix))
    }

    /// The answer to `query` with `variables`, which GitHub sends with a 200 whatever it holds.
    pub async fn post_graphql(&self, query: &str, variables: Value) -> Value {
        let response = reqwest::Client::new()
            .post(self.graphql_url())
            .json(&json!({"query": query, "variables": variables}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "GitHub answers GraphQL with 200");
        response.json().await.unwrap()
    }
}
