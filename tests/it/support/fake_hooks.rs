//! The fake's webhook deliveries (`/app/hook/deliveries`), kept by the shared crate's
//! `hooks`: what this transport adds is the deliveries a test logs by hand.

use auditloop_fake_github::hooks::Hooks;
use chrono::{DateTime, Utc};
use serde_json::json;
use wiremock::Request;

use super::fake::{Answer, FakeGitHub, State};

impl FakeGitHub {
    /// Records an attempt of `guid` (a `pull_request.opened`) answered `status_code`; an
    /// attempt of a guid already seen is a redelivery. Returns the attempt id.
    pub fn add_delivery(&self, guid: &str, delivered_at: DateTime<Utc>, status_code: u16) -> u64 {
        let payload = json!({"action": "opened", "installation": {"id": 42}});
        self.state()
            .hooks
            .log(guid, ("pull_request", payload), status_code, delivered_at)
    }

    /// The attempt ids the app asked to redeliver, in order.
    pub fn redeliveries(&self) -> Vec<u64> {
        self.state().hooks.asked.clone()
    }

    /// The queries of the delivery listings the app made, in order.
    pub fn delivery_listings(&self) -> Vec<String> {
        self.state().hooks.listings.clone()
    }
}

/// Answers `/app/hook/deliveries...`; `None` for any other path.
pub fn route(state: &mut State, method: &str, segs: &[&str], req: &Request) -> Option<Answer> {
    let query = req.url.query().unwrap_or_default().to_owned();
    let url = req.url.clone();
    let next = move |q: &str| {
        let mut next = url.clone();
        next.set_query(Some(q));
        next.to_string()
    };
    let hooks: &mut Hooks = &mut state.hooks;
    hooks.route(method, segs, &query, next).map(Answer::carry)
}
