//! Whether the public webhook URL reaches this very server, checked before GitHub is told
//! to deliver there: setup answers a one-time random path under `/webhook/probe/` with its
//! token, and fetches that path through the URL the user typed. Only this process knows the
//! token, so an answer carrying it proves the way in works end to end (DNS, tunnel or load
//! balancer, TLS). Like GitHub's deliveries, the fetch follows no redirect.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use http_body_util::{BodyExt as _, Empty, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// How long the whole fetch may take: a working tunnel answers in well under a second.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

/// Tokens issued and not yet answered; the oldest go first.
const KEPT: usize = 16;

/// The one-time tokens setup answers.
#[derive(Default)]
pub(crate) struct Probes {
    open: Mutex<VecDeque<String>>,
}

impl Probes {
    /// A new random token, answered once.
    pub(crate) fn issue(&self) -> String {
        let token = hex::encode(rand::random::<[u8; 16]>());
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        open.push_back(token.clone());
        while open.len() > KEPT {
            open.pop_front();
        }
        token
    }

    /// Whether `token` was issued and not answered yet; it is answered now.
    pub(crate) fn answer(&self, token: &str) -> bool {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match open.iter().position(|t| t == token) {
            Some(i) => {
                open.remove(i);
                true
            }
            None => false,
        }
    }

    /// Forgets `token` (its fetch is over).
    pub(crate) fn forget(&self, token: &str) {
        self.answer(token);
    }
}

/// The probe's address under the webhook URL: `<webhook URL>/probe/<token>`.
#[must_use]
pub(crate) fn probe_url(webhook_url: &str, token: &str) -> Option<url::Url> {
    let mut url = url::Url::parse(webhook_url).ok()?;
    let path = format!("{}/probe/{token}", url.path().trim_end_matches('/'));
    url.set_path(&path);
    url.set_query(None);
    url.set_fragment(None);
    Some(url)
}

/// Fetches `url` and checks that it answers `token`; the failure in words.
///
/// # Errors
///
/// What went wrong: no connection, no answer in time, a redirect, another status, or an
/// answer from some other server.
pub(crate) async fn fetch(url: &url::Url, token: &str, timeout: Duration) -> Result<(), String> {
    match tokio::time::timeout(timeout, get(url)).await {
        Err(_) => Err(format!("no answer within {} s", timeout.as_secs())),
        Ok(Err(e)) => Err(e),
        Ok(Ok((status, location, body))) => {
            if status.is_redirection() {
                return Err(format!(
                    "it answered with a redirect ({status}) to {}; GitHub does not follow redirects when it delivers webhooks",
                    location.as_deref().unwrap_or("nowhere")
                ));
            }
            if !status.is_success() {
                return Err(format!(
                    "it answered {status}: the address reaches a server, but not this setup page"
                ));
            }
            if body.trim() != token {
                return Err(
                    "it answered, but without this server's one-time token: the address reaches another server".to_owned(),
                );
            }
            Ok(())
        }
    }
}

type Answer = (http::StatusCode, Option<String>, String);

/// One GET without redirects, its status, `Location` and (the start of) its body.
async fn get(url: &url::Url) -> Result<Answer, String> {
    let uri: http::Uri = url
        .as_str()
        .parse()
        .map_err(|e| format!("the address cannot be fetched: {e}"))?;
    let request = http::Request::get(uri)
        .header(http::header::USER_AGENT, "auditloop-setup-probe")
        .body(Empty::<bytes::Bytes>::new())
        .map_err(|e| format!("the address cannot be fetched: {e}"))?;
    let builder = Client::builder(TokioExecutor::new());
    let sent = if url.scheme() == "https" {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_native_roots()
            .map_err(|e| format!("this machine's CA certificates cannot be read: {e}"))?
            .https_only()
            .enable_http1()
            .build();
        builder.build(https).request(request).await
    } else {
        builder.build_http().request(request).await
    };
    let response = sent.map_err(|e| format!("it could not be fetched: {}", chain(&e)))?;
    let status = response.status();
    let location = response
        .headers()
        .get(http::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .map(|l| l.chars().take(200).collect());
    // The token is 32 characters: more is not this server's answer.
    let body = Limited::new(response.into_body(), 1024)
        .collect()
        .await
        .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
        .unwrap_or_default();
    Ok((status, location, body))
}

/// An error with its causes, `a: b: c`.
fn chain(e: &dyn std::error::Error) -> String {
    let mut words = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !words.contains(&text) {
            words = format!("{words}: {text}");
        }
        source = cause.source();
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_lives_under_the_webhook_url_and_answers_once() {
        let url = probe_url("https://t.example/hooks/webhook?x=1", "ab12").unwrap();
        assert_eq!(url.as_str(), "https://t.example/hooks/webhook/probe/ab12");
        let probes = Probes::default();
        let token = probes.issue();
        assert_eq!(token.len(), 32);
        assert!(!probes.answer("other"));
        assert!(probes.answer(&token));
        assert!(!probes.answer(&token), "one time only");
    }
}
