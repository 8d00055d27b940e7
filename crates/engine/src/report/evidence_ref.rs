//! A finding's evidence reference to a place in the repository: `path:line` or
//! `path:start-end`. What the annotations, the review threads and the ledger point at.

const PATH_CHARS: usize = 1_024;

/// `path:line` or `path:start-end` with a repository-relative path; anything else (URLs,
/// absolute or escaping paths, line 0, reversed ranges) is `None`.
#[must_use]
pub fn parse_evidence_ref(text: &str) -> Option<(String, u32, u32)> {
    let (path, lines) = text.trim().rsplit_once(':')?;
    let (start, end) = if let Some((a, b)) = lines.split_once('-') {
        (line_number(a)?, line_number(b)?)
    } else {
        let n = line_number(lines)?;
        (n, n)
    };
    if end < start {
        return None;
    }
    Some((safe_path(path)?, start, end))
}

fn line_number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|n| *n >= 1)
}

fn safe_path(path: &str) -> Option<String> {
    let path = path.strip_prefix("./").unwrap_or(path);
    let hostile = path.is_empty()
        || path.chars().count() > PATH_CHARS
        || path.starts_with('/')
        || path.contains(['\\', ':'])
        || path.chars().any(char::is_control)
        || path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..");
    (!hostile).then(|| path.to_owned())
}
