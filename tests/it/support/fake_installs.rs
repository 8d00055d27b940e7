//! The fake's installation-wide listings, which the reconcile sweep walks: the App's
//! installations, an installation's repositories, and a repository's open pull requests.

use serde_json::{json, Value};

use super::deliveries::{INSTALLATION, REPO};
use super::fake::{reply, Answer, State};
use auditloop_fake_github::objects as gh;

/// Answers the routes this module keeps, or `None` for the others.
pub fn route(state: &mut State, method: &str, segs: &[&str], query: &str) -> Option<Answer> {
    Some(match (method, segs) {
        ("GET", ["app", "installations"]) => reply(
            200,
            json!([gh::installation(
                INSTALLATION,
                "octo-org",
                super::fake::APP_SLUG
            )]),
        ),
        ("GET", ["installation", "repositories"]) => reply(
            200,
            json!({"total_count": 1, "repositories": [gh::repository(REPO)]}),
        ),
        ("GET", ["repos", o, r, "pulls"]) if format!("{o}/{r}") == REPO => {
            let wanted = query.split('&').find_map(|kv| kv.strip_prefix("state="));
            let list = auditloop_fake_github::pulls::listed(state.pulls.values(), wanted);
            reply(200, Value::Array(list))
        }
        _ => return None,
    })
}
