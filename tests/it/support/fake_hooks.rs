//! The fake's webhook deliveries (`/app/hook/deliveries`): a listing newest first with
//! cursor pagination in a `Link` header, as GitHub pages it, and redelivery requests
//! recorded by attempt id.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use wiremock::Request;

use super::fake::{reply, Answer, FakeGitHub, State};

#[derive(Debug, Default)]
pub struct Hooks {
    /// Delivery attempts in the order they were seeded.
    pub deliveries: Vec<Value>,
    /// Attempt ids the app asked to redeliver, in order.
    pub redeliveries: Vec<u64>,
    /// `GET /app/hook/deliveries` requests answered, with their query.
    pub listings: Vec<String>,
    next_id: u64,
}

/// GitHub's `status` text for an answer code.
fn status_text(code: u16) -> String {
    match code {
        200..=299 => "OK".to_owned(),
        0 => "timed out".to_owned(),
        other => format!("Invalid HTTP Response: {other}"),
    }
}

impl FakeGitHub {
    /// Records a delivery attempt of `guid` answered `status_code`; an attempt of a guid
    /// already seen is a redelivery. Returns the attempt id.
    pub fn add_delivery(&self, guid: &str, delivered_at: DateTime<Utc>, status_code: u16) -> u64 {
        let mut state = self.state();
        let hooks = &mut state.hooks;
        hooks.next_id += 1;
        let id = 7000 + hooks.next_id;
        let redelivery = hooks.deliveries.iter().any(|d| d["guid"] == guid);
        hooks.deliveries.push(json!({
            "id": id, "guid": guid, "delivered_at": delivered_at.to_rfc3339(),
            "redelivery": redelivery, "duration": 0.25, "status": status_text(status_code),
            "status_code": status_code, "event": "pull_request", "action": "opened",
            "installation_id": 42, "repository_id": 7, "throttled_at": null
        }));
        id
    }

    /// The attempt ids the app asked to redeliver, in order.
    pub fn redeliveries(&self) -> Vec<u64> {
        self.state().hooks.redeliveries.clone()
    }

    /// The queries of the delivery listings the app made, in order.
    pub fn delivery_listings(&self) -> Vec<String> {
        self.state().hooks.listings.clone()
    }
}

/// Answers `/app/hook/deliveries...`; `None` for any other path.
pub fn route(state: &mut State, method: &str, segs: &[&str], req: &Request) -> Option<Answer> {
    match (method, segs) {
        ("GET", ["app", "hook", "deliveries"]) => Some(list(state, req)),
        ("POST", ["app", "hook", "deliveries", id, "attempts"]) => {
            let id: u64 = id.parse().ok()?;
            let known = state.hooks.deliveries.iter().any(|d| d["id"] == id);
            if !known {
                return Some(reply(404, json!({"message": "Not Found"})));
            }
            state.hooks.redeliveries.push(id);
            Some(reply(202, json!({})))
        }
        (_, ["app", "hook", "deliveries", ..]) => Some(reply(404, json!({"message": "Not Found"}))),
        _ => None,
    }
}

fn list(state: &mut State, req: &Request) -> Answer {
    let query = req.url.query().unwrap_or_default().to_owned();
    state.hooks.listings.push(query);
    let param = |name: &str| {
        req.url
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let per_page = param("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let Some(start) = param("cursor").map_or(Some(0), |c| {
        c.strip_prefix("v1_").and_then(|n| n.parse::<usize>().ok())
    }) else {
        return reply(422, json!({"message": "Validation Failed: bad cursor"}));
    };
    let mut all = state.hooks.deliveries.clone();
    all.sort_by(|a, b| {
        (b["delivered_at"].as_str(), b["id"].as_u64())
            .cmp(&(a["delivered_at"].as_str(), a["id"].as_u64()))
    });
    let page: Vec<Value> = all.iter().skip(start).take(per_page).cloned().collect();
    let mut answer = reply(200, Value::Array(page));
    if start + per_page < all.len() {
        let mut next = req.url.clone();
        next.set_query(Some(&format!(
            "per_page={per_page}&cursor=v1_{}",
            start + per_page
        )));
        answer = answer.insert_header("link", &format!("<{next}>; rel=\"next\""));
    }
    answer
}
