//! The fake's self-test harness (`fake_graphql_check.rs` and the checks it runs): a fake
//! with no server and no latency, called through its handler as a client would call it,
//! and the checks that held and failed.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use base64::Engine;
use serde_json::{json, Value};

use auditloop::records::RECORDS_COMMIT as COMMIT_DOC;
use auditloop::records::RECORDS_LANDED as LANDED_DOC;

use crate::fake::{self, Fake};
use crate::payloads::BRANCH;

/// The repository the self-test works in.
pub const REPO: &str = "octo-org/hello";

/// One answer: status and body (`Null` when the body broke off or is not JSON).
pub type Answer = (u16, Value);

/// The commit message body the self-test's commits carry with `index`.
pub fn nonce(index: &str) -> String {
    format!("Auditloop-Write: {:032x}", index.len())
}

pub struct Check {
    pub fake: Arc<Fake>,
    pub checks: usize,
    pub failed: Vec<String>,
    /// The `retry-after` of the last answer.
    pub retry_after: std::sync::Mutex<Option<String>>,
}

impl Check {
    /// A fresh fake, with no latency.
    pub fn new() -> Self {
        Check {
            fake: Fake::new(Duration::ZERO),
            checks: 0,
            failed: Vec::new(),
            retry_after: std::sync::Mutex::new(None),
        }
    }

    pub fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checks += 1;
        if !ok {
            self.failed.push(what());
        }
    }

    pub fn equal(&mut self, what: &str, got: &Value, want: &Value) {
        let short = |v: &Value| v.to_string().chars().take(400).collect::<String>();
        self.expect(got == want, || {
            format!("{what}: got {}, want {}", short(got), short(want))
        });
    }

    pub async fn call(&self, method: Method, path: &str, body: &Value) -> Answer {
        let r = fake::handle(
            State(self.fake.clone()),
            method,
            Uri::try_from(path).expect("a path"),
            HeaderMap::new(),
            Bytes::from(body.to_string()),
        )
        .await;
        let status = r.status().as_u16();
        *self.retry_after.lock().unwrap() = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = axum::body::to_bytes(r.into_body(), usize::MAX).await;
        let value = bytes
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        (status, value)
    }

    pub async fn commit(&self, branch: &str, expected: &str, index: &str) -> Answer {
        let contents = base64::engine::general_purpose::STANDARD.encode(index);
        let input = json!({
            "branch": {"repositoryNameWithOwner": REPO, "branchName": branch},
            "expectedHeadOid": expected,
            "message": {"headline": "AUD-1: report run 1 [skip ci]", "body": nonce(index)},
            "fileChanges": {"additions": [{"path": "index.json", "contents": contents}]}});
        let body = json!({"query": COMMIT_DOC, "variables": {"input": input}});
        self.call(Method::POST, "/graphql", &body).await
    }

    pub async fn landed(&self, owner: &str, after: Option<&str>) -> Answer {
        let vars = json!({"owner": owner, "name": "hello", "ref": format!("refs/{BRANCH}"), "after": after});
        let body = json!({"query": LANDED_DOC, "variables": vars});
        self.call(Method::POST, "/graphql", &body).await
    }

    pub fn head(&self) -> String {
        let data = self.fake.data.lock().unwrap();
        data.git[REPO].refs[BRANCH].clone()
    }

    pub fn last_call(&self) -> fake::Call {
        self.fake
            .log
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("a call")
    }

    /// The branch's first REST commit: tree, commit, `POST git/refs`.
    pub async fn create_branch(&self) -> String {
        let git = format!("/repos/{REPO}/git");
        let tree = json!({"tree": [{"path": "index.json", "mode": "100644", "type": "blob", "content": "{\"next\": 1}\n"}]});
        let (_, tree) = self
            .call(Method::POST, &format!("{git}/trees"), &tree)
            .await;
        let commit =
            json!({"tree": tree["sha"], "parents": [], "message": "AUD-1: created [skip ci]"});
        let (_, commit) = self
            .call(Method::POST, &format!("{git}/commits"), &commit)
            .await;
        let r = json!({"ref": format!("refs/{BRANCH}"), "sha": commit["sha"]});
        self.call(Method::POST, &format!("{git}/refs"), &r).await;
        commit["sha"].as_str().unwrap_or_default().to_owned()
    }
}
