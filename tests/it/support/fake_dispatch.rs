//! The fake's routes for starting workflows and reading the repository:
//! `POST /repos/{o}/{r}/dispatches` (kept as data, answered 204 as GitHub does) and
//! `GET /repos/{o}/{r}` (the default branch).

use serde_json::{json, Value};

use super::fake::{reply, Answer, FakeGitHub, State};

pub fn route(state: &mut State, method: &str, segs: &[&str], body: &Value) -> Option<Answer> {
    Some(match (method, segs) {
        ("POST", ["repos", _o, _r, "dispatches"]) => {
            let event_type = body["event_type"].as_str().unwrap_or_default();
            let props = body["client_payload"]
                .as_object()
                .map_or(0, serde_json::Map::len);
            // GitHub's own limits: a 1-100 character event type, at most 10 properties.
            if event_type.is_empty() || event_type.chars().count() > 100 || props > 10 {
                return Some(reply(422, json!({"message": "Invalid request."})));
            }
            state.dispatches.push(body.clone());
            Answer::empty(204)
        }
        ("GET", ["repos", o, r]) => reply(
            200,
            auditloop_fake_github::objects::full_repository(&format!("{o}/{r}")),
        ),
        _ => return None,
    })
}

impl FakeGitHub {
    /// Every `repository_dispatch` GitHub accepted, oldest first.
    pub fn dispatches(&self) -> Vec<Value> {
        self.state().dispatches.clone()
    }
}
