//! One GitHub call as it is sent: route, path, body and how it may be repeated.

use http::Method;
use serde::Serialize;

/// One GitHub REST call. `route` is the documented template, used for metrics and errors.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) method: Method,
    pub(crate) route: &'static str,
    pub(crate) path: String,
    pub(crate) body: Option<serde_json::Value>,
    /// Whether repeating it after an unknown outcome is harmless.
    pub(crate) idempotent: bool,
    /// Extra request headers (`If-None-Match` for conditional reads).
    pub(crate) headers: Vec<(&'static str, String)>,
    /// A token sent by hand, through a client with no credentials of its own (GHES
    /// GraphQL); kept secret so a logged call never shows it.
    pub(crate) bearer: Option<secrecy::SecretString>,
    /// Whether GitHub counts it as creating content (every non-GET REST call and GraphQL
    /// mutation): it goes through the write governor.
    pub(crate) write: bool,
}

impl Call {
    pub(crate) fn new(method: Method, route: &'static str, path: impl Into<String>) -> Self {
        let idempotent = method != Method::POST;
        let write = method != Method::GET && method != Method::HEAD;
        Self {
            method,
            route,
            path: path.into(),
            body: None,
            idempotent,
            headers: Vec::new(),
            bearer: None,
            write,
        }
    }

    pub(crate) fn get(route: &'static str, path: impl Into<String>) -> Self {
        Self::new(Method::GET, route, path)
    }

    pub(crate) fn post(
        route: &'static str,
        path: impl Into<String>,
        body: &impl Serialize,
    ) -> Self {
        Self::new(Method::POST, route, path).json(body)
    }

    pub(crate) fn patch(
        route: &'static str,
        path: impl Into<String>,
        body: &impl Serialize,
    ) -> Self {
        Self::new(Method::PATCH, route, path).json(body)
    }

    #[must_use]
    pub(crate) fn json(mut self, body: &impl Serialize) -> Self {
        self.body = Some(serde_json::to_value(body).unwrap_or(serde_json::Value::Null));
        self
    }

    #[must_use]
    pub(crate) fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    #[must_use]
    pub(crate) fn bearer(mut self, token: secrecy::SecretString) -> Self {
        self.bearer = Some(token);
        self
    }

    /// Whether GitHub counts it as a write (a GraphQL query is a POST that reads).
    #[must_use]
    pub(crate) fn write(mut self, yes: bool) -> Self {
        self.write = yes;
        self
    }

    /// A POST that is safe to repeat (for example one GitHub deduplicates by content).
    #[must_use]
    pub(crate) fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }
}
