//! "Did you mean": the nearest known word by edit distance.

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

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
