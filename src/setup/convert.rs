//! The last step of the manifest flow: convert GitHub's code into the App's credentials
//! and write them where `serve` reads them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::form::Choice;
use super::manifest::updated_env;
use crate::github::{Api, GitHubError, RetryPolicy};
use crate::metrics::Metrics;

/// The App GitHub registered, and where its settings now are. Debug and Display never
/// show the webhook secret.
#[derive(Clone)]
pub struct Registered {
    pub(crate) app_id: u64,
    pub(crate) slug: String,
    pub(crate) key_path: PathBuf,
    pub(crate) env_path: PathBuf,
    /// The webhook secret, or empty when GitHub returned none.
    pub(crate) webhook_secret: String,
    pub(crate) api_url: String,
    /// GitHub's page that installs the App on repositories.
    pub(crate) install_url: String,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("app_id", &self.app_id)
            .field("slug", &self.slug)
            .field("key_path", &self.key_path)
            .field("env_path", &self.env_path)
            .field("webhook_secret", &"redacted")
            .field("api_url", &self.api_url)
            .field("install_url", &self.install_url)
            .finish()
    }
}

impl std::fmt::Display for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GitHub App {} (id {})", self.slug, self.app_id)
    }
}

/// What GitHub's conversion answers; the secret fields never reach logs.
#[derive(Deserialize)]
struct Conversion {
    id: u64,
    slug: String,
    pem: String,
    webhook_secret: Option<String>,
    html_url: Option<String>,
}

/// The install page: under the App's `html_url` when GitHub gave one on the chosen host
/// (GitHub Enterprise Server keeps Apps under `/github-apps/`), else `/apps/SLUG`.
fn install_url(choice: &Choice, slug: &str, html_url: Option<&str>) -> String {
    let base = format!("{}/", choice.github_url);
    match html_url {
        Some(u) if u.starts_with(&base) && !u.contains(['?', '#', '"', '<', '>']) => {
            format!("{}/installations/new", u.trim_end_matches('/'))
        }
        _ => format!("{}/apps/{slug}/installations/new", choice.github_url),
    }
}

/// Converts the code and writes the key and `.env` (both mode 0600) into `dir`.
pub(crate) async fn convert(
    choice: &Choice,
    dir: &Path,
    code: &str,
) -> Result<Registered, GitHubError> {
    let octo = octocrab::Octocrab::builder()
        .base_uri(choice.api_url.as_str())
        .map_err(|e| GitHubError::Setup(e.to_string()))?
        .build()
        .map_err(|e| GitHubError::Setup(e.to_string()))?;
    let api = Api::new(
        Arc::new(octo),
        None,
        Metrics::new(),
        RetryPolicy::default(),
        Arc::new(crate::github::endpoint::Target::for_api_url(
            &choice.api_url,
        )),
    );
    let app: Conversion = crate::github::rest::convert_manifest(&api, code).await?;
    let safe_slug = !app.slug.is_empty()
        && app
            .slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !safe_slug {
        return Err(GitHubError::Setup(format!(
            "GitHub answered with an App slug that is not a name: {:?}",
            app.slug
        )));
    }
    let key_path = dir.join(format!("{}.private-key.pem", app.slug));
    write_private(&key_path, &app.pem)
        .map_err(|e| GitHubError::Setup(format!("writing {}: {e}", key_path.display())))?;
    let env_path = dir.join(".env");
    let existing = std::fs::read_to_string(&env_path).unwrap_or_default();
    let secret = app.webhook_secret.unwrap_or_default();
    let app_id = app.id.to_string();
    let key_text = key_path.display().to_string();
    let mut settings = vec![
        ("AUDITLOOP_APP_ID", app_id.as_str()),
        ("AUDITLOOP_PRIVATE_KEY_PATH", key_text.as_str()),
        ("AUDITLOOP_WEBHOOK_SECRET", secret.as_str()),
    ];
    if choice.api_url != crate::operator_config::DEFAULT_API_URL {
        settings.push(("AUDITLOOP_GITHUB_API_URL", choice.api_url.as_str()));
    }
    write_private(&env_path, &updated_env(&existing, &settings))
        .map_err(|e| GitHubError::Setup(format!("writing {}: {e}", env_path.display())))?;
    tracing::info!(app_id = app.id, slug = %app.slug, "GitHub App registered; settings written to .env");
    Ok(Registered {
        app_id: app.id,
        install_url: install_url(choice, &app.slug, app.html_url.as_deref()),
        slug: app.slug,
        key_path,
        env_path,
        webhook_secret: secret,
        api_url: choice.api_url.clone(),
    })
}

/// Writes a file only its owner can read: it holds a key or a secret.
///
/// # Errors
///
/// When the file cannot be created or written.
pub(crate) fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    // `mode` applies only to a new file: an existing `.env` is narrowed too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(text.as_bytes())
}
