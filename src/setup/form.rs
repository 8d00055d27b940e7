//! The setup form's answers, checked: each mistake becomes a sentence the page shows
//! next to the field, never a 5xx.

use serde::Deserialize;

/// What the form posts.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct FormInput {
    #[serde(default)]
    pub(crate) webhook_url: String,
    #[serde(default)]
    pub(crate) org: String,
    #[serde(default)]
    pub(crate) github_url: String,
    /// The App's name; empty takes the default ([`default_name`]).
    #[serde(default)]
    pub(crate) name: String,
}

/// The answers, checked: where the App is registered and where GitHub delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Choice {
    pub(crate) webhook_url: String,
    pub(crate) org: Option<String>,
    /// GitHub's web address, `https://github.com` or `https://HOST`, without a trailing `/`.
    pub(crate) github_url: String,
    /// The REST base URL the code is converted at, and the App then talks to.
    pub(crate) api_url: String,
    /// The App's name, as the manifest's `name`.
    pub(crate) name: String,
}

/// GitHub's limit on an App's name.
pub(crate) const NAME_MAX: usize = 34;

/// `auditloop-<account>`, cut to GitHub's 34 characters (an organization's login may have
/// 39). App names are unique on GitHub, so a plain `auditloop` would clash.
#[must_use]
pub(crate) fn default_name(account: &str) -> String {
    let name: String = format!("auditloop-{account}")
        .chars()
        .take(NAME_MAX)
        .collect();
    name.trim_end_matches('-').to_owned()
}

/// The name for a personal account, whose login setup does not know before GitHub
/// registers the App: `auditloop-` and a random suffix, unique in practice and editable.
fn personal_default() -> String {
    format!("auditloop-{}", hex::encode(rand::random::<[u8; 3]>()))
}

/// GitHub's rules for an App's name: at most 34 characters of letters, digits, spaces,
/// hyphens, underscores and periods, with at least one letter or digit (GitHub derives the
/// App's URL slug from them).
fn name_problem(name: &str) -> Option<String> {
    let chars = name.chars().count();
    if chars > NAME_MAX {
        return Some(format!(
            "The App name {name:?} has {chars} characters: GitHub allows at most {NAME_MAX}."
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || " -_.".contains(*c)))
    {
        return Some(format!(
            "The App name {name:?} holds {bad:?}: use letters, digits, spaces, hyphens, underscores and periods."
        ));
    }
    if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
        return Some(format!("The App name {name:?} needs a letter or a digit."));
    }
    None
}

/// One field's problem, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub(crate) field: &'static str,
    pub(crate) message: String,
}

/// The REST base URL for a GitHub web address: `api.github.com` for github.com, the
/// Enterprise Server path `/api/v3` on any other host.
#[must_use]
pub(crate) fn api_url_for(github_url: &str) -> String {
    let base = github_url.trim_end_matches('/');
    match url::Url::parse(base) {
        Ok(u) if u.host_str() == Some("github.com") => {
            crate::operator_config::DEFAULT_API_URL.to_owned()
        }
        _ => format!("{base}/api/v3"),
    }
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => d.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// An absolute `https://` URL, or `http://` to this machine (a local test or tunnel).
fn web_url(text: &str, what: &str, example: &str) -> Result<url::Url, String> {
    let parsed = url::Url::parse(text)
        .map_err(|_| format!("{what} {text:?} is not a full address: write it with https:// and a host, such as {example}."))?;
    let Some(host) = parsed.host() else {
        return Err(format!(
            "{what} {text:?} names no host: write it such as {example}."
        ));
    };
    match parsed.scheme() {
        "https" => {}
        "http" if is_loopback(&host) => {}
        _ => {
            return Err(format!(
                "{what} must start with https:// (GitHub sends secrets over it); plain http:// works only for a GitHub Enterprise Server on this machine"
            ))
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!("{what} must not carry a user name or password"));
    }
    Ok(parsed)
}

/// Whether the GitHub address (as typed; empty is the default) is github.com, which
/// delivers webhooks over the internet only.
fn is_github_com(typed: &str) -> bool {
    let typed = typed.trim().trim_end_matches('/');
    typed.is_empty()
        || [
            "github.com",
            "https://github.com",
            "http://github.com",
            "https://www.github.com",
        ]
        .iter()
        .any(|g| typed.eq_ignore_ascii_case(g))
}

/// GitHub's rules for an account name: letters, digits and single hyphens, at most 39.
fn valid_login(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 39
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

impl FormInput {
    /// Checks every field and reports every problem at once; `api_override` is an
    /// operator-set REST URL (`AUDITLOOP_GITHUB_API_URL`) that wins over the derived one.
    ///
    /// # Errors
    ///
    /// Every field problem found.
    pub(crate) fn check(&self, api_override: Option<&str>) -> Result<Choice, Vec<FieldError>> {
        let mut errors = Vec::new();
        let webhook = self.webhook_url.trim();
        let webhook_url = if webhook.is_empty() {
            errors.push(FieldError {
                field: "webhook_url",
                message: "Give the public address GitHub will send webhooks to, such as https://auditloop.example.com/webhook.".into(),
            });
            None
        } else {
            match web_url(
                webhook,
                "The webhook URL",
                "https://auditloop.example.com/webhook",
            ) {
                Ok(u) if !u.path().ends_with("/webhook") => {
                    errors.push(FieldError {
                        field: "webhook_url",
                        message: format!("The webhook URL {webhook:?} must end in /webhook, where auditloop receives webhooks, such as https://auditloop.example.com/webhook."),
                    });
                    None
                }
                Ok(u)
                    if is_github_com(&self.github_url)
                        && u.host().is_some_and(|h| is_loopback(&h)) =>
                {
                    errors.push(FieldError {
                        field: "webhook_url",
                        message: format!("github.com cannot deliver to {webhook:?}: it is this machine's own address. Forward the port auditloop listens on with a tunnel or a load balancer, and give its public https:// address."),
                    });
                    None
                }
                Ok(u) => Some(u.to_string()),
                Err(message) => {
                    errors.push(FieldError {
                        field: "webhook_url",
                        message,
                    });
                    None
                }
            }
        };
        let org = self.org.trim();
        let org = if org.is_empty() {
            None
        } else if valid_login(org) {
            Some(org.to_owned())
        } else {
            errors.push(FieldError {
                field: "org",
                message: format!("{org:?} is not an organization name: GitHub names hold letters, digits and single hyphens. Leave it empty to register the App on your own account."),
            });
            None
        };
        let host = self.github_url.trim();
        let host = if host.is_empty() {
            "https://github.com"
        } else {
            host
        };
        // A bare host name is what people type for GitHub Enterprise Server.
        let host = if host.contains("://") {
            host.to_owned()
        } else {
            format!("https://{host}")
        };
        let github_url = match web_url(&host, "The GitHub address", "https://github.com") {
            Ok(u) if u.path() != "/" || u.query().is_some() => {
                errors.push(FieldError {
                    field: "github_url",
                    message: format!("The GitHub address {host:?} has a path or a query: give the host only, such as https://github.com or https://ghe.example.com."),
                });
                None
            }
            Ok(u) => Some(u.as_str().trim_end_matches('/').to_owned()),
            Err(message) => {
                errors.push(FieldError {
                    field: "github_url",
                    message,
                });
                None
            }
        };
        let name = self.name.trim();
        let name = if !name.is_empty() {
            if let Some(message) = name_problem(name) {
                errors.push(FieldError {
                    field: "name",
                    message,
                });
            }
            name.to_owned()
        } else if let Some(org) = &org {
            default_name(org)
        } else {
            personal_default()
        };
        match (webhook_url, github_url) {
            (Some(webhook_url), Some(github_url)) if errors.is_empty() => Ok(Choice {
                name,
                webhook_url,
                org,
                api_url: api_override.map_or_else(
                    || api_url_for(&github_url),
                    |a| a.trim_end_matches('/').to_owned(),
                ),
                github_url,
            }),
            _ => Err(errors),
        }
    }
}

impl Choice {
    /// GitHub's page that registers an App from a manifest, carrying our `state`.
    #[must_use]
    pub(crate) fn new_app_url(&self, state: &str) -> String {
        match &self.org {
            Some(org) => format!(
                "{}/organizations/{org}/settings/apps/new?state={state}",
                self.github_url
            ),
            None => format!("{}/settings/apps/new?state={state}", self.github_url),
        }
    }

    /// Who the App will belong to, in words.
    #[must_use]
    pub(crate) fn owner_words(&self) -> String {
        let host = self
            .github_url
            .split("://")
            .nth(1)
            .unwrap_or(&self.github_url);
        match &self.org {
            Some(org) => format!("the organization {org} on {host}"),
            None => format!("your own account on {host}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(webhook: &str, org: &str, host: &str) -> FormInput {
        FormInput {
            webhook_url: webhook.into(),
            org: org.into(),
            github_url: host.into(),
            name: String::new(),
        }
    }

    #[test]
    fn the_app_name_defaults_to_the_account_and_follows_githubs_rules() {
        let c = input("https://h.example.com/webhook", "acme", "")
            .check(None)
            .unwrap();
        assert_eq!(c.name, "auditloop-acme");
        let long = "a".repeat(39);
        assert_eq!(default_name(&long).chars().count(), NAME_MAX);
        assert_eq!(
            default_name("abcdefghijklmnopqrstuvw-xyz"),
            "auditloop-abcdefghijklmnopqrstuvw"
        );
        let c = input("https://h.example.com/webhook", "", "")
            .check(None)
            .unwrap();
        assert!(
            c.name.starts_with("auditloop-") && c.name.len() == 16,
            "{}",
            c.name
        );
        let mut named = input("https://h.example.com/webhook", "acme", "");
        named.name = "  Acme audit gate ".into();
        assert_eq!(named.check(None).unwrap().name, "Acme audit gate");
        for (bad, words) in [
            ("x".repeat(35), "at most 34"),
            ("audit/loop".to_owned(), "holds '/'"),
            ("<b>".to_owned(), "holds '<'"),
            ("- -".to_owned(), "needs a letter"),
        ] {
            named.name = bad.clone();
            let errors = named.check(None).unwrap_err();
            assert_eq!(errors[0].field, "name", "{bad}");
            assert!(errors[0].message.contains(words), "{bad}: {errors:?}");
        }
    }

    #[test]
    fn a_good_form_gives_the_choice() {
        let c = input("https://hooks.example.com/webhook", "", "")
            .check(None)
            .unwrap();
        assert_eq!(c.github_url, "https://github.com");
        assert_eq!(c.api_url, "https://api.github.com");
        assert_eq!(
            c.new_app_url("s1"),
            "https://github.com/settings/apps/new?state=s1"
        );
        let c = input("http://localhost:3000/webhook", "acme", "ghe.example.com")
            .check(None)
            .unwrap();
        assert_eq!(c.api_url, "https://ghe.example.com/api/v3");
        assert_eq!(
            c.new_app_url("s"),
            "https://ghe.example.com/organizations/acme/settings/apps/new?state=s"
        );
        assert_eq!(c.owner_words(), "the organization acme on ghe.example.com");
    }

    #[test]
    fn every_mistake_is_named() {
        let errors = input("http://hooks.example.com/webhook", "-bad", "ftp://x")
            .check(None)
            .unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field).collect();
        assert_eq!(fields, ["webhook_url", "org", "github_url"]);
        assert!(errors[0].message.contains("must start with https://"));
        let errors = input("", "", "").check(None).unwrap_err();
        assert!(errors[0].message.contains("public address"));
        let errors = input("https://x.example.com", "", "")
            .check(None)
            .unwrap_err();
        assert!(errors[0].message.contains("must end in /webhook"));
        let errors = input("https://x.example.com/hooks", "", "")
            .check(None)
            .unwrap_err();
        assert!(errors[0].message.contains("must end in /webhook"));
        // github.com never delivers to this machine; a trial against an Enterprise host
        // on the same machine may.
        for host in ["", "https://github.com", "github.com"] {
            let errors = input("http://localhost:3000/webhook", "", host)
                .check(None)
                .unwrap_err();
            assert!(errors[0].message.contains("tunnel"), "{host}: {errors:?}");
        }
        let errors = input("https://127.0.0.1/webhook", "", "")
            .check(None)
            .unwrap_err();
        assert!(errors[0].message.contains("cannot deliver"));
    }
}
