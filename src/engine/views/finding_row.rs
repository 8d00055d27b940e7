//! A finding as a Markdown table row, the same in the check run and the PR body.

use crate::engine::record::FindingSummary;

use super::escape::inline;

const KEY_CHARS: usize = 100;
const REF_CHARS: usize = 120;

/// `| id | key | severity | blocking | claim | evidence |`, each cell escaped and bounded;
/// the claim to `claim_chars`. A view with more columns appends its own cells.
pub(crate) fn finding_row(f: &FindingSummary, claim_chars: usize) -> String {
    finding_row_marked(f, claim_chars, None)
}

/// [`finding_row`] with `mark` (Markdown the view built, such as the recurring mark of
/// `recurring.rs`) after the claim.
pub(crate) fn finding_row_marked(
    f: &FindingSummary,
    claim_chars: usize,
    mark: Option<&str>,
) -> String {
    let refs: Vec<String> = f
        .evidence_refs
        .iter()
        .map(|r| inline(r, REF_CHARS))
        .collect();
    format!(
        "| {} | {} | {} | {} | {} | {} |",
        f.id,
        f.key
            .as_ref()
            .map_or_else(|| "—".to_owned(), |k| inline(k.as_str(), KEY_CHARS)),
        f.severity.as_str(),
        if f.blocking { "yes" } else { "no" },
        match mark {
            Some(mark) => format!("{} — *{mark}*", inline(&f.claim, claim_chars)),
            None => inline(&f.claim, claim_chars),
        },
        if refs.is_empty() {
            "—".to_owned()
        } else {
            refs.join(", ")
        },
    )
}
