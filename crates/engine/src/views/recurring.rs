//! The mark of a finding whose key is a pattern (docs/reference.md#the-pattern-library): "recurring: seen in N
//! earlier records (AUD-…)", each record linked on the records branch.

use crate::ids::AuditId;
use crate::patterns::Library;
use crate::record::FindingSummary;

use super::links::ViewContext;

/// The mark for `finding` of record `current`, when its key is a pattern seen in other
/// records.
#[must_use]
pub(crate) fn recurring_mark(
    finding: &FindingSummary,
    library: &Library,
    current: &AuditId,
    ctx: &ViewContext,
) -> Option<String> {
    let pattern = library.get(finding.key.as_ref()?)?;
    let own = u32::from(pattern.records.contains(current));
    let earlier = pattern.seen.saturating_sub(own);
    if earlier == 0 {
        return None;
    }
    let links: Vec<String> = pattern
        .records
        .iter()
        .filter(|r| *r != current)
        .map(|r| format!("[{r}]({})", ctx.record_url(r)))
        .collect();
    let more = if links.len() < earlier as usize {
        ", …"
    } else {
        ""
    };
    let records = if earlier == 1 { "record" } else { "records" };
    Some(format!(
        "recurring: seen in {earlier} earlier {records} ({}{more})",
        links.join(", ")
    ))
}
