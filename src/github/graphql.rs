//! One GraphQL document sent to GitHub's endpoint (`endpoint.rs`) through the same retry
//! policy, metrics and delivery header as a REST call. The documents themselves live with
//! their callers.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::github::api::{status_error, Api, Call};
use crate::github::endpoint::{Endpoint, GRAPHQL_PATH};
use crate::github::error::GitHubError;

/// One entry of a GraphQL answer's `errors`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub(crate) struct GraphqlError {
    /// GitHub's error type (`STALE_DATA`, `NOT_FOUND`, …), when it gives one.
    #[serde(rename = "type", default)]
    pub(crate) kind: Option<String>,
    #[serde(default)]
    pub(crate) message: String,
    /// The field it struck, from the root (`["repository", "pullRequest"]`).
    #[serde(default)]
    pub(crate) path: Vec<Value>,
}

/// A 200 answer: `data` (null fields where an error struck) and the errors.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct GraphqlAnswer {
    #[serde(default)]
    pub(crate) data: Value,
    #[serde(default)]
    pub(crate) errors: Vec<GraphqlError>,
}

impl GraphqlAnswer {
    /// The first error of GitHub's type `kind`.
    #[must_use]
    pub(crate) fn error_of(&self, kind: &str) -> Option<&GraphqlError> {
        self.errors.iter().find(|e| e.kind.as_deref() == Some(kind))
    }

    /// `data`, or a [`GitHubError::Decode`] naming the errors when there are any.
    ///
    /// # Errors
    ///
    /// [`GitHubError::Decode`] when the answer carries errors or its data has another shape.
    pub(crate) fn decode<T: serde::de::DeserializeOwned>(
        self,
        route: &'static str,
    ) -> Result<T, GitHubError> {
        if let Some(first) = self.errors.first() {
            let mut message = first.message.clone();
            message.truncate(300);
            return Err(GitHubError::Decode {
                route,
                message: format!("{}: {message}", first.kind.as_deref().unwrap_or("error")),
            });
        }
        serde_path_to_error::deserialize(self.data).map_err(|e| GitHubError::Decode {
            route,
            message: format!("{}: {}", e.path(), e.inner()),
        })
    }
}

impl Api {
    /// Sends one document. `route` names it for metrics and errors (`POST /graphql Name`);
    /// `idempotent` is true for a query, false for a mutation (its lost answer is for the
    /// caller to look into).
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached, answers other than 200, or sends an
    /// answer that is not a GraphQL response.
    pub(crate) async fn graphql(
        &self,
        route: &'static str,
        query: &str,
        variables: Value,
        idempotent: bool,
    ) -> Result<GraphqlAnswer, GitHubError> {
        let body = json!({"query": query, "variables": variables});
        let (api, call) = match &self.graphql_target().endpoint {
            Endpoint::Joined(path) => (self.clone(), Call::post(route, *path, &body)),
            Endpoint::Absolute(url) => {
                let token = self.octocrab().installation_token().await.map_err(|e| {
                    GitHubError::Transport {
                        route,
                        message: crate::github::api::describe(&e),
                    }
                })?;
                let client = self.graphql_target().beside(url)?;
                (
                    self.through(client),
                    Call::post(route, GRAPHQL_PATH, &body).bearer(token),
                )
            }
        };
        let mutation = query.trim_start().starts_with("mutation");
        let call = call.idempotent(idempotent).write(mutation);
        let r = api.send(call).await?;
        if r.status != 200 {
            return Err(status_error(route, &r));
        }
        let answer: GraphqlAnswer = r.json(route)?;
        // GitHub answers an exhausted GraphQL limit with 200 and RATE_LIMITED.
        if answer.error_of("RATE_LIMITED").is_some() {
            let reset = r
                .headers
                .get("x-ratelimit-reset")
                .and_then(|v| v.to_str().ok());
            let limit = crate::github::retry::primary_until(reset, super::api::now_epoch());
            api.learn_limit(limit);
            return Err(GitHubError::RateLimited {
                route,
                wait: limit.wait.unwrap_or_default(),
            });
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_named_and_data_decoded() {
        let stale: GraphqlAnswer = serde_json::from_value(json!({
            "data": {"createCommitOnBranch": null},
            "errors": [{"type": "STALE_DATA", "path": ["createCommitOnBranch"], "message": "Expected branch to point to \"a\" but it did not.  Pull and try again."}]
        }))
        .unwrap();
        assert!(stale.error_of("STALE_DATA").is_some());
        assert!(stale.error_of("NOT_FOUND").is_none());
        let err = stale.decode::<Value>("POST /graphql T").unwrap_err();
        assert!(err.to_string().contains("STALE_DATA"), "{err}");
        let ok: GraphqlAnswer = serde_json::from_value(json!({"data": {"a": 1}})).unwrap();
        assert_eq!(
            ok.decode::<Value>("POST /graphql T").unwrap(),
            json!({"a": 1})
        );
    }
}
