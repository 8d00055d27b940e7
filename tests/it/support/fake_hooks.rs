//! The fake's webhook deliveries (`/app/hook/deliveries`), kept and served by the shared
//! crate: what the tests add is the deliveries a test logs by hand.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::fake::FakeGitHub;

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
