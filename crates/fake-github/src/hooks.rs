//! The App's webhook deliveries as GitHub keeps them (`/app/hook/deliveries`): every
//! attempt with the status the app answered it, listed newest first with cursor
//! pagination, one attempt with its request's payload, and redelivery requests. GitHub
//! sends a redelivery itself; here the side that plays GitHub's sender takes the requests
//! ([`Hooks::take_asked`]), sends them, and logs each new attempt ([`Hooks::log`]).

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::Reply;

/// One attempt of a delivery.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub id: u64,
    pub guid: String,
    pub delivered_at: DateTime<Utc>,
    /// What the app answered (0: no answer, as GitHub logs a timeout).
    pub status_code: u16,
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<u64>,
    pub payload: Value,
    pub redelivery: bool,
}

impl Attempt {
    /// As `GET /app/hook/deliveries` lists it.
    pub fn listed(&self) -> Value {
        json!({
            "id": self.id, "guid": self.guid, "delivered_at": self.delivered_at.to_rfc3339(),
            "redelivery": self.redelivery, "duration": 0.25, "status": status_text(self.status_code),
            "status_code": self.status_code, "event": self.event, "action": self.action,
            "installation_id": self.installation_id, "repository_id": 7, "throttled_at": null
        })
    }

    /// As `GET /app/hook/deliveries/{delivery_id}` gives it: the listing's fields, the
    /// request and the response.
    pub fn detail(&self) -> Value {
        let mut v = self.listed();
        v["url"] = json!("https://example.test/webhook");
        v["request"] = json!({
            "headers": {"X-GitHub-Event": self.event, "X-GitHub-Delivery": self.guid},
            "payload": self.payload,
        });
        v["response"] = json!({"headers": {}, "payload": null});
        v
    }
}

/// A redelivery the app asked for, for the sender to send: the attempt it names.
#[derive(Debug, Clone)]
pub struct Asked {
    pub attempt: u64,
    pub guid: String,
    pub event: String,
    pub payload: Value,
}

#[derive(Debug, Default)]
pub struct Hooks {
    attempts: Vec<Attempt>,
    /// Attempt ids the app asked to redeliver, in order.
    pub asked: Vec<u64>,
    /// Of `asked`, those the sender has not taken yet.
    pending: Vec<u64>,
    /// The queries of the listings answered, in order.
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

impl Hooks {
    /// Logs an attempt of `guid` answered `status_code`; an attempt of a guid already
    /// seen is a redelivery. Returns its id.
    pub fn log(
        &mut self,
        guid: &str,
        (event, payload): (&str, Value),
        status_code: u16,
        at: DateTime<Utc>,
    ) -> u64 {
        self.next_id += 1;
        let id = 7000 + self.next_id;
        let redelivery = self.attempts.iter().any(|a| a.guid == guid);
        let action = payload["action"].as_str().map(str::to_owned);
        let installation_id = payload["installation"]["id"].as_u64().or(Some(42));
        self.attempts.push(Attempt {
            id,
            guid: guid.to_owned(),
            delivered_at: at,
            status_code,
            event: event.to_owned(),
            action,
            installation_id,
            payload,
            redelivery,
        });
        id
    }

    /// Every attempt, in the order logged.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// The attempts of `guid`, in order.
    pub fn attempts_of(&self, guid: &str) -> Vec<&Attempt> {
        self.attempts.iter().filter(|a| a.guid == guid).collect()
    }

    /// `GET /app/hook/deliveries`: newest first, `per_page` (default 30, at most 100) a
    /// page, the next page's URL (`next_url(query)`) in a `Link` header.
    pub fn list(&mut self, query: &str, next_url: impl Fn(&str) -> String) -> Reply {
        self.listings.push(query.to_owned());
        let param = |name: &str| {
            query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_owned())
        };
        let per_page = param("per_page")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(30)
            .clamp(1, 100);
        let Some(start) = param("cursor").map_or(Some(0), |c| {
            c.strip_prefix("v1_").and_then(|n| n.parse::<usize>().ok())
        }) else {
            return Reply::json(422, json!({"message": "Validation Failed: bad cursor"}));
        };
        let mut all: Vec<&Attempt> = self.attempts.iter().collect();
        all.sort_by_key(|a| std::cmp::Reverse((a.delivered_at, a.id)));
        let page: Vec<Value> = all
            .iter()
            .skip(start)
            .take(per_page)
            .map(|a| a.listed())
            .collect();
        let reply = Reply::json(200, Value::Array(page));
        if start + per_page < all.len() {
            let next = next_url(&format!(
                "per_page={per_page}&cursor=v1_{}",
                start + per_page
            ));
            return reply.with_header("link", format!("<{next}>; rel=\"next\""));
        }
        reply
    }

    /// `GET /app/hook/deliveries/{delivery_id}`.
    pub fn detail(&self, id: u64) -> Reply {
        match self.attempts.iter().find(|a| a.id == id) {
            Some(a) => Reply::json(200, a.detail()),
            None => Reply::json(404, json!({"message": "Not Found"})),
        }
    }

    /// `POST /app/hook/deliveries/{delivery_id}/attempts`: `202`, and the request waits
    /// for the sender.
    pub fn redeliver(&mut self, id: u64) -> Reply {
        if !self.attempts.iter().any(|a| a.id == id) {
            return Reply::json(404, json!({"message": "Not Found"}));
        }
        self.asked.push(id);
        self.pending.push(id);
        Reply::json(202, json!({}))
    }

    /// The redeliveries asked for since the last call, for the sender to send together.
    pub fn take_asked(&mut self) -> Vec<Asked> {
        let pending = std::mem::take(&mut self.pending);
        pending
            .into_iter()
            .filter_map(|id| {
                let a = self.attempts.iter().find(|a| a.id == id)?;
                Some(Asked {
                    attempt: id,
                    guid: a.guid.clone(),
                    event: a.event.clone(),
                    payload: a.payload.clone(),
                })
            })
            .collect()
    }

    /// Routes `/app/hook/deliveries...` (`segs` after the leading slash); `None` for any
    /// other path.
    pub fn route(
        &mut self,
        method: &str,
        segs: &[&str],
        query: &str,
        next_url: impl Fn(&str) -> String,
    ) -> Option<Reply> {
        match (method, segs) {
            ("GET", ["app", "hook", "deliveries"]) => Some(self.list(query, next_url)),
            ("GET", ["app", "hook", "deliveries", id]) => Some(match id.parse() {
                Ok(id) => self.detail(id),
                Err(_) => Reply::json(404, json!({"message": "Not Found"})),
            }),
            ("POST", ["app", "hook", "deliveries", id, "attempts"]) => Some(match id.parse() {
                Ok(id) => self.redeliver(id),
                Err(_) => Reply::json(404, json!({"message": "Not Found"})),
            }),
            (_, ["app", "hook", "deliveries", ..]) => {
                Some(Reply::json(404, json!({"message": "Not Found"})))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_listed_newest_first_and_a_redelivery_waits_for_the_sender() {
        let mut hooks = Hooks::default();
        let at: DateTime<Utc> = "2026-01-01T00:00:00Z".parse().unwrap();
        let first = hooks.log(
            "g",
            ("issue_comment", json!({"action": "created"})),
            202,
            at,
        );
        let later = at + chrono::TimeDelta::seconds(5);
        hooks.log("h", ("pull_request", json!({})), 200, later);
        let page = hooks.list("per_page=1", |q| format!("/next?{q}"));
        assert_eq!(page.body.as_ref().unwrap()[0]["guid"], "h");
        assert!(page.headers[0].1.contains("cursor=v1_1"));
        assert_eq!(hooks.redeliver(first).status, 202);
        assert_eq!(hooks.redeliver(1).status, 404);
        let asked = hooks.take_asked();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].payload["action"], "created");
        assert!(hooks.take_asked().is_empty());
        let again = hooks.log("g", ("issue_comment", json!({})), 200, later);
        assert_eq!(hooks.detail(again).body.unwrap()["redelivery"], true);
    }
}
