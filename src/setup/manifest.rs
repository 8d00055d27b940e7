//! The App manifest (`app-manifest.yml`) as GitHub's manifest flow takes it, and the
//! `.env` that first-run setup writes.

use serde_json::Value;

/// The manifest as JSON, with the redirect back to this setup server and, when given, the
/// public webhook URL GitHub will deliver to.
///
/// # Errors
///
/// When `yaml` is not valid YAML or not a mapping.
pub fn manifest_json(
    yaml: &str,
    redirect_url: &str,
    webhook_url: Option<&str>,
) -> Result<Value, String> {
    let mut manifest: Value = serde_saphyr::from_str(yaml)
        .map_err(|e| format!("app-manifest.yml is not valid YAML: {e}"))?;
    let Some(obj) = manifest.as_object_mut() else {
        return Err("app-manifest.yml must be a mapping".to_owned());
    };
    obj.insert(
        "redirect_url".to_owned(),
        Value::String(redirect_url.to_owned()),
    );
    if let Some(url) = webhook_url {
        let hook = obj
            .entry("hook_attributes")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(hook) = hook.as_object_mut() {
            hook.insert("url".to_owned(), Value::String(url.to_owned()));
        }
    }
    Ok(manifest)
}

/// `.env` with `settings` set, every other line kept as it was.
pub fn updated_env(existing: &str, settings: &[(&str, &str)]) -> String {
    let mut out: Vec<String> = existing
        .lines()
        .filter(|line| {
            let name = line
                .trim_start()
                .trim_start_matches("export ")
                .split('=')
                .next()
                .unwrap_or("")
                .trim();
            !settings.iter().any(|(key, _)| *key == name)
        })
        .map(str::to_owned)
        .collect();
    out.extend(settings.iter().map(|(key, value)| format!("{key}={value}")));
    out.join("\n") + "\n"
}

/// Text safe inside an HTML attribute value.
#[must_use]
pub fn html_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_gets_the_redirect_and_webhook_url() {
        let m = manifest_json(
            "name: auditloop\nhook_attributes:\n  url: https://x/webhook\n",
            "http://127.0.0.1:3000/setup/callback",
            Some("https://tunnel.example/webhook"),
        )
        .unwrap();
        assert_eq!(m["redirect_url"], "http://127.0.0.1:3000/setup/callback");
        assert_eq!(
            m["hook_attributes"]["url"],
            "https://tunnel.example/webhook"
        );
        assert!(manifest_json("- a list", "r", None).is_err());
    }

    #[test]
    fn env_keeps_other_settings_and_replaces_ours() {
        let env = updated_env(
            "AUDITLOOP_LOG=debug\nAUDITLOOP_APP_ID=1\nexport AUDITLOOP_WEBHOOK_SECRET=old\n",
            &[
                ("AUDITLOOP_APP_ID", "42"),
                ("AUDITLOOP_PRIVATE_KEY_PATH", "/k/app.pem"),
                ("AUDITLOOP_WEBHOOK_SECRET", "s3"),
            ],
        );
        assert_eq!(env, "AUDITLOOP_LOG=debug\nAUDITLOOP_APP_ID=42\nAUDITLOOP_PRIVATE_KEY_PATH=/k/app.pem\nAUDITLOOP_WEBHOOK_SECRET=s3\n");
    }
}
