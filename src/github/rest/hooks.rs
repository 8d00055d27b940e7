//! The App's webhook deliveries: listed with the App JWT, and asked for again.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::github::api::status_error;
use crate::github::pages::Listing;
use crate::github::{Api, Call, GitHubError};

pub(crate) const LIST_DELIVERIES: &str = "GET /app/hook/deliveries";
pub(crate) const REDELIVER: &str = "POST /app/hook/deliveries/{delivery_id}/attempts";
pub(crate) const GET_DELIVERY: &str = "GET /app/hook/deliveries/{delivery_id}";

/// One delivery attempt as `GET /app/hook/deliveries` lists it; a redelivery keeps the
/// `guid` and gets a new `id`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HookDelivery {
    pub id: u64,
    pub guid: String,
    pub delivered_at: DateTime<Utc>,
    #[serde(default)]
    pub redelivery: bool,
    pub status: String,
    pub status_code: u16,
    pub event: String,
    #[serde(default)]
    pub action: Option<String>,
    /// The installation it was for (`null` for the App's own events).
    #[serde(default)]
    pub installation_id: Option<u64>,
}

impl HookDelivery {
    /// GitHub's own reading: a 2xx answer that it recorded as `OK`.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        (200..300).contains(&self.status_code) && self.status == "OK"
    }

    /// Answered `202`: queued by the app, carried out after the answer.
    #[must_use]
    pub fn queued(&self) -> bool {
        self.succeeded() && self.status_code == 202
    }

    /// Answered with its effects written (a 2xx other than `202`).
    #[must_use]
    pub fn done(&self) -> bool {
        self.succeeded() && !self.queued()
    }
}

/// What GitHub kept of one attempt beyond the listing: the request's payload.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HookDeliveryDetail {
    pub(crate) event: String,
    pub(crate) request: HookRequest,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HookRequest {
    #[serde(default)]
    pub(crate) payload: Option<serde_json::Value>,
}

/// `GET /app/hook/deliveries/{delivery_id}`: one attempt with its payload.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub(crate) async fn hook_delivery(api: &Api, id: u64) -> Result<HookDeliveryDetail, GitHubError> {
    api.json(Call::get(
        GET_DELIVERY,
        format!("/app/hook/deliveries/{id}"),
    ))
    .await
}

/// Pages newest first through the deliveries, at most `max_pages`, stopping after the
/// first page that holds one delivered at or before `cutoff`. Also says how many pages
/// were read.
///
/// # Errors
///
/// [`GitHubError`] when a page cannot be read.
pub(crate) async fn hook_deliveries(
    api: &Api,
    cutoff: DateTime<Utc>,
    max_pages: usize,
) -> Result<(Vec<HookDelivery>, usize), GitHubError> {
    let mut items = Vec::new();
    let mut pages = 0;
    let mut listing = Listing::new(
        api,
        LIST_DELIVERIES,
        "/app/hook/deliveries?per_page=100",
        max_pages,
    );
    while let Some(answer) = listing.next_page().await? {
        pages += 1;
        let page: Vec<HookDelivery> = answer.json(LIST_DELIVERIES)?;
        let reached_cutoff = page.iter().any(|d| d.delivered_at <= cutoff);
        items.extend(page);
        if reached_cutoff {
            break;
        }
    }
    Ok((items, pages))
}

/// `POST /app/hook/deliveries/{delivery_id}/attempts`: `Ok(Err(refusal))` when GitHub
/// answered and refused.
///
/// # Errors
///
/// [`GitHubError`] when the request got no answer.
pub(crate) async fn redeliver(api: &Api, id: u64) -> Result<Result<(), GitHubError>, GitHubError> {
    let call = Call::new(
        http::Method::POST,
        REDELIVER,
        format!("/app/hook/deliveries/{id}/attempts"),
    );
    let answer = api.send(call).await?;
    Ok(if answer.is_success() {
        Ok(())
    } else {
        Err(status_error(REDELIVER, &answer))
    })
}
