//! Escaping of untrusted text (reports, command flags) for every Markdown view (docs/reference.md#answers-and-refusals).
//!
//! Escaped text cannot close or open an HTML comment (so never a section marker), cannot
//! break a table, cannot run HTML, cannot `@mention` anyone and cannot make a link, an
//! image or an auto-link. Everything is done with character references, which GitHub
//! renders as the original character, and zero-width characters where a reference would
//! not stop GitHub's own text scanners (mentions, bare URLs).

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS, NON_ALPHANUMERIC};

/// Zero-width joiner: put after `@` so that no mention or e-mail auto-link can form.
const ZWJ: char = '\u{200D}';
/// Zero-width space: splits `://` and `www.` so that bare URLs are not auto-linked.
const ZWSP: char = '\u{200B}';

/// Text for a table cell: one line, at most `max_chars` characters of the source text
/// (cut with `…`), with table and line breaks neutralized.
#[must_use]
pub fn inline(text: &str, max_chars: usize) -> String {
    let one_line: String = text
        .replace("\r\n", "\n")
        .chars()
        .map(|c| if is_line_break(c) { ' ' } else { c })
        .collect();
    let cut = truncate(one_line.trim(), max_chars);
    escape(&cut)
}

/// A piece of one line, escaped as [`inline`] escapes it, its spaces kept (for text that
/// joins other pieces).
#[must_use]
pub(crate) fn inline_piece(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if is_line_break(c) { ' ' } else { c })
        .collect();
    escape(&one_line)
}

/// Multi-line text outside tables: line breaks are kept (`\r\n` and `\r` become `\n`).
#[must_use]
pub fn block(text: &str) -> String {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    escape(&normalized)
}

/// `text` cut to at most `max_chars` characters, the last one being `…` when cut.
/// Never splits a character.
#[must_use]
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    if max_chars == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(max_chars - 1).collect();
    out.push('…');
    out
}

/// A value for a URL path segment or query: keeps unreserved characters and `/`,
/// percent-encodes everything else, so that it cannot end a Markdown link or add markup.
#[must_use]
pub(crate) fn url_path(text: &str) -> String {
    utf8_percent_encode(text, URL_PATH).to_string()
}

/// Everything but RFC 3986's unreserved characters and `/`.
const URL_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Controls, space, non-ASCII, and what could end a Markdown link or add markup.
const LINK_BREAKERS: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'(')
    .add(b')')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b']')
    .add(b'|')
    .add(b'"')
    .add(b'\'')
    .add(b'`')
    .add(b'\\')
    .add(b'@');

/// A URL the project built itself (from the operator's base and validated ids), made safe
/// for the target of a Markdown link: characters that could end the link or add markup are
/// percent-encoded.
#[must_use]
pub(crate) fn url(text: &str) -> String {
    utf8_percent_encode(text, LINK_BREAKERS).to_string()
}

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn escape(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, &c) in chars.iter().enumerate() {
        if starts_block(&chars, i) {
            out.push_str(&format!("&#{};", u32::from(c)));
            continue;
        }
        match c {
            // Emphasis: shown as the characters, never as markup.
            '*' => out.push_str("&#42;"),
            // An underscore inside a word never opens emphasis: `auditor_report_v1` stays.
            '_' if !(i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric())) =>
            {
                out.push_str("&#95;");
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            // Code spans and fences would show the references above literally, and an
            // unclosed fence would swallow the rest of the view.
            '`' => out.push_str("&#96;"),
            '~' => out.push_str("&#126;"),
            '\\' => out.push_str("&#92;"),
            '@' => {
                out.push('@');
                out.push(ZWJ);
            }
            ':' if chars.get(i + 1) == Some(&'/') => {
                out.push(':');
                out.push(ZWSP);
            }
            '.' if i >= 3 && is_www(&chars[i - 3..i]) => {
                out.push(ZWSP);
                out.push('.');
            }
            '\0' => out.push('\u{FFFD}'),
            c if c.is_control() && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Whether `chars[i]` is where a line's text starts (after spaces) and could open a
/// heading, a list or a setext underline: `#`, `-`, `+`, `=`, or the `.`/`)` after leading
/// digits (`1.`).
fn starts_block(chars: &[char], i: usize) -> bool {
    let line_start = |j: usize| {
        chars[..j]
            .iter()
            .rev()
            .take_while(|c| **c != '\n')
            .all(|c| *c == ' ')
    };
    // What follows a marker: a space, the end of the line, or (for rules and
    // underlines) the same character again.
    let opens = |j: usize, same: char| {
        chars
            .get(j + 1)
            .is_none_or(|c| matches!(c, ' ' | '\t' | '\n') || *c == same)
    };
    match chars[i] {
        c @ ('#' | '-' | '+' | '=') => line_start(i) && opens(i, c),
        '.' | ')' => {
            let digits = chars[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .count();
            digits > 0 && line_start(i - digits) && opens(i, ' ')
        }
        _ => false,
    }
}

fn is_www(prev: &[char]) -> bool {
    prev.iter().all(|c| c.eq_ignore_ascii_case(&'w'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_counts_characters_not_bytes() {
        assert_eq!(truncate("ééééé", 3), "éé…");
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn url_path_encodes_everything_but_unreserved() {
        assert_eq!(url_path("auditloop-records"), "auditloop-records");
        assert_eq!(url_path("a b)c"), "a%20b%29c");
    }

    #[test]
    fn url_encodes_link_breakers() {
        assert_eq!(url("https://x/a b)"), "https://x/a%20b%29");
    }
}
