//! A finding as a Markdown table row, the same in the check run and the PR body.

use crate::record::FindingSummary;

use crate::md::escape::{inline, truncate};
use crate::md::Md;

const KEY_CHARS: usize = 100;
const REF_CHARS: usize = 120;

/// The header of [`finding_row`]'s columns.
pub(crate) const FINDING_HEADER: &str = "| Finding | Severity | Claim | Evidence |";

/// `| id key | severity[, blocking] | claim | evidence |`, each cell escaped and bounded;
/// the claim to `claim_chars`, with `mark` (Markdown the view built, such as the recurring
/// mark of `recurring.rs`) after it. A view with more columns appends its own cells.
pub(crate) fn finding_row_marked(
    f: &FindingSummary,
    claim_chars: usize,
    mark: Option<&str>,
) -> String {
    let refs: Vec<String> = f
        .evidence_refs
        .iter()
        .map(|r| Md::path(&truncate(r, REF_CHARS)).as_markdown().to_owned())
        .collect();
    let key = f
        .key
        .as_ref()
        .map(|k| {
            format!(
                " {}",
                Md::path(&truncate(k.as_str(), KEY_CHARS)).as_markdown()
            )
        })
        .unwrap_or_default();
    let claim = inline(&f.claim, claim_chars);
    format!(
        "| {}{key} | {}{} | {} | {} |",
        f.id,
        f.severity.as_str(),
        if f.blocking { ", **blocking**" } else { "" },
        match mark {
            Some(mark) => format!("{claim} — *{mark}*"),
            None => claim,
        },
        if refs.is_empty() {
            "—".to_owned()
        } else {
            refs.join(", ")
        },
    )
}
