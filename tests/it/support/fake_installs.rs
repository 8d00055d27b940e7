//! The fake's installation-wide listings, which the reconcile sweep walks: the App's
//! installations, an installation's repositories, and a repository's open pull requests.

use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use super::deliveries::{INSTALLATION, REPO};
use super::fake::{reply, State};

/// Answers the routes this module keeps, or `None` for the others.
pub fn route(
    state: &mut State,
    method: &str,
    segs: &[&str],
    query: &str,
) -> Option<ResponseTemplate> {
    Some(match (method, segs) {
        ("GET", ["app", "installations"]) => reply(
            200,
            json!([{"id": INSTALLATION, "account": {"login": "octo-org"}, "app_slug": super::fake::APP_SLUG}]),
        ),
        ("GET", ["installation", "repositories"]) => reply(
            200,
            json!({"total_count": 1, "repositories": [{
                "full_name": REPO, "default_branch": "main", "archived": false,
                "html_url": format!("https://github.com/{REPO}")
            }]}),
        ),
        ("GET", ["repos", o, r, "pulls"]) if format!("{o}/{r}") == REPO => {
            let wanted = query
                .split('&')
                .find_map(|kv| kv.strip_prefix("state="))
                .unwrap_or("open");
            let list: Vec<Value> = state
                .pulls
                .values()
                .rev()
                .filter(|p| wanted == "all" || p["state"] == wanted)
                .cloned()
                .collect();
            reply(200, Value::Array(list))
        }
        _ => return None,
    })
}
