//! The App's credentials: its id, its private key and the webhook secret(s), each checked
//! on its own so that every problem is reported at once, named by where its value came from.

use std::path::Path;

use secrecy::SecretString;

use super::problems::{ConfigError, Env, Problems, ReadFile};
use super::{
    ServeArgs, APP_ID, PRIVATE_KEY, PRIVATE_KEY_PATH, WEBHOOK_SECRET, WEBHOOK_SECRET_FILE,
};
use crate::github::PrivateKey;
use crate::server::signature::WebhookSecrets;

const MISSING_APP_ID: &str = "AUDITLOOP_APP_ID (--app-id, or APP_ID)";
const MISSING_PRIVATE_KEY: &str = "AUDITLOOP_PRIVATE_KEY or AUDITLOOP_PRIVATE_KEY_PATH (--private-key, --private-key-path, or PRIVATE_KEY, PRIVATE_KEY_PATH)";
const MISSING_WEBHOOK_SECRET: &str = "AUDITLOOP_WEBHOOK_SECRET or AUDITLOOP_WEBHOOK_SECRET_FILE (--webhook-secret, --webhook-secret-file, or WEBHOOK_SECRET)";

fn path_flag(path: Option<&std::path::PathBuf>) -> Option<String> {
    path.map(|p| p.display().to_string())
}

/// True when no App credential at all is configured: no id, no key, no webhook secret.
pub(super) fn none_given(args: &ServeArgs, env: Env) -> bool {
    APP_ID.read(args.app_id.clone(), env).is_none()
        && PRIVATE_KEY.read(args.private_key.clone(), env).is_none()
        && PRIVATE_KEY_PATH
            .read(path_flag(args.private_key_path.as_ref()), env)
            .is_none()
        && WEBHOOK_SECRET
            .read(args.webhook_secret.clone(), env)
            .is_none()
        && WEBHOOK_SECRET_FILE
            .read(path_flag(args.webhook_secret_file.as_ref()), env)
            .is_none()
}

/// The App's numeric id.
pub(super) fn app_id(args: &ServeArgs, env: Env, problems: &mut Problems) -> Option<u64> {
    let Some(given) = APP_ID.given(args.app_id.clone(), env) else {
        problems.missing(MISSING_APP_ID);
        return None;
    };
    let parsed = given.value.trim().parse::<u64>().map_err(|_| {
        ConfigError::invalid(
            &given.from,
            format!("{:?} is not the App's numeric id", given.value.trim()),
        )
    });
    problems.take(parsed)
}

/// The PEM key, inline or read from its path; an error names the variable or flag the
/// inline key or the path came from.
pub(super) fn private_key(
    args: &ServeArgs,
    env: Env,
    read_file: ReadFile,
    problems: &mut Problems,
) -> Option<PrivateKey> {
    let inline = PRIVATE_KEY.given(args.private_key.clone(), env);
    let path = PRIVATE_KEY_PATH.given(path_flag(args.private_key_path.as_ref()), env);
    let (pem, from, what) = match (inline, path) {
        // Inline keys often arrive with literal `\n` from .env files.
        (Some(inline), _) => (
            inline.value.replace("\\n", "\n"),
            inline.from,
            "the key given inline is not".to_owned(),
        ),
        (None, Some(path)) => match read_file(Path::new(&path.value)) {
            Ok(pem) => (pem, path.from, format!("{} is not", path.value)),
            Err(e) => {
                problems.invalid(ConfigError::invalid(
                    &path.from,
                    format!("cannot read {}: {e}", path.value),
                ));
                return None;
            }
        },
        (None, None) => {
            problems.missing(MISSING_PRIVATE_KEY);
            return None;
        }
    };
    if !pem.contains("-----BEGIN") {
        problems.invalid(ConfigError::invalid(
            &from,
            format!("{what} a PEM private key (expected -----BEGIN RSA PRIVATE KEY-----)"),
        ));
        return None;
    }
    Some(PrivateKey(SecretString::from(pem)))
}

/// The webhook secret(s): given inline, or read from the file a secret is mounted as.
/// Both at once is refused rather than one silently winning.
pub(super) fn webhook_secrets(
    args: &ServeArgs,
    env: Env,
    read_file: ReadFile,
    problems: &mut Problems,
) -> Option<WebhookSecrets> {
    let inline = WEBHOOK_SECRET.read(args.webhook_secret.clone(), env);
    let file = WEBHOOK_SECRET_FILE.given(path_flag(args.webhook_secret_file.as_ref()), env);
    let text = match (inline, file) {
        (Some(_), Some(file)) => {
            problems.invalid(ConfigError::invalid(
                &file.from,
                "given together with AUDITLOOP_WEBHOOK_SECRET (--webhook-secret-file and --webhook-secret): give the secret one way only".into(),
            ));
            return None;
        }
        (Some(inline), None) => inline,
        (None, Some(file)) => problems.take(secret_file(&file.value, &file.from, read_file))?,
        (None, None) => {
            problems.missing(MISSING_WEBHOOK_SECRET);
            return None;
        }
    };
    let secrets = WebhookSecrets::parse(&text);
    if secrets.is_none() {
        problems.missing(MISSING_WEBHOOK_SECRET);
    }
    secrets
}

/// The secret file's text, its trailing newline trimmed. The error names the path only:
/// the content is the secret.
fn secret_file(path: &str, from: &str, read_file: ReadFile) -> Result<String, ConfigError> {
    let text = read_file(Path::new(path))
        .map_err(|e| ConfigError::invalid(from, format!("cannot read {path}: {e}")))?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if WebhookSecrets::parse(text).is_none() {
        return Err(ConfigError::invalid(
            from,
            format!("{path} holds no secret"),
        ));
    }
    Ok(text.to_owned())
}
