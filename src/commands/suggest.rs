//! "Did you mean": the nearest known word by edit distance.

use crate::engine::text::edit_distance;

/// The candidate nearest to `given` (case-insensitively), when it is close enough to be
/// a likely typo: at most two edits, or `given` is a prefix of it. Ties go to the first.
pub(crate) fn nearest<T: Copy>(
    given: &str,
    candidates: impl IntoIterator<Item = T>,
    word: impl Fn(T) -> &'static str,
) -> Option<T> {
    let given = given.to_lowercase();
    let mut best: Option<(usize, T)> = None;
    for candidate in candidates {
        let text = word(candidate);
        let distance = if given.len() >= 3 && text.starts_with(&given) {
            0
        } else {
            edit_distance(&given, text)
        };
        if distance <= 2 && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        let cases = [
            ("", "", 0),
            ("waiv", "waive", 1),
            ("kitten", "sitting", 3),
            ("gate", "gate", 0),
            ("", "abc", 3),
            ("ünï", "uni", 2),
        ];
        for (a, b, d) in cases {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }

    #[test]
    fn nearest_word() {
        let words = ["waive", "veto", "gate", "status", "override"];
        let cases = [
            ("waiv", Some("waive")),
            ("WAIVE", Some("waive")),
            ("stat", Some("status")),
            ("over", Some("override")),
            ("gat", Some("gate")),
            ("xyzzy", None),
            ("ov", None),
        ];
        for (given, expected) in cases {
            assert_eq!(nearest(given, words, |w| w), expected, "{given}");
        }
    }
}
