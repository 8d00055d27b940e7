//! The App manifest (`app-manifest.yml`) as GitHub's manifest flow takes it, and the
//! `.env` that first-run setup writes.

use serde_json::Value;

/// The manifest as JSON, with the redirect back to this setup server and, when given, the
/// public webhook URL GitHub will deliver to.
///
/// # Errors
///
/// When `yaml` is not valid YAML or not a mapping.
pub(crate) fn manifest_json(
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
        // The App's homepage: this server's public address (the webhook URL's origin),
        // not github.com/apps/auditloop, which is someone else's App.
        if let Ok(parsed) = url::Url::parse(url) {
            obj.insert(
                "url".to_owned(),
                Value::String(parsed.origin().ascii_serialization()),
            );
        }
        let hook = obj
            .entry("hook_attributes")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(hook) = hook.as_object_mut() {
            hook.insert("url".to_owned(), Value::String(url.to_owned()));
        }
    }
    Ok(manifest)
}

/// The App's name as the form gave it (see `form::default_name`): App names are unique
/// on GitHub, so `app-manifest.yml`'s plain `auditloop` is never sent as it is.
pub(crate) fn set_name(manifest: &mut Value, name: &str) {
    if let Some(obj) = manifest.as_object_mut() {
        obj.insert("name".to_owned(), Value::String(name.to_owned()));
    }
}

/// `(permission, level, why)` for each of `default_permissions` in `app-manifest.yml`'s
/// text, the reason taken from the line's comment.
#[must_use]
pub(crate) fn permission_reasons(yaml: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in yaml.lines() {
        if !line.starts_with(' ') {
            inside = line.trim_end() == "default_permissions:";
            continue;
        }
        if !inside {
            continue;
        }
        let (pair, why) = line.split_once('#').unwrap_or((line, ""));
        if let Some((name, level)) = pair.split_once(':') {
            out.push((
                name.trim().to_owned(),
                level.trim().to_owned(),
                why.trim().to_owned(),
            ));
        }
    }
    out
}

/// `.env` with `settings` set, every other line kept as it was.
pub(crate) fn updated_env(existing: &str, settings: &[(&str, &str)]) -> String {
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
pub(crate) fn html_attr(text: &str) -> String {
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
        assert_eq!(m["url"], "https://tunnel.example");
        assert!(manifest_json("- a list", "r", None).is_err());
        let reasons = permission_reasons(include_str!("../../app-manifest.yml"));
        assert!(reasons.contains(&(
            "checks".to_owned(),
            "write".to_owned(),
            "the audit-gate check run; check_run and check_suite events".to_owned()
        )));
        assert_eq!(reasons.len(), 6);
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
