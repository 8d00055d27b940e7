//! Auditor key files: PKCS#8 PEM, written as `openssl genpkey -algorithm ed25519` writes it
//! (v1, private key only) and read in both v1 and v2 (with the public key) forms.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, KeypairBytes};
use ed25519_dalek::{SigningKey, VerifyingKey};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyFileError {
    #[error("not a PKCS#8 Ed25519 private key (-----BEGIN PRIVATE KEY-----): {0}")]
    Decode(String),
    #[error("could not encode the private key: {0}")]
    Encode(String),
}

/// PKCS#8 v1 PEM with LF line endings, byte-identical to OpenSSL's output for the same key.
///
/// # Errors
///
/// When the key cannot be encoded as PKCS#8 PEM.
pub fn signing_key_to_pem(key: &SigningKey) -> Result<String, KeyFileError> {
    let bytes = KeypairBytes {
        secret_key: key.to_bytes(),
        public_key: None,
    };
    let pem = bytes
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| KeyFileError::Encode(e.to_string()))?;
    Ok(pem.as_str().to_owned())
}

/// Reads PKCS#8 v1 or v2 PEM; a v2 public key that does not match the private key is refused.
///
/// # Errors
///
/// When `pem` is not a PKCS#8 Ed25519 key, or its public key does not match.
pub fn signing_key_from_pem(pem: &str) -> Result<SigningKey, KeyFileError> {
    SigningKey::from_pkcs8_pem(pem.trim()).map_err(|e| KeyFileError::Decode(e.to_string()))
}

/// Standard base64 of the 32 raw public-key bytes, as the trust store holds it.
#[must_use]
pub fn public_key_base64(key: &VerifyingKey) -> String {
    STANDARD.encode(key.as_bytes())
}

/// The trust-store entry an operator pins for this key.
#[must_use]
pub fn trust_store_entry(key_id: &str, key: &VerifyingKey) -> String {
    format!(
        "[keys.{key_id}]\npublic_key = \"{}\"\n",
        public_key_base64(key)
    )
}
