//! The signed-webhook extractor: a handler receives a delivery only after its size was
//! bounded, its signature verified (before anything is parsed), and its payload typed.

use axum::body::Body;
use axum::extract::{FromRef, FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};

pub use crate::delivery::Delivery;
use crate::events::{PayloadError, WebhookEvent};
use crate::ids::DeliveryId;
use crate::server::signature::{self, WebhookSecrets};

/// GitHub does not send payloads over 25 MB; anything bigger is refused unread.
pub(crate) const MAX_BODY: usize = 25 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum WebhookRejection {
    #[error("payload larger than 25 MiB")]
    TooLarge,
    #[error("missing or invalid X-Hub-Signature-256")]
    BadSignature,
    #[error("missing header {0}")]
    MissingHeader(&'static str),
    #[error("could not read the request body")]
    BodyRead,
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

impl IntoResponse for WebhookRejection {
    fn into_response(self) -> Response {
        let status = match self {
            WebhookRejection::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            WebhookRejection::BadSignature => StatusCode::UNAUTHORIZED,
            WebhookRejection::MissingHeader(_)
            | WebhookRejection::BodyRead
            | WebhookRejection::Payload(_) => StatusCode::BAD_REQUEST,
        };
        (status, self.to_string()).into_response()
    }
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
}

async fn read_bounded(body: Body) -> Result<Bytes, WebhookRejection> {
    match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(WebhookRejection::TooLarge),
        Err(_) => Err(WebhookRejection::BodyRead),
    }
}

impl<S> FromRequest<S> for Delivery
where
    S: Send + Sync,
    WebhookSecrets: FromRef<S>,
{
    type Rejection = WebhookRejection;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        // GitHub's window runs from the request, not from the end of its body.
        let received = tokio::time::Instant::now();
        let declared = header(&req, "content-length").and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > MAX_BODY) {
            return Err(WebhookRejection::TooLarge);
        }
        let signature = header(&req, "x-hub-signature-256").map(str::to_owned);
        let event = header(&req, "x-github-event").map(str::to_owned);
        let id = header(&req, "x-github-delivery").map(str::to_owned);
        let body = read_bounded(req.into_body()).await?;
        let secrets = WebhookSecrets::from_ref(state);
        accept(
            &secrets,
            signature.as_deref(),
            event.as_deref(),
            id.as_deref(),
            &body,
        )
        .map(|d| Delivery { received, ..d })
    }
}

/// The extractor's decision once the body is read and bounded: the signature first (nothing
/// is parsed before it passes), then the two headers, then the typed payload. Headers are
/// `None` when absent or empty. Pure, so the whole intake can be exercised without a socket.
///
/// # Errors
///
/// The [`WebhookRejection`] for a bad signature, a missing header or a payload that does not parse.
pub fn accept(
    secrets: &WebhookSecrets,
    signature: Option<&str>,
    event: Option<&str>,
    id: Option<&str>,
    body: &[u8],
) -> Result<Delivery, WebhookRejection> {
    match signature {
        Some(sig) if signature::verify(secrets, sig, body) => {}
        _ => return Err(WebhookRejection::BadSignature),
    }
    let event = event.ok_or(WebhookRejection::MissingHeader("X-GitHub-Event"))?;
    let id = id.ok_or(WebhookRejection::MissingHeader("X-GitHub-Delivery"))?;
    let event = WebhookEvent::parse(event, body)?;
    Ok(Delivery {
        id: DeliveryId(id.to_owned()),
        event,
        received: tokio::time::Instant::now(),
        pace: crate::delivery::Pace::default(),
    })
}
