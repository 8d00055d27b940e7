//! The App's own routes: the App, its installation tokens and installations, the
//! repositories an installation reaches, manifest conversions and webhook deliveries.

use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::answers::{not_found, paged, repository};
use super::request::Request;
use super::site::Site;
use crate::{objects, Reply};

/// The one code a manifest flow gets back from GitHub in this fake: any other is unknown.
pub const MANIFEST_CODE: &str = "goodcode";

pub fn route(site: &mut dyn Site, req: &Request, segs: &[&str]) -> Option<Reply> {
    Some(match (req.method.as_str(), segs) {
        ("GET", ["app"]) => Reply::json(200, objects::app(site.app_slug())),
        ("POST", ["app", "installations", _id, "access_tokens"]) => token(site),
        ("GET", ["app", "installations"]) => {
            let id = site.installation();
            let shown = objects::installation(id, "octo-org", site.app_slug());
            paged(req, vec![shown], Value::Array)
        }
        ("GET", ["installation", "repositories"]) => {
            let names = site.installed_repositories();
            let total = names.len();
            let all = names.iter().map(|r| repository(false, r)).collect();
            paged(
                req,
                all,
                |page| json!({"total_count": total, "repositories": page}),
            )
        }
        ("POST", ["app-manifests", code, "conversions"]) => conversion(code),
        (method, ["app", "hook", "deliveries", ..]) => {
            let url = req.url();
            let next = |q: &str| format!("{url}?{q}");
            return site.hooks_mut().route(method, segs, &req.query, next);
        }
        _ => return None,
    })
}

/// A new installation token, valid an hour, as GitHub mints it.
fn token(site: &mut dyn Site) -> Reply {
    let n = site.mint_token();
    let expires = SystemTime::now() + Duration::from_secs(3600);
    let expires = chrono::DateTime::<chrono::Utc>::from(expires).to_rfc3339();
    Reply::json(
        201,
        json!({"token": format!("ghs_faketoken{n}"), "expires_at": expires,
            "permissions": {"checks": "write", "contents": "write", "pull_requests": "write",
                "issues": "write"},
            "repository_selection": "all"}),
    )
}

/// The App a manifest made, with its secrets, for the code GitHub handed back.
fn conversion(code: &str) -> Reply {
    if code != MANIFEST_CODE {
        return not_found();
    }
    let mut created = objects::app("auditloop-acme");
    let fields = json!({"id": 777, "name": "auditloop acme", "client_id": "Iv1.x",
        "client_secret": "cs", "webhook_secret": "whsec-from-github",
        "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\n-----END RSA PRIVATE KEY-----\n"});
    if let (Some(app), Some(fields)) = (created.as_object_mut(), fields.as_object()) {
        app.extend(fields.clone());
    }
    Reply::json(201, created)
}
