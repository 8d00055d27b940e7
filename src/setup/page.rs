//! The setup pages: plain HTML with readable type, no script, every value escaped.

use std::fmt::Write as _;

use super::form::{Choice, FieldError, FormInput};
use super::manifest::html_attr;

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:1.125rem;\
line-height:1.6;color:#1f2328;background:#f6f8fa;margin:0}\
main{max-width:44rem;margin:2rem auto;padding:2rem 2.5rem;background:#fff;\
border:1px solid #d0d7de;border-radius:12px}\
h1{font-size:1.75rem;line-height:1.25;margin-top:0}\
ol.steps li{margin:.4rem 0}ol.steps li.now{font-weight:600}\
label{display:block;font-weight:600;margin-top:1.25rem}\
.hint{color:#59636e;font-size:1rem;margin:.2rem 0 .4rem}\
input[type=text],input[type=url]{width:100%;box-sizing:border-box;font-size:1.125rem;\
padding:.55rem .7rem;border:1px solid #8c959f;border-radius:6px}\
button{margin-top:1.5rem;font-size:1.125rem;padding:.65rem 1.3rem;border:0;border-radius:6px;\
background:#1f883d;color:#fff;cursor:pointer}\
.error{color:#b42318;font-weight:600;margin:.3rem 0}\
.ok{border-left:4px solid #1f883d;padding:.2rem 1rem;background:#f0fff4}\
button.secondary{background:#f6f8fa;color:#1f2328;border:1px solid #8c959f}\
.problems{border-left:4px solid #b42318;padding:.2rem 1rem;background:#fff5f5}\
.problems a{color:#b42318}[aria-invalid=true]{border:2px solid #b42318;background:#fff5f5}\
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}\
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:1rem;\
overflow-x:auto;font-size:.95rem;line-height:1.45;white-space:pre-wrap;overflow-wrap:break-word}\
pre.command{white-space:pre;overflow-wrap:normal;margin:.4rem 0}\
table{border-collapse:collapse;width:100%;font-size:1rem}\
td,th{border:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}\
td{overflow-wrap:break-word}#permissions code{overflow-wrap:normal;word-break:keep-all}\
#permissions td:first-child code{white-space:nowrap}details{margin:1rem 0}summary{cursor:pointer}\
code{font-size:.95em;overflow-wrap:break-word}a{color:#0969da}\
@media (max-width:600px){main{margin:0;padding:1rem;border:0;border-radius:0}\
body{font-size:1rem}h1{font-size:1.4rem}\
#permissions thead{display:none}#permissions tr{display:grid;grid-template-columns:auto 1fr;\
border:1px solid #d0d7de;border-bottom:0}#permissions tr:last-child{border-bottom:1px solid #d0d7de}\
#permissions td{border:0}#permissions td:nth-child(3){grid-column:1/-1;padding-top:0}}";

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        html_attr(title)
    )
}

fn steps(now: usize) -> String {
    let items = [
        "Say where GitHub will reach this server, and whose App it is.",
        "Check the App's manifest and register it on GitHub; GitHub asks you to confirm.",
        "Install the App on your repositories. auditloop starts serving here at once.",
    ];
    let list = items
        .iter()
        .enumerate()
        .fold(String::new(), |mut list, (i, text)| {
            let class = if i + 1 == now { " class=\"now\"" } else { "" };
            let _ = write!(list, "<li{class}>{text}</li>");
            list
        });
    format!("<ol class=\"steps\">{list}</ol>")
}

fn field_errors(errors: &[FieldError], field: &str) -> String {
    errors
        .iter()
        .filter(|e| e.field == field)
        .fold(String::new(), |mut out, e| {
            let _ = write!(
                out,
                "<p class=\"error\" id=\"{field}-error\">{}</p>",
                html_attr(&e.message)
            );
            out
        })
}

/// `id="…-error"` of the field's first error, for `aria-describedby`.
fn marks(errors: &[FieldError], field: &str) -> String {
    let first = errors.first().is_some_and(|e| e.field == field);
    if errors.iter().any(|e| e.field == field) {
        format!(
            " aria-invalid=\"true\" aria-describedby=\"{field}-error\"{}",
            if first { " autofocus" } else { "" }
        )
    } else {
        String::new()
    }
}

/// Step 1: the form, filled with what was typed (or the command line's defaults). `port`
/// is the one this server listens on, which a tunnel or load balancer forwards.
pub(crate) fn form(input: &FormInput, errors: &[FieldError], port: u16) -> String {
    let problems = if errors.is_empty() {
        String::new()
    } else {
        let items = errors.iter().fold(String::new(), |mut list, e| {
            let _ = write!(
                list,
                "<li><a href=\"#{}\">{}</a></li>",
                e.field,
                html_attr(&e.message)
            );
            list
        });
        format!(
            "<div class=\"problems\" role=\"alert\" id=\"problems\"><p><strong>Please fix {}:</strong></p><ul>{items}</ul></div>",
            if errors.len() == 1 {
                "this".to_owned()
            } else {
                format!("these {} things", errors.len())
            }
        )
    };
    let body = format!(
        "<h1>Set up auditloop</h1>\
         <p>auditloop runs as a GitHub App. No App is configured here yet, so this page registers one \
         for you in three steps:</p>{steps}{problems}\
         <h2>How GitHub reaches this server</h2>\
         <p id=\"reach\">GitHub sends webhooks from the internet to port <strong>{port}</strong>, where auditloop \
         listens. Forward that port and use the public <code>https://</code> address it gets, for example:</p>\
         <div id=\"tunnels\"><pre class=\"command\">cloudflared tunnel --url http://localhost:{port}</pre>\
         <p class=\"hint\">or</p><pre class=\"command\">ngrok http {port}</pre></div>\
         <p class=\"hint\">On a server, point your load balancer or reverse proxy (with TLS) at port {port}. \
         github.com cannot deliver to <code>localhost</code>.</p>\
         <form method=\"post\" action=\"/setup/review\">\
         <label for=\"webhook_url\">Public webhook URL</label>\
         <p class=\"hint\">The tunnel's or load balancer's <code>https://</code> address, ending in <code>/webhook</code>.</p>\
         {e1}<input type=\"url\" id=\"webhook_url\" name=\"webhook_url\" required{m1} \
         placeholder=\"https://auditloop.example.com/webhook\" value=\"{webhook}\">\
         <label for=\"org\">Organization (optional)</label>\
         <p class=\"hint\">Register the App for this organization. Leave it empty to register it on your own account.</p>\
         {e2}<input type=\"text\" id=\"org\" name=\"org\"{m2} placeholder=\"my-org\" value=\"{org}\">\
         <label for=\"github_url\">GitHub address</label>\
         <p class=\"hint\"><code>https://github.com</code>, or your GitHub Enterprise Server, such as <code>https://ghe.example.com</code>.</p>\
         {e3}<input type=\"text\" id=\"github_url\" name=\"github_url\"{m3} value=\"{host}\">\
         <label for=\"name\">App name</label>\
         <p class=\"hint\">Unique on GitHub: at most {max} letters, digits, spaces, hyphens, underscores or periods. \
         Left empty, it is <code>auditloop-</code> and the organization, or a random suffix for your own account.</p>\
         {e4}<input type=\"text\" id=\"name\" name=\"name\"{m4} maxlength=\"{max}\" placeholder=\"auditloop-my-org\" value=\"{name}\">\
         <button type=\"submit\" id=\"review\">Review the App</button></form>",
        steps = steps(1),
        e1 = field_errors(errors, "webhook_url"),
        e2 = field_errors(errors, "org"),
        e3 = field_errors(errors, "github_url"),
        m1 = marks(errors, "webhook_url"),
        m2 = marks(errors, "org"),
        m3 = marks(errors, "github_url"),
        e4 = field_errors(errors, "name"),
        m4 = marks(errors, "name"),
        max = super::form::NAME_MAX,
        name = html_attr(&input.name),
        webhook = html_attr(&input.webhook_url),
        org = html_attr(&input.org),
        host = html_attr(&input.github_url),
    );
    document("Set up auditloop", &body)
}

/// What the public-URL check tried, and why it failed when it did.
pub(crate) struct Probed {
    pub(crate) tried: String,
    pub(crate) failure: Option<String>,
}

/// What the review page shows.
pub(crate) struct Review<'a> {
    pub(crate) choice: &'a Choice,
    pub(crate) input: &'a FormInput,
    pub(crate) state: &'a str,
    pub(crate) manifest: &'a serde_json::Value,
    pub(crate) reasons: &'a [(String, String, String)],
    /// The public-URL check, once run.
    pub(crate) probed: Option<&'a Probed>,
    /// The port this server listens on.
    pub(crate) port: u16,
}

/// The public-URL check: the button, or what it found.
fn probe_section(r: &Review<'_>) -> String {
    let button = |label: &str| {
        format!(
            "<form method=\"post\" action=\"/setup/probe\"><input type=\"hidden\" name=\"state\" value=\"{}\">\
             <button type=\"submit\" id=\"probe\" class=\"secondary\">{label}</button></form>",
            html_attr(r.state)
        )
    };
    match r.probed {
        None => format!(
            "<h2>Check that GitHub can reach this server</h2>\
             <p>This fetches a one-time address under <code>{webhook}</code>: it works only if that URL leads to this very server.</p>{button}",
            webhook = html_attr(&r.choice.webhook_url),
            button = button("Check the public URL"),
        ),
        Some(Probed {
            tried,
            failure: None,
        }) => format!(
            "<h2>GitHub can reach this server</h2>\
             <p class=\"ok\" id=\"probe-ok\" role=\"status\">The public URL reached this server: <code>GET {}</code> answered with this server's one-time token.</p>",
            html_attr(tried)
        ),
        Some(Probed {
            tried,
            failure: Some(why),
        }) => format!(
            "<h2>GitHub may not reach this server</h2>\
             <div class=\"problems\" id=\"probe-failed\" role=\"alert\"><p><strong>The public URL did not reach this server.</strong></p>\
             <p>Tried <code>GET {tried}</code>: {why}.</p>\
             <p>Check that the tunnel or load balancer is running and forwards to port {port} here, then check again. \
             Registered anyway, the App works once the URL does; GitHub keeps the deliveries that failed.</p></div>{button}",
            tried = html_attr(tried),
            why = html_attr(why),
            port = r.port,
            button = button("Check again"),
        ),
    }
}

/// A permission's reason, escaped, its file names and event names as code: a path may
/// wrap after a `/`, never inside a name.
fn reason_html(why: &str) -> String {
    let words: Vec<String> = why
        .split(' ')
        .map(|word| {
            let name = word.trim_end_matches([',', ';', ':']);
            let rest = &word[name.len()..];
            if name.contains(['.', '/', '_']) && name.len() > 1 {
                let code = html_attr(name).replace('/', "/<wbr>");
                format!("<code>{code}</code>{}", html_attr(rest))
            } else {
                html_attr(word)
            }
        })
        .collect();
    words.join(" ")
}

/// Step 2: what the App may do and why, the manifest as it will be sent (folded), the
/// public-URL check, and the button that sends the manifest to GitHub. "Change the
/// answers" keeps them.
pub(crate) fn review(r: &Review<'_>) -> String {
    let pretty = serde_json::to_string_pretty(r.manifest).unwrap_or_default();
    let rows = r
        .reasons
        .iter()
        .fold(String::new(), |mut rows, (name, level, why)| {
            let _ = write!(
                rows,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                html_attr(name),
                html_attr(level),
                reason_html(why)
            );
            rows
        });
    let back = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("webhook_url", &r.input.webhook_url)
        .append_pair("org", &r.input.org)
        .append_pair("github_url", &r.input.github_url)
        .append_pair("name", &r.choice.name)
        .finish();
    let register = if r.probed.is_some_and(|p| p.failure.is_some()) {
        "Register anyway"
    } else {
        "Register GitHub App"
    };
    let body = format!(
        "<h1>Register the GitHub App</h1>{steps}\
         <p>This registers the App <strong id=\"app-name\">{name}</strong> on <strong>{owner}</strong>; GitHub delivers its webhooks to \
         <code>{webhook}</code>. GitHub shows you the App and asks you to confirm, then sends you back to this page.</p>\
         <p>What the App may do on the repositories you install it on, and why:</p>\
         <table id=\"permissions\"><thead><tr><th>Permission</th><th>Access</th><th>Why</th></tr></thead><tbody>{rows}</tbody></table>\
         <details><summary>The manifest GitHub will receive</summary><pre id=\"manifest\">{pretty}</pre></details>\
         {probe}\
         <form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"manifest\" value=\"{value}\">\
         <button type=\"submit\" id=\"register\">{register}</button></form>\
         <p><a id=\"change\" href=\"/?{back}\">Change the answers</a></p>",
        steps = steps(2),
        name = html_attr(&r.choice.name),
        owner = html_attr(&r.choice.owner_words()),
        webhook = html_attr(&r.choice.webhook_url),
        pretty = html_attr(&pretty),
        probe = probe_section(r),
        action = html_attr(&r.choice.new_app_url(r.state)),
        value = html_attr(&r.manifest.to_string()),
        back = html_attr(&back),
    );
    document("Register the GitHub App", &body)
}

/// Step 3: registered, serving, and the link that installs the App.
pub(crate) fn done(slug: &str, install_url: &str, files: &str) -> String {
    let body = format!(
        "<h1>GitHub App {slug} is registered</h1>{steps}\
         <p>Its id, private key and webhook secret are saved in {files}, readable only by you. \
         auditloop is now serving webhooks from this process: nothing to restart.</p>\
         <p><a id=\"install\" href=\"{install}\">Install {slug} on your repositories</a></p>\
         <p>Then require the <code>audit-gate</code> check in the branch protection of your default branch.</p>",
        slug = html_attr(slug),
        steps = steps(3),
        files = files,
        install = html_attr(install_url),
    );
    document("auditloop is set up", &body)
}

/// A page that says what went wrong and what to do next.
pub(crate) fn problem(title: &str, sentence: &str) -> String {
    let body = format!(
        "<h1>{}</h1><p class=\"error\" role=\"alert\">{}</p><p><a href=\"/\">Start again</a></p>",
        html_attr(title),
        html_attr(sentence)
    );
    document(title, &body)
}

/// Where GitHub lists the Apps an account or an organization owns, to delete one.
#[must_use]
pub fn apps_page(github_url: &str, org: Option<&str>) -> String {
    let github_url = github_url.trim_end_matches('/');
    match org.filter(|o| !o.is_empty()) {
        Some(org) => format!("{github_url}/organizations/{org}/settings/apps"),
        None => format!("{github_url}/settings/apps"),
    }
}

/// The code's conversion failed. Reloading the callback retries it (its state stays valid
/// while setup runs); starting again would register a second App, so the page says how to
/// delete the first one before that.
pub(crate) fn conversion_failed(error: &str, apps_page: &str) -> String {
    let title = "GitHub did not hand over the App";
    let body = format!(
        "<h1>{title}</h1><p class=\"error\" role=\"alert\">Converting the code failed: {error}.</p>\
         <p id=\"retry\"><strong>Reload this page</strong> to try the conversion again: this link stays valid \
         while this setup runs, and nothing has been written yet.</p>\
         <p id=\"orphan\">If the code has expired or was already used (GitHub's codes work once, for an hour), \
         GitHub has registered the App but auditloop has no key for it. Starting again from the first page \
         registers a second App: delete the first one at <a id=\"apps\" href=\"{apps}\">{apps_text}</a> \
         (the App's page, Advanced, Delete GitHub App) first, then <a href=\"/\">start again</a>.</p>",
        error = html_attr(error),
        apps = html_attr(apps_page),
        apps_text = html_attr(apps_page),
    );
    document(title, &body)
}
