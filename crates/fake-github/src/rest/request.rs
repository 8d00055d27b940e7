//! One REST call as a transport hands it to the routes.

use serde_json::Value;

/// One REST call, as a transport received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path under the API's root (`/repos/o/r/pulls/1`; a GitHub Enterprise Server
    /// prefix taken off).
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Null` when there is none, or it is not JSON).
    pub body: Value,
    /// The API's root URL as the client reached it (`http://127.0.0.1:4000/api/v3`): the
    /// `Link` headers name other pages by absolute URL.
    pub root: String,
}

impl Request {
    pub fn new(method: &str, path: &str, query: &str, body: &[u8], root: &str) -> Self {
        Self {
            method: method.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
            headers: Vec::new(),
            body: serde_json::from_slice(body).unwrap_or(Value::Null),
            root: root.to_owned(),
        }
    }

    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        let mut found = self.headers.iter().filter(|(k, _)| *k == name);
        found.next().map(|(_, v)| v.as_str())
    }

    /// Query parameter `name`, percent-decoded (`content=%2B1` is `+1`).
    pub fn param(&self, name: &str) -> Option<String> {
        let raw = self
            .query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))?;
        let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
        Some(decoded.into_owned())
    }

    /// The URL the call reached, without its query.
    pub fn url(&self) -> String {
        format!("{}{}", self.root, self.path)
    }
}
