//! `X-Hub-Signature-256` verification: HMAC-SHA256 over the raw body, compared in
//! constant time, against every configured secret (several while rotating).

use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// One or more webhook secrets; a delivery signed with any of them is accepted.
#[derive(Clone)]
pub struct WebhookSecrets(Vec<SecretString>);

impl WebhookSecrets {
    /// Splits a comma-separated list; empty entries are ignored.
    pub fn parse(list: &str) -> Option<Self> {
        let secrets: Vec<SecretString> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| SecretString::from(s.to_owned()))
            .collect();
        (!secrets.is_empty()).then_some(Self(secrets))
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.0.iter().map(|s| s.expose_secret().as_bytes())
    }
}

impl std::fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WebhookSecrets([{} redacted])", self.0.len())
    }
}

/// True when `header` is `sha256=<hex>` and matches the body under any secret.
/// The legacy SHA-1 `X-Hub-Signature` is never accepted.
#[must_use]
pub fn verify(secrets: &WebhookSecrets, header: &str, body: &[u8]) -> bool {
    let Some(hex_sig) = header.strip_prefix("sha256=") else {
        return false;
    };
    let Ok(expected) = hex::decode(hex_sig.trim()) else {
        return false;
    };
    // Every secret is tried, so timing does not reveal which one matched.
    let mut ok = false;
    for secret in secrets.iter() {
        let Ok(mut mac) = HmacSha256::new_from_slice(secret) else {
            continue;
        };
        mac.update(body);
        ok |= mac.verify_slice(&expected).is_ok();
    }
    ok
}

/// `sha256=<hex>` for a body: what GitHub sends, and what tests sign with.
#[must_use]
///
/// # Panics
///
/// Never: HMAC takes keys of any length.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}
