//! Webhook intake without a socket: `server::webhook::accept`, the signature check then
//! the typed payload parse, as the extractor runs it after reading the body.
//!
//! Input: a header byte, then `event name\n`, then the body. The header byte picks how
//! the delivery is signed. Properties: never panics; a body signed with the secret is
//! accepted or refused for its payload, never for its signature; any other signature is
//! refused before the payload is read.
#![no_main]

use auditloop::server::signature::{sign, WebhookSecrets};
use auditloop::server::webhook::{accept, WebhookRejection};
use libfuzzer_sys::fuzz_target;

const SECRET: &[u8] = b"fuzz-secret";

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (event, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(event) = std::str::from_utf8(event) else {
        return;
    };
    let secrets = WebhookSecrets::parse("old-secret, fuzz-secret").expect("two secrets");
    let good = sign(SECRET, body);
    let signature = match mode % 6 {
        0 => Some(good.clone()),
        // Upper-case hex: the reference does not say, so only "never panics" is checked.
        1 => Some(format!("sha256={}", good["sha256=".len()..].to_uppercase())),
        2 => Some(sign(b"another-secret", body)),
        3 => Some(good[..good.len() - 2].to_owned()),
        4 => Some(good.replacen("sha256=", "sha1=", 1)),
        _ => None,
    };
    let signed = match mode % 6 {
        0 => Some(true),
        1 => None,
        _ => Some(false),
    };
    let id = (mode & 0x80 == 0).then_some("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    let event = (mode & 0x40 == 0).then_some(event);

    let got = accept(&secrets, signature.as_deref(), event, id, body);
    match (&got, signed) {
        (Err(WebhookRejection::BadSignature), Some(true)) => {
            panic!("a correctly signed body was refused for its signature")
        }
        (Err(WebhookRejection::BadSignature), _) | (_, None | Some(true)) => {}
        (_, Some(false)) => panic!("a wrongly signed body got past the signature check"),
    }
    if signed == Some(true) && event.is_some() && id.is_some() {
        assert!(
            matches!(got, Ok(_) | Err(WebhookRejection::Payload(_))),
            "{got:?}"
        );
    }
});
