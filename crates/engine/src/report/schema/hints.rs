//! Words for people in shape problems: "did you mean" for a misspelt field or value, and
//! what an id or other patterned string looks like instead of the bare regular expression.

use crate::text::edit_distance;

use serde_json::{Map, Value};

/// The message for a field the object does not take, with the nearest allowed name when
/// the field looks like a typo of it: ``unknown field; did you mean `severity`?``.
pub(super) fn unknown_field(key: &str, properties: &Map<String, Value>) -> String {
    match nearest(key, properties.keys().map(String::as_str)) {
        Some(name) => format!("unknown field; did you mean `{name}`?"),
        None => "unknown field".to_owned(),
    }
}

/// The suffix for a value outside an enum, with the nearest allowed string when it looks
/// like a typo of it: ``; did you mean `high`?``, or nothing.
pub(super) fn enum_suggestion(value: &Value, allowed: &[Value]) -> String {
    let Some(given) = value.as_str() else {
        return String::new();
    };
    nearest(given, allowed.iter().filter_map(Value::as_str))
        .map(|word| format!("; did you mean `{word}`?"))
        .unwrap_or_default()
}

/// The message for a string that does not match `pattern`: what such a string looks like
/// when the pattern is one of the schema's (ids, keys, the candidate …), the pattern after.
pub(super) fn pattern_mismatch(shown: &str, pattern: &str) -> String {
    match pattern_words(pattern) {
        Some(words) => format!("{shown} does not fit: {words} (pattern {pattern})"),
        None => format!("{shown} does not match {pattern}"),
    }
}

/// How a person would say what the schema's patterns ask for.
fn pattern_words(pattern: &str) -> Option<&'static str> {
    Some(match pattern {
        "^L-[0-9]{2,}$" => "limitation ids are `L-01`, `L-02`, …",
        "^A-[0-9]{2,}$" => "finding ids are `A-01`, `A-02`, …",
        "^AUD-[1-9][0-9]*$" => {
            "audit ids are `AUD-1`, `AUD-2`, …; copy `report.bind.audit_id` from the audit packet"
        }
        "^commit:[0-9a-f]{40}$" => {
            "a candidate is `commit:` and the full 40-character lowercase hex SHA, not a short one; copy `report.bind.candidate_artifact` from the audit packet"
        }
        "^(#[1-9][0-9]*|[A-Za-z][A-Za-z0-9_.-]*-[0-9]+)$" => {
            "a covered task is an issue number like `#12` or a task id like `T-041`"
        }
        "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$" => {
            "a key is 1 to 100 letters, digits, `_`, `.`, `:` or `-`, starting with a letter or digit, such as `webhook-replay`"
        }
        "^(human: [A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?|D-[1-9][0-9]*)$" => {
            "an authority is `human: LOGIN` (a GitHub login) or `D-<n>` (a decision record), such as `human: octocat` or `D-3`"
        }
        "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$" => "a repository is `OWNER/REPO`",
        "^sha256:[0-9a-f]{64}$" => "a digest is `sha256:` and 64 lowercase hex digits",
        p if p.starts_with("^(pr:") => {
            "a work unit is `pr:` and the pull request's number, as in `pr:42`, or `phase:`, `milestone:`, `epic:`, `custom:` or `work-unit:` and a name without spaces"
        }
        _ => return None,
    })
}

/// The word nearest to `given` (case-insensitively, `-` read as `_`) when it is close
/// enough to be a likely typo: at most two edits (a third of a long word), and fewer than
/// the word has characters, so that `x` suggests nothing. Ties go to the first.
fn nearest<'a>(given: &str, words: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_lowercase().replace('-', "_");
    let length = given.chars().count();
    let limit = (length / 3).max(2).min(length.saturating_sub(1));
    let mut best: Option<(usize, &str)> = None;
    for word in words {
        let distance = edit_distance(&given, &word.to_lowercase());
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, word));
        }
    }
    best.map(|(_, word)| word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_words() {
        let words = ["severity", "blocking", "claim", "id", "key"];
        assert_eq!(nearest("sevrity", words), Some("severity"));
        assert_eq!(nearest("Blocking", words), Some("blocking"));
        assert_eq!(nearest("ids", words), Some("id"));
        assert_eq!(nearest("surprise", words), None);
        assert_eq!(nearest("x", words), None);
        assert_eq!(nearest("ID", words), Some("id"));
        assert_eq!(
            nearest("required-outcome", ["required_outcome"]),
            Some("required_outcome")
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn every_pattern_of_the_schema_has_words() {
        for pattern in super::super::SCHEMA.patterns.keys() {
            assert!(pattern_words(pattern).is_some(), "{pattern} has no words");
        }
    }
}
