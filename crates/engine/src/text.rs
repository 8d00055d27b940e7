//! Free-text rules shared by reports and command flags (docs/reference.md#report-rules).

use std::sync::LazyLock;

use regex::Regex;

/// Words that stand in for text nobody wrote yet.
const PLACEHOLDER_WORDS: [&str; 7] = ["", "todo", "tbd", "fixme", "n/a", "...", "…"];

/// A whole `<...>` template slot, such as `<describe the risk>`.
static TEMPLATE_SLOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^<[^<>]*>$").expect("static regex"));

/// True when `s`, trimmed and case-folded, is empty, a placeholder word, or a template slot.
/// Ordinary text that merely contains such words (`"TODO list parsing is fixed"`) is fine.
pub fn is_placeholder(s: &str) -> bool {
    let folded = s.trim().to_lowercase();
    PLACEHOLDER_WORDS.contains(&folded.as_str()) || TEMPLATE_SLOT.is_match(&folded)
}

/// Levenshtein distance over characters: how far a typo is from the word meant, for the
/// "did you mean" of commands and reports alike.
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::is_placeholder;

    #[test]
    fn placeholders_and_ordinary_text() {
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("   \n\t", true),
            ("todo", true),
            ("TODO", true),
            ("  Tbd ", true),
            ("FIXME", true),
            ("n/a", true),
            ("N/A", true),
            ("...", true),
            ("…", true),
            ("<describe the risk>", true),
            (" <> ", true),
            ("<a <b>>", false),
            ("<a> and <b>", false),
            ("todo: write the parser", false),
            ("The TODO list is handled", false),
            ("n/a for this module because it has no I/O", false),
            ("....", false),
            ("tests pass", false),
            ("<b>bold</b>", false),
        ];
        for (text, expected) in cases {
            assert_eq!(is_placeholder(text), *expected, "{text:?}");
        }
    }
}
