//! Key files and the trust store (docs/reference.md#receipts; `keygen` in docs/reference.md#command-line).

use auditloop::engine::receipt::{
    public_key_base64, signing_key_from_pem, signing_key_to_pem, trust_store_entry, TrustStore,
};
use ed25519_dalek::pkcs8::EncodePrivateKey;
use ed25519_dalek::SigningKey;

const OPENSSL_PEM: &str = include_str!("../fixtures/keys/openssl_ed25519.pem");
const OPENSSL_PUB: &str = include_str!("../fixtures/keys/openssl_ed25519.pub.b64");

#[test]
fn reads_the_key_openssl_wrote_and_writes_it_back_byte_for_byte() {
    let key = signing_key_from_pem(OPENSSL_PEM).expect("openssl PKCS#8 v1");
    assert_eq!(public_key_base64(&key.verifying_key()), OPENSSL_PUB.trim());
    assert_eq!(signing_key_to_pem(&key).expect("encode"), OPENSSL_PEM);
}

#[test]
fn reads_pkcs8_v2_with_public_key() {
    let key = SigningKey::from_bytes(&[3; 32]);
    let v2 = key
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .expect("v2");
    assert_ne!(
        v2.as_str(),
        signing_key_to_pem(&key).expect("v1"),
        "v2 differs from v1"
    );
    assert_eq!(
        signing_key_from_pem(&v2).expect("v2 reads").to_bytes(),
        key.to_bytes()
    );
}

#[test]
fn refuses_what_is_not_a_private_key() {
    let public_pem = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAxE9xEFc9gX4PM5IUgHaYxvaN1xXc/l33fswmXgHp5gY=\n-----END PUBLIC KEY-----\n";
    for text in [
        "",
        "not a key",
        public_pem,
        &OPENSSL_PEM.replace("MC4C", "MC4D"),
    ] {
        assert!(signing_key_from_pem(text).is_err(), "{text:?}");
    }
}

#[test]
fn trust_store_entry_round_trips_through_the_store() {
    let key = SigningKey::from_bytes(&[5; 32]);
    let entry = trust_store_entry("ci-auditor-1", &key.verifying_key());
    assert!(
        entry.starts_with("[keys.ci-auditor-1]\npublic_key = \""),
        "{entry}"
    );
    let store = TrustStore::from_toml(&entry).expect("entry parses");
    assert_eq!(store.get("ci-auditor-1"), Some(&key.verifying_key()));
    assert_eq!(store.len(), 1);
    assert!(TrustStore::from_toml("").expect("empty store").is_empty());
}

#[test]
fn trust_store_refusals() {
    let good = public_key_base64(&SigningKey::from_bytes(&[5; 32]).verifying_key());
    let short = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [1u8; 31]);
    // The identity point: a small-order key that would accept forged signatures.
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let weak = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, identity);
    let cases: Vec<(String, &str)> = vec![
        ("[keys.a".into(), "Toml"),
        (
            format!("[keys.a]\npublic_key = \"{good}\"\nextra = 1"),
            "Toml",
        ),
        (format!("[other]\npublic_key = \"{good}\""), "Toml"),
        ("[keys.a]\n".into(), "Toml"),
        ("[keys.a]\npublic_key = \"%%%\"".into(), "Encoding"),
        (format!("[keys.a]\npublic_key = \"{short}\""), "Encoding"),
        (format!("[keys.a]\npublic_key = \"{weak}\""), "InvalidKey"),
        (format!("[keys.\"a b\"]\npublic_key = \"{good}\""), "KeyId"),
    ];
    for (text, expected) in cases {
        let err = TrustStore::from_toml(&text).expect_err(&text);
        assert!(format!("{err:?}").starts_with(expected), "{text}: {err:?}");
    }
}
