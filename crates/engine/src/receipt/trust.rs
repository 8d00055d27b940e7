//! The operator's trust store: `[keys.KEY_ID] public_key = "<base64 of 32 raw bytes>"`.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::VerifyingKey;
use serde::Deserialize;
use thiserror::Error;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    keys: BTreeMap<String, VerifyingKey>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrustStoreError {
    #[error("trust store is not valid TOML of [keys.ID] public_key = \"…\": {0}")]
    Toml(String),
    #[error("trust store key {0:?}: public_key must be standard base64 of 32 bytes")]
    Encoding(String),
    #[error("trust store key {0:?}: public_key is not a usable Ed25519 public key")]
    InvalidKey(String),
    #[error("trust store key id {0:?} must be 1-100 letters, digits, '-' or '_'")]
    KeyId(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    keys: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    public_key: String,
}

impl TrustStore {
    /// # Errors
    ///
    /// When `text` is not TOML of the trust-store shape or a key in it is invalid.
    pub fn from_toml(text: &str) -> Result<TrustStore, TrustStoreError> {
        let file: File = toml::from_str(text).map_err(|e| TrustStoreError::Toml(e.to_string()))?;
        let mut keys = BTreeMap::new();
        for (id, entry) in file.keys {
            if !super::is_valid_key_id(&id) {
                return Err(TrustStoreError::KeyId(id));
            }
            let bytes: [u8; 32] = STANDARD
                .decode(entry.public_key.trim())
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| TrustStoreError::Encoding(id.clone()))?;
            let key = VerifyingKey::from_bytes(&bytes)
                .map_err(|_| TrustStoreError::InvalidKey(id.clone()))?;
            // A small-order key verifies forged signatures; no honest key is one.
            if key.is_weak() {
                return Err(TrustStoreError::InvalidKey(id));
            }
            keys.insert(id, key);
        }
        Ok(TrustStore { keys })
    }

    /// A store holding exactly these keys (for callers that build one in code).
    pub fn with_keys(keys: impl IntoIterator<Item = (String, VerifyingKey)>) -> TrustStore {
        TrustStore {
            keys: keys.into_iter().collect(),
        }
    }

    #[must_use]
    pub fn get(&self, key_id: &str) -> Option<&VerifyingKey> {
        self.keys.get(key_id)
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
