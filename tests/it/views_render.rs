//! Every view as GitHub renders it: the snapshots and a whole loop's outputs (refusals
//! included) through a GFM renderer with GitHub's extensions (comrak: tables,
//! strikethrough, autolinks, task lists, footnotes; raw HTML rendered as it is, so that a
//! hostile tag would show up).
//!
//! What the app wrote must read as meant: tables keep their columns, no backtick, `&#96;`
//! or `\|` shows outside code, the section and delivery markers stay invisible, and
//! hostile text shows literally, never as markup.

use std::path::Path;

use auditloop::engine::md::Md;
use auditloop::engine::views::{self, check_run, reply, BodyStatus};
use proptest::prelude::*;

use crate::support::audit::{Loop, SHA1};
use crate::views_support::*;

/// GitHub's Markdown: GFM with the extensions github.com enables. Raw HTML is rendered
/// (GitHub keeps `<details>` and comments; any tag that gets through shows in the HTML).
pub fn gfm(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    options.extension.footnotes = true;
    options.render.r#unsafe = true;
    comrak::markdown_to_html(markdown, &options)
}

/// `html` without everything between `open` and `close` (both included).
fn without(html: &str, open: &str, close: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        match rest[i..].find(close) {
            Some(j) => rest = &rest[i + j + close.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

fn decode(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' if inside => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// What a reader sees of `html`: no comments, no tags, entities decoded.
pub fn visible(html: &str) -> String {
    decode(&strip_tags(&without(html, "<!--", "-->")))
}

/// What a reader sees outside code spans and code blocks.
fn prose(html: &str) -> String {
    let html = without(&without(html, "<pre", "</pre>"), "<code>", "</code>");
    visible(&html)
}

/// The cells of a GFM table row: split on every unescaped `|` (GFM splits inside code
/// spans too).
fn cells(row: &str) -> usize {
    let row = row.trim();
    let mut count = 0usize;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '|' if !escaped => count += 1,
            _ => {}
        }
        escaped = false;
    }
    count.saturating_sub(1)
}

/// Every table of `markdown`: each row has its header's number of cells, and the HTML
/// has as many tables as the Markdown. Returns the header rows' cell counts.
fn table_columns(markdown: &str, html: &str, name: &str) -> Vec<usize> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].starts_with('|') && lines[i + 1].starts_with("| ---") {
            let header = cells(lines[i]);
            found.push(header);
            let mut j = i + 2;
            while j < lines.len() && lines[j].starts_with('|') {
                assert_eq!(
                    cells(lines[j]),
                    header,
                    "{name}: a row breaks its table: {}",
                    lines[j]
                );
                j += 1;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    assert_eq!(
        html.matches("<table>").count(),
        found.len(),
        "{name}: every table parses"
    );
    found
}

/// The checks every view of the app's own (non-hostile) text passes.
pub fn assert_reads_right(name: &str, markdown: &str) {
    let html = gfm(markdown);
    table_columns(markdown, &html, name);
    let prose = prose(&html);
    assert!(
        !prose.contains('`'),
        "{name}: a literal backtick shows:\n{prose}"
    );
    assert!(!prose.contains("&#96;"), "{name}: `&#96;` shows:\n{prose}");
    assert!(!prose.contains("\\|"), "{name}: `\\|` shows:\n{prose}");
    let seen = visible(&html);
    assert!(
        !seen.contains("auditloop:rounds") && !seen.contains("auditloop:delivery"),
        "{name}: a marker shows:\n{seen}"
    );
}

/// The snapshots as they are committed: the text after insta's header; for a check run,
/// title and summary are separated by a `---` line.
fn snapshots() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "snap") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let body = text
            .splitn(3, "---\n")
            .nth(2)
            .unwrap_or_default()
            .to_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, body));
    }
    assert!(out.len() > 15, "the snapshots are found");
    out
}

#[test]
fn every_snapshot_reads_right_on_github() {
    for (name, body) in snapshots() {
        assert_reads_right(&name, &body);
    }
}

#[test]
fn the_rounds_table_has_six_columns_and_the_findings_four_or_five() {
    let s = views::sections(Some(&rich_record()), &ctx());
    let html = gfm(&s.rounds);
    assert_eq!(table_columns(&s.rounds, &html, "rounds"), [6]);
    assert!(html.contains("<details>"), "rounds fold their details");
    let html = gfm(&s.residual);
    assert_eq!(table_columns(&s.residual, &html, "residual"), [5]);
    let v = check_run::check_run(
        &gate(auditloop::engine::gate::Conclusion::Success, "x", &[]),
        Some(&rich_record()),
        &ctx(),
        BodyStatus::Current,
    );
    assert_eq!(table_columns(&v.text, &gfm(&v.text), "text"), [4]);
}

/// `/audit help`: a three-column table of short rows, then every form whole in a code
/// block (nothing there wraps, and a line copies as it is), then the notes.
#[test]
fn the_help_reply_has_short_rows_and_its_forms_in_a_code_block() {
    let help = format!("auditloop: help\n\n{}", auditloop::commands::help_table());
    assert_reads_right("help", &help);
    let html = gfm(&help);
    assert_eq!(table_columns(&help, &html, "help"), [3]);
    let block = html
        .split("<pre")
        .nth(1)
        .and_then(|rest| rest.split_once("<code"))
        .and_then(|(_, rest)| rest.split_once('>'))
        .and_then(|(_, rest)| rest.split("</code>").next())
        .map(decode)
        .expect("the forms are a code block");
    for command in auditloop::engine::policy::CommandName::ALL {
        for row in auditloop::commands::help_rows(command) {
            assert!(block.lines().any(|l| l == row.usage), "{}", row.usage);
        }
    }
    // The table's command cells are the bare commands.
    assert!(html.contains("<td><code>/audit new</code></td>"), "{html}");
    assert!(!html.contains("<td><code>/audit new --goal"), "{html}");
}

#[test]
fn hostile_text_shows_literally_in_every_view() {
    let r = hostile_record();
    let g = gate(
        auditloop::engine::gate::Conclusion::Failure,
        HOSTILE,
        &[(4, auditloop::engine::gate::Outcome::Fail, HOSTILE)],
    );
    let s = views::sections(Some(&r), &ctx());
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    let status = reply::status(Some(&r), &g, &ctx(), "d");
    let refusal = reply::refused(&Md::text(HOSTILE), &Md::block(HOSTILE), "d");
    for (name, view) in [
        ("rounds", &s.rounds),
        ("waivers", &s.waivers),
        ("residual", &s.residual),
        ("summary", &v.summary),
        ("text", &v.text),
        ("status", &status),
        ("refusal", &refusal),
    ] {
        let html = gfm(view);
        table_columns(view, &html, name);
        assert!(!html.contains("<script"), "{name}: {html}");
        assert!(!html.contains("href=\"https://evil"), "{name}: {html}");
        assert!(!html.contains("<img"), "{name}: {html}");
        assert!(!html.contains("<pre"), "{name}: a fence opened: {html}");
        let seen = visible(&html).replace(['\u{200B}', '\u{200D}'], "");
        assert!(seen.contains("<script>alert(1)</script>"), "{name}: {seen}");
        assert!(seen.contains("@octocat"), "{name}: {seen}");
        assert!(seen.contains("[l](https://evil.example)"), "{name}: {seen}");
        assert!(
            seen.contains("<!-- auditloop:rounds:end -->"),
            "{name}: the hostile marker shows as text: {seen}"
        );
    }
}

/// A full loop, as the fake GitHub holds it after a remediation round and a refusal.
#[tokio::test]
async fn a_loops_outputs_read_right_on_github() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.comment(42, "dev", "/audit waiv A-01").await;
    l.comment(42, "reader", "/audit status").await;
    let head = SHA1.to_owned();
    let body = l.gh.pull_body(42);
    let summary = l.gate(&head)["output"]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let title = l.gate(&head)["output"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let replies = l.replies(42);
    assert!(replies.iter().any(|r| r.starts_with("auditloop: refused")));
    assert_reads_right("loop body", &body);
    assert_reads_right("loop summary", &summary);
    for r in &replies {
        assert_reads_right("loop reply", r);
    }
    // One verdict line on every surface.
    let status = replies
        .iter()
        .rev()
        .find(|r| r.starts_with("auditloop: status"))
        .unwrap();
    let line = |view: &str| {
        visible(&gfm(view))
            .lines()
            .find(|l| l.starts_with("Needs remediation"))
            .map(str::to_owned)
    };
    assert!(title.starts_with("Needs remediation — "), "{title}");
    assert_eq!(line(&summary).as_deref(), Some(title.as_str()));
    assert_eq!(line(status).as_deref(), Some(title.as_str()));
    assert!(
        line(&body).is_some_and(|l| title.starts_with(l.split(" · ").next().unwrap())),
        "{body}"
    );
}

proptest! {
    /// Any untrusted text renders as exactly its characters, beside app code spans that
    /// render as code.
    #[test]
    fn untrusted_text_renders_literally(text in "\\PC{0,80}") {
        let m = auditloop::engine::md!("run `/audit status` for {} now", Md::text(&text));
        let html = gfm(m.as_markdown());
        prop_assert!(html.contains("<code>/audit status</code>"), "{}", html);
        let seen = visible(&html).replace(['\u{200B}', '\u{200D}'], "");
        let expected: String = text
            .trim()
            .chars()
            .map(|c| match c {
                '\0' => '\u{FFFD}',
                '\u{2028}' | '\u{2029}' => ' ',
                c if c.is_control() && c != '\t' => ' ',
                c => c,
            })
            .collect();
        let seen = seen.trim_end_matches('\n');
        let want = format!("run /audit status for {expected} now");
        prop_assert_eq!(seen, want.trim());
    }
}
