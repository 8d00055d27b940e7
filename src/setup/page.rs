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
.problems{border-left:4px solid #b42318;padding:.2rem 1rem;background:#fff5f5}\
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:1rem;\
overflow-x:auto;font-size:.95rem;line-height:1.45}\
code{font-size:.95em}a{color:#0969da}";

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

/// Step 1: the form, filled with what was typed (or the command line's defaults).
pub fn form(input: &FormInput, errors: &[FieldError]) -> String {
    let problems = if errors.is_empty() {
        String::new()
    } else {
        format!(
            "<div class=\"problems\" role=\"alert\"><p><strong>Please fix {}:</strong></p></div>",
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
         <form method=\"post\" action=\"/setup/review\">\
         <label for=\"webhook_url\">Public webhook URL</label>\
         <p class=\"hint\">The address on the internet that reaches this server, ending in <code>/webhook</code>. \
         It must be <code>https://</code> (a tunnel or your load balancer); <code>http://localhost</code> is accepted for trials.</p>\
         {e1}<input type=\"url\" id=\"webhook_url\" name=\"webhook_url\" required \
         placeholder=\"https://auditloop.example.com/webhook\" value=\"{webhook}\">\
         <label for=\"org\">Organization (optional)</label>\
         <p class=\"hint\">Register the App for this organization. Leave it empty to register it on your own account.</p>\
         {e2}<input type=\"text\" id=\"org\" name=\"org\" placeholder=\"my-org\" value=\"{org}\">\
         <label for=\"github_url\">GitHub address</label>\
         <p class=\"hint\"><code>https://github.com</code>, or your GitHub Enterprise Server, such as <code>https://ghe.example.com</code>.</p>\
         {e3}<input type=\"text\" id=\"github_url\" name=\"github_url\" value=\"{host}\">\
         <button type=\"submit\" id=\"review\">Review the App</button></form>",
        steps = steps(1),
        e1 = field_errors(errors, "webhook_url"),
        e2 = field_errors(errors, "org"),
        e3 = field_errors(errors, "github_url"),
        webhook = html_attr(&input.webhook_url),
        org = html_attr(&input.org),
        host = html_attr(&input.github_url),
    );
    document("Set up auditloop", &body)
}

/// Step 2: the manifest as it will be sent, and the button that sends it to GitHub.
pub fn review(choice: &Choice, state: &str, manifest: &serde_json::Value) -> String {
    let pretty = serde_json::to_string_pretty(manifest).unwrap_or_default();
    let body = format!(
        "<h1>Register the GitHub App</h1>{steps}\
         <p>This registers the App below on <strong>{owner}</strong>; GitHub delivers its webhooks to \
         <code>{webhook}</code>. GitHub shows you the App and asks you to confirm (you may rename it there), \
         then sends you back to this page.</p>\
         <p>The manifest GitHub will receive:</p><pre id=\"manifest\">{pretty}</pre>\
         <form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"manifest\" value=\"{value}\">\
         <button type=\"submit\" id=\"register\">Register GitHub App</button></form>\
         <p><a href=\"/\">Change the answers</a></p>",
        steps = steps(2),
        owner = html_attr(&choice.owner_words()),
        webhook = html_attr(&choice.webhook_url),
        pretty = html_attr(&pretty),
        action = html_attr(&choice.new_app_url(state)),
        value = html_attr(&manifest.to_string()),
    );
    document("Register the GitHub App", &body)
}

/// Step 3: registered, serving, and the link that installs the App.
pub fn done(slug: &str, install_url: &str, files: &str) -> String {
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
pub fn problem(title: &str, sentence: &str) -> String {
    let body = format!(
        "<h1>{}</h1><p class=\"error\" role=\"alert\">{}</p><p><a href=\"/\">Start again</a></p>",
        html_attr(title),
        html_attr(sentence)
    );
    document(title, &body)
}
